import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// CSP3's parsing and source-list matching (``ContentSecurityPolicy``) against the standard's
/// rules and examples, and mixed-content blocking (``ProxyMixedContent``): pure policy.
@Suite("ContentSecurityPolicy")
struct ContentSecurityPolicyTests {
    static let https = BridgeOrigin(url: URL(string: "https://example.com/index.html")!)
    static let http = BridgeOrigin(url: URL(string: "http://example.com/index.html")!)
    static let package = BridgeOrigin(url: URL(string: "app://pkg/index.html")!)

    static func allows(_ policy: String, _ url: String, origin: BridgeOrigin? = https, redirected: Bool = false) -> Bool {
        ContentSecurityPolicy.check(URL(string: url)!, directive: .connect,
                                    policies: ContentSecurityPolicy.parse(header: policy, disposition: .enforce),
                                    origin: origin, redirected: redirected).allowed
    }

    @Test func parsingKeepsTheFirstOfARepeatedDirectiveAndLowerCasesNames() {
        let policy = ContentSecurityPolicy(serialized: " CONNECT-SRC  a.com ;connect-src b.com;; default-src 'none' ", disposition: .enforce)
        #expect(policy.directives.map(\.name) == ["connect-src", "default-src"])
        #expect(policy.effective(.connect)?.value == ["a.com"])
        #expect(ContentSecurityPolicy(serialized: "connect-src\ta.com\nb.com", disposition: .enforce).directives.first?.value == ["a.com", "b.com"])
        // A name with characters outside ALPHA / DIGIT / "-" names nothing.
        #expect(ContentSecurityPolicy(serialized: "conn€ct-src a.com", disposition: .enforce).directives.isEmpty)
    }

    @Test func aHeaderValueCarriesSeveralPoliciesAndEachMustAllow() {
        // CSP3 §8.1: "connect-src a b, connect-src b c" allows only b.
        let policy = "connect-src https://a.test https://b.test, connect-src https://b.test https://c.test"
        #expect(ContentSecurityPolicy.parse(header: policy, disposition: .enforce).count == 2)
        #expect(Self.allows(policy, "https://b.test/x"))
        #expect(!Self.allows(policy, "https://a.test/x"))
        #expect(!Self.allows(policy, "https://c.test/x"))
        let headers = ContentSecurityPolicy.parse(headers: [("Content-Security-Policy", "connect-src 'self'"),
                                                            ("content-security-policy-report-only", "default-src 'none'"),
                                                            ("X-Other", "connect-src *")])
        #expect(headers.map(\.disposition) == [.enforce, .report])
    }

    @Test func connectSrcFallsBackToDefaultSrcAndOverridesIt() {
        #expect(!Self.allows("default-src 'self'", "https://other.test/"))
        #expect(Self.allows("default-src 'self'", "https://example.com/data"))
        #expect(Self.allows("default-src 'none'; connect-src https://other.test", "https://other.test/"))
        #expect(!Self.allows("connect-src 'self'; default-src *", "https://other.test/"))
        // Directives that say nothing about connections allow them.
        #expect(Self.allows("script-src 'none'; img-src 'none'", "https://other.test/"))
        let verdict = ContentSecurityPolicy.check(URL(string: "https://other.test/a#frag")!, directive: .connect,
                                                  policies: ContentSecurityPolicy.parse(header: "default-src 'self'", disposition: .enforce),
                                                  origin: Self.https)
        #expect(verdict.violations == [ContentSecurityPolicy.Violation(
            blockedURI: "https://other.test/a", violatedDirective: "connect-src", decidingDirective: "default-src", effectiveDirective: "connect-src",
            originalPolicy: "default-src 'self'", disposition: .enforce)])
    }

    @Test func noneAndAnEmptyListMatchNothing() {
        #expect(!Self.allows("connect-src 'none'", "https://example.com/"))
        #expect(!Self.allows("connect-src", "https://example.com/"))
        #expect(!Self.allows("connect-src 'unsafe-inline' 'nonce-abc' 'sha256-abc='", "https://example.com/"))
    }

    @Test func selfIsTheOriginOrItsSecureUpgrade() {
        #expect(Self.allows("connect-src 'self'", "https://example.com/a"))
        #expect(Self.allows("connect-src 'self'", "https://EXAMPLE.com:443/a"))
        #expect(!Self.allows("connect-src 'self'", "https://example.com:8443/a"))
        #expect(!Self.allows("connect-src 'self'", "https://www.example.com/a"))
        #expect(!Self.allows("connect-src 'self'", "http://example.com/a"))
        // CSP3 §6.7.2.6: an http page's 'self' also matches https (and wss) on its host and default ports.
        #expect(Self.allows("connect-src 'self'", "https://example.com/a", origin: Self.http))
        #expect(Self.allows("connect-src 'self'", "http://example.com/a", origin: Self.http))
        let loopback = BridgeOrigin(url: URL(string: "http://127.0.0.1:8080/")!)
        #expect(Self.allows("connect-src 'self'", "http://127.0.0.1:8080/x", origin: loopback))
        #expect(!Self.allows("connect-src 'self'", "http://127.0.0.1:8081/x", origin: loopback))
        #expect(!Self.allows("connect-src 'self'", "http://localhost:8080/x", origin: loopback))
    }

    /// An offline package's page has the custom scheme's origin (`app://pkg`): its `'self'` is that
    /// origin, and — CSP3 §6.7.2.6's secure upgrade, since neither URL has a port of its own — https
    /// on the same host (the site a package stands in for); never http, another host or port.
    @Test func selfOnAPackagePageIsThePackageOriginAndItsHTTPSHost() {
        #expect(Self.allows("connect-src 'self'", "app://pkg/data.json", origin: Self.package))
        #expect(Self.allows("connect-src 'self'", "https://pkg/data.json", origin: Self.package))
        #expect(!Self.allows("connect-src 'self'", "https://pkg:8443/data.json", origin: Self.package))
        #expect(!Self.allows("connect-src 'self'", "http://pkg/data.json", origin: Self.package))
        #expect(!Self.allows("connect-src 'self'", "https://api.example.com/", origin: Self.package))
        #expect(!Self.allows("connect-src 'self'", "app://other/data.json", origin: Self.package))
        // `*` matches the network schemes and the document's own scheme.
        #expect(Self.allows("connect-src *", "app://pkg/data.json", origin: Self.package))
        #expect(Self.allows("connect-src *", "https://api.example.com/", origin: Self.package))
        // A host without a scheme takes the document's scheme: from a package page it names app: URLs only.
        #expect(!Self.allows("connect-src api.example.com", "https://api.example.com/", origin: Self.package))
        #expect(Self.allows("connect-src https://api.example.com", "https://api.example.com/", origin: Self.package))
    }

    @Test func starMatchesNetworkSchemesAndTheDocumentsOwn() {
        #expect(Self.allows("connect-src *", "https://any.test/"))
        #expect(Self.allows("connect-src *", "http://any.test:8080/"))
        #expect(!Self.allows("connect-src *", "data:text/plain,hi"))
        #expect(!Self.allows("connect-src *", "blob:https://example.com/1234"))
    }

    @Test func schemeSourcesMatchTheSchemeAndItsUpgrade() {
        #expect(Self.allows("connect-src https:", "https://any.test/"))
        #expect(!Self.allows("connect-src https:", "http://any.test/"))
        #expect(Self.allows("connect-src http:", "https://any.test/"))
        #expect(Self.allows("connect-src ws:", "https://any.test/"))
        #expect(Self.allows("connect-src HTTPS:", "https://any.test/"))
        #expect(Self.allows("connect-src data:", "data:text/plain,hi"))
    }

    @Test func hostsWithWildcardsMatchSubdomainsOnly() {
        #expect(Self.allows("connect-src *.example.com", "https://www.example.com/"))
        #expect(Self.allows("connect-src *.example.com", "https://a.b.example.com/"))
        #expect(!Self.allows("connect-src *.example.com", "https://example.com/"))
        #expect(!Self.allows("connect-src *.example.com", "https://badexample.com/"))
        #expect(Self.allows("connect-src https://*.example.com", "https://WWW.Example.COM/"))
        #expect(!Self.allows("connect-src https://*.example.com", "http://www.example.com/"))
        // No scheme: an https page's host-source matches https only; an http page's, http and https.
        #expect(!Self.allows("connect-src example.org", "http://example.org/"))
        #expect(Self.allows("connect-src example.org", "https://example.org/", origin: Self.http))
        #expect(Self.allows("connect-src example.org", "http://example.org/", origin: Self.http))
        #expect(Self.allows("connect-src 127.0.0.1:9000", "https://127.0.0.1:9000/x"))
        #expect(!Self.allows("connect-src *.0.0.1", "https://127.0.0.1/x"))
    }

    @Test func portsDefaultToTheSchemesAndStarTakesAny() {
        #expect(Self.allows("connect-src https://example.org", "https://example.org:443/"))
        #expect(!Self.allows("connect-src https://example.org", "https://example.org:8443/"))
        #expect(Self.allows("connect-src https://example.org:8443", "https://example.org:8443/"))
        #expect(!Self.allows("connect-src https://example.org:8443", "https://example.org/"))
        #expect(Self.allows("connect-src https://example.org:*", "https://example.org:1/"))
        #expect(Self.allows("connect-src https://example.org:*", "https://example.org/"))
        #expect(Self.allows("connect-src https://example.org:443", "https://example.org/"))
        // An http source upgraded to https keeps no port of its own: https's default applies.
        #expect(Self.allows("connect-src http://example.org", "https://example.org/"))
        #expect(!Self.allows("connect-src http://example.org:80", "https://example.org/"))
    }

    @Test func pathsEndingInASlashArePrefixesOthersExact() {
        // CSP3 §6.7.2.11's examples.
        #expect(Self.allows("connect-src https://example.org/api/", "https://example.org/api/items"))
        #expect(Self.allows("connect-src https://example.org/api/", "https://example.org/api/a/b"))
        #expect(!Self.allows("connect-src https://example.org/api/", "https://example.org/apis"))
        #expect(!Self.allows("connect-src https://example.org/api/", "https://example.org/"))
        #expect(Self.allows("connect-src https://example.org/api/file.js", "https://example.org/api/file.js?x=1"))
        #expect(!Self.allows("connect-src https://example.org/api/file.js", "https://example.org/api/file.js/more"))
        #expect(!Self.allows("connect-src https://example.org/api", "https://example.org/api/"))
        #expect(Self.allows("connect-src https://example.org/", "https://example.org"))
        #expect(Self.allows("connect-src https://example.org/a%20b/", "https://example.org/a b/c"))
        // After a redirect the path is not compared (the page must not learn where it went).
        #expect(Self.allows("connect-src https://example.org/api/", "https://example.org/elsewhere", redirected: true))
        #expect(!Self.allows("connect-src https://example.org/api/", "https://other.org/api/", redirected: true))
    }

    @Test func reportOnlyPoliciesReportWithoutBlocking() {
        let policies = ContentSecurityPolicy.parse(headers: [("Content-Security-Policy-Report-Only", "connect-src 'none'"),
                                                             ("Content-Security-Policy", "connect-src https:")])
        let verdict = ContentSecurityPolicy.check(URL(string: "https://api.test/")!, directive: .connect, policies: policies,
                                                  origin: Self.https)
        #expect(verdict.allowed)
        #expect(verdict.violations.map(\.disposition) == [.report])
        let both = ContentSecurityPolicy.check(URL(string: "http://api.test/")!, directive: .connect, policies: policies,
                                               origin: Self.https)
        #expect(!both.allowed)
        #expect(both.violations.map(\.disposition) == [.report, .enforce])
    }

    @Test func metaPoliciesDropWhatMetaCannotSayAndOnlyAdd() async {
        let meta = ContentSecurityPolicy(serialized: "connect-src 'self'; report-uri /r; frame-ancestors 'none'; sandbox", disposition: .enforce,
                                         source: .meta)
        #expect(meta.directives.map(\.name) == ["connect-src"])
        let target = await ProxyDocumentTarget()
        await target.mainResponseArrived(NavigationResponse(url: URL(string: "https://example.com/")!, statusCode: 200, mimeType: "text/html",
                                                            headers: [("Content-Security-Policy", "connect-src https:")],
                                                            isMainFrame: true, canShowMIMEType: true))
        #expect(await target.policies(for: 1).count == 1)
        await target.addMetaPolicies(["connect-src 'self'", "connect-src 'self'", ""], document: 1)
        let policies = await target.policies(for: 1)
        #expect(policies.count == 2)
        #expect(!ContentSecurityPolicy.check(URL(string: "https://other.test/")!, directive: .connect, policies: policies,
                                             origin: Self.https).allowed)
        // A document not seen before takes the latest main response's; a call from no document, none.
        #expect(await target.policies(for: 2).count == 1)
        #expect(await target.policies(for: nil).isEmpty)
    }

    @Test func mixedContentIsBlockedFromSecurePagesExceptLoopback() throws {
        let url = URL(string: "http://api.example.com/x")!
        #expect(ProxyMixedContent.blocks(url, origin: Self.https))
        #expect(ProxyMixedContent.blocks(url, origin: Self.package))
        #expect(!ProxyMixedContent.blocks(url, origin: Self.http))
        #expect(!ProxyMixedContent.blocks(url, origin: nil))
        #expect(!ProxyMixedContent.blocks(URL(string: "https://api.example.com/x")!, origin: Self.https))
        for loopback in ["http://localhost:8080/", "http://a.localhost/", "http://127.0.0.1:9/", "http://127.4.5.6/", "http://[::1]:80/"] {
            #expect(!ProxyMixedContent.blocks(URL(string: loopback)!, origin: Self.https), "\(loopback)")
        }
        #expect(ProxyMixedContent.blocks(URL(string: "http://128.0.0.1/")!, origin: Self.https))
        #expect(ProxyMixedContent.blocks(URL(string: "http://localhost.example.com/")!, origin: Self.https))
        let exception = try ConfigURLPattern("http://api.example.com")
        #expect(!ProxyMixedContent.blocks(url, origin: Self.https, exceptions: [exception]))
        #expect(ProxyMixedContent.blocks(URL(string: "http://other.example.com/")!, origin: Self.https, exceptions: [exception]))
        // Never by default.
        #expect(try ProxyPolicy(requests: ["*://*"]).mixedContentExceptions.isEmpty)
    }
}
