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

@Suite("ProxyPolicy")
struct ProxyPolicyTests {
    @Test func matchesRequestsAndPages() throws {
        let policy = try ProxyPolicy(requests: ["https://api.example.com/v1/*", "*://*.cdn.example.com"],
                                     pages: ["app://*", "https://m.example.com"])
        #expect(policy.proxies(URL(string: "https://api.example.com/v1/items?x=1")!))
        #expect(!policy.proxies(URL(string: "https://api.example.com/v2/items")!))
        #expect(policy.proxies(URL(string: "http://img.cdn.example.com/a.png")!))
        #expect(!policy.proxies(URL(string: "https://api.example.com.evil.com/v1/")!))
        // Only http(s) leaves through the proxy, whatever the patterns say.
        #expect(!(try ProxyPolicy(requests: ["*"])).proxies(URL(string: "file:///etc/passwd")!))
        #expect(policy.applies(toPage: URL(string: "app://pkg/index.html")!))
        #expect(!policy.applies(toPage: URL(string: "https://other.example.com/")!))
        #expect(!ProxyPolicy.disabled.applies(toPage: URL(string: "app://pkg/")!))
    }

    @Test func remoteConfigCanSwitchItOff() throws {
        let policy = try ProxyPolicy(requests: ["*"])
        #expect(!policy.applying(FeatureSet(requestProxy: false)).proxies(URL(string: "https://a.b/")!))
        #expect(policy.applying(FeatureSet(requestProxy: true)).proxies(URL(string: "https://a.b/")!))
        #expect(ProxyModule.userScript(policy: policy.applying(FeatureSet(requestProxy: false))) == nil)
    }

    /// The page script routes by what the policy tells it: only what needs the proxy by default,
    /// and cookies count as a need until the engine holds the jar's cookies.
    @Test func routingFactsReachThePageScript() throws {
        var policy = try ProxyPolicy(requests: ["*"], trustedHosts: ["https://api.example.com"])
        policy.headerRules = [.init(try ConfigURLPattern("https://api.example.com/v1/*"), headers: ["Authorization": "Bearer t"])]
        var script = policy.scriptConfiguration
        #expect(script["routing"] == "whenNeeded")
        #expect(script["cookies"] == true)
        #expect(script["headerRules"] == ["https://api.example.com/v1/*"])
        #expect(script["trusted"] == ["https://api.example.com"])
        #expect(!script.jsonText.contains("Bearer"), "a rule's header values never reach the page")
        policy.engineHasJarCookies = true
        #expect(policy.scriptConfiguration["cookies"] == false)
        policy.routing = .always
        script = policy.scriptConfiguration
        #expect(script["routing"] == "always")
    }

    @Test func headerRulesApplyToMatchingURLsOnly() throws {
        var policy = try ProxyPolicy(requests: ["*"])
        policy.headerRules = [.init(try ConfigURLPattern("https://api.example.com"), headers: ["Authorization": "Bearer t"])]
        #expect(policy.extraHeaders(for: URL(string: "https://api.example.com/x")!) == ["Authorization": "Bearer t"])
        #expect(policy.extraHeaders(for: URL(string: "https://evil.com/x")!).isEmpty)
    }

    @Test func invalidPatternsAreRefused() {
        #expect(throws: HybridError.self) { try ProxyPolicy(requests: ["https://a.com/?x"]) }
    }

    /// The page's view of a response's raw header lines (the Fetch standard's "sort and combine"):
    /// names lower-cased and sorted, the values of every spelling of one name joined in the order
    /// they arrived, an empty value kept, `Set-Cookie` hidden but given to the jar one by one.
    @Test func responseHeadersCombineEverySpellingInArrivalOrder() {
        var lines = ResponseHeaderLines()
        ["HTTP/1.1 200 OK", "foo-TEST: 1", "Zeta: z", "HEYA:", "Set-Cookie: a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT",
         "FOO-test: 2, 3", "set-cookie: b=2", "X-Dup: a", "x-dup:  b  ", ""].forEach { lines.add($0 + "\r\n") }
        let head = HTTPHead(status: 200, url: URL(string: "https://a.example/")!, fields: lines.fields)
        #expect(ProxyHeaders.pairs(head) == [["foo-test", "1, 2, 3"], ["heya", ""], ["x-dup", "a, b"], ["zeta", "z"]])
        #expect(ProxyHeaders.setCookieValues(head) == ["a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT", "b=2"])
        #expect(head.value("FOO-TEST") == "1")
        #expect(head.values("heya") == [""])
    }

    /// Foundation on Linux joins several `Set-Cookie` fields with `, `; an `Expires` date has a comma too.
    /// The page script's `acceptLanguage` is sent only as a language list: anything that could
    /// smuggle a header line or another field is dropped (the page may still set its own header).
    @Test func onlyALanguageListIsSentAsTheEnginesAcceptLanguage() {
        for list in ["en-US,en;q=0.9", "C", "de-CH, fr;q=0.5, *;q=0.1", "zh-Hant-TW"] {
            #expect(ProxyHeaders.isLanguageList(list), "\(list)")
        }
        for hostile in ["", "en\r\nX-Evil: 1", "en\nCookie: a=1", "en:x", "\u{e9}n", String(repeating: "en,", count: 200)] {
            #expect(!ProxyHeaders.isLanguageList(hostile), "\(hostile.debugDescription)")
        }
    }

    @Test func splitsJoinedSetCookieHeaders() {
        let joined = "a=1; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT, b=2; HttpOnly, c=x,y; Path=/"
        #expect(ProxyHeaders.splitSetCookie(joined) == ["a=1; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT", "b=2; HttpOnly", "c=x,y; Path=/"])
        #expect(ProxyHeaders.splitSetCookie("solo=1") == ["solo=1"])
    }

    /// Text replies travel as text only when they are UTF-8 of a textual type.
    @Test func textRepliesTravelAsText() {
        let json = ProxyResponse(status: 200, statusText: "OK", url: "https://a.b/", redirected: false,
                                 headers: [["content-type", "application/json; charset=utf-8"]], body: Data(#"{"é":1}"#.utf8))
        #expect(json.text == #"{"é":1}"#)
        #expect(json.body.isEmpty)
        #expect(json.size == 8)
        let latin1 = ProxyResponse(status: 200, statusText: "OK", url: "https://a.b/", redirected: false,
                                   headers: [["content-type", "text/plain; charset=iso-8859-1"]], body: Data([0xE9]))
        #expect(latin1.text == nil)
        #expect(latin1.bodyData == Data([0xE9]))
        let broken = ProxyResponse(status: 200, statusText: "OK", url: "https://a.b/", redirected: false,
                                   headers: [["content-type", "text/html"]], body: Data([0xFF, 0xFE, 0x00]))
        #expect(broken.text == nil)
        #expect(broken.bodyData == Data([0xFF, 0xFE, 0x00]))
        #expect(!ProxyHeaders.isUTF8Text("application/octet-stream"))
        #expect(ProxyHeaders.isUTF8Text("application/vnd.api+json"))
        #expect(!ProxyHeaders.isUTF8Text(nil))
    }

    @Test func wireTypesRoundTrip() throws {
        let request = ProxyRequest(url: "https://a.b/", method: "POST", headers: [["Content-Type", "text/plain"]], body: "aGk=")
        let decoded = try JSONDecoder().decode(ProxyRequest.self, from: JSONEncoder().encode(request))
        #expect(decoded == request)
        #expect(decoded.header("content-type") == "text/plain")
    }
}

// Compile-time checks only, not a test: the proxy's and navigation policy's public values cross
// threads. If one stops being Sendable, this file stops compiling.
private func requireProxySendable<T: Sendable>(_: T.Type) {}

private func proxyTypesAreSendable() {
    requireProxySendable(ProxyPolicy.self)
    requireProxySendable(ProxyRequest.self)
    requireProxySendable(ProxyResponse.self)
    requireProxySendable(ProxyProgress.self)
    requireProxySendable(ProxyRecord.self)
    requireProxySendable(RequestProxy.self)
    requireProxySendable(ProxyModule.self)
    requireProxySendable(ProxyDocumentTarget.self)
    requireProxySendable(NavigationPolicy.self)
    requireProxySendable(NavigationDecision.self)
    requireProxySendable(ExternalNavigation.self)
    requireProxySendable(BlockedNavigation.self)
}
