import Foundation
import HybridCore
import Testing

@Suite("CookieJar against hostile pages and servers")
struct CookieJarHostileTests {
    let jar = CookieJar()

    @Test func hostACannotReadHostBsCookies() throws {
        try jar.setCookie(fromHeader: "bank=secret; Path=/", for: url("http://bank.test/"))
        try jar.setCookie(fromHeader: "wide=1; Domain=bank.test", for: url("http://bank.test/"))
        for other in ["http://evil.test/", "http://bank.test.evil.test/", "http://evilbank.test/", "http://test/",
                      "http://127.0.0.1/", "http://localhost/"] {
            #expect(jar.cookieHeader(for: url(other)) == nil, "\(other)")
            #expect(jar.documentCookieString(for: url(other)).isEmpty, "\(other)")
        }
    }

    @Test func domainAttributeSpoofingIsRejected() {
        for (header, origin) in [("a=1; Domain=other.com", "http://evil.com/"),
                                 ("a=1; Domain=bank.test", "http://evilbank.test/"),
                                 ("a=1; Domain=sub.evil.com", "http://evil.com/"),
                                 ("a=1; Domain=.com", "http://evil.com/"),
                                 ("a=1; Domain=test", "http://evil.test/")] {
            #expect(throws: HybridError.self, "\(header) from \(origin)") { try jar.setCookie(fromHeader: header, for: url(origin)) }
        }
        #expect(jar.allCookies.isEmpty)
    }

    /// Cookie tossing across one public suffix: `Domain=co.uk` from one shop would reach every
    /// other `.co.uk` site, `Domain=github.io` every other user's pages. The Public Suffix List
    /// refuses both, as the engines do; a registrable domain under them is still a cookie domain.
    @Test func aCookieForAPublicSuffixOfManyLabelsIsRefused() throws {
        #expect(PublicSuffixList.isAvailable, "libpsl and its list are installed with the package's dependencies")
        for (header, origin) in [("a=1; Domain=co.uk", "http://evil.co.uk/"), ("a=1; Domain=.co.uk", "http://evil.co.uk/"),
                                 ("a=1; Domain=github.io", "https://evil.github.io/"),
                                 ("a=1; Domain=s3.amazonaws.com", "https://evil.s3.amazonaws.com/")] {
            #expect(throws: HybridError.self, "\(header) from \(origin)") { try jar.setCookie(fromHeader: header, for: url(origin)) }
        }
        for victim in ["http://bank.co.uk/", "https://victim.github.io/", "https://victim.s3.amazonaws.com/"] {
            #expect(jar.cookieHeader(for: url(victim)) == nil, "\(victim)")
        }
        try jar.setCookie(fromHeader: "shop=1; Domain=example.co.uk", for: url("http://www.example.co.uk/"))
        #expect(jar.cookieHeader(for: url("http://basket.example.co.uk/")) == "shop=1")
        #expect(jar.cookieHeader(for: url("http://other.co.uk/")) == nil)
        // A host that is itself a public suffix keeps its own cookie, host-only (§5.3 step 5).
        try jar.setCookie(fromHeader: "own=1; Domain=github.io", for: url("https://github.io/"))
        #expect(jar.cookieHeader(for: url("https://github.io/")) == "own=1")
        #expect(jar.cookieHeader(for: url("https://pages.github.io/")) == nil)
    }

    @Test func pathPrefixTrap() throws {
        try jar.setCookie(fromHeader: "f=1; Path=/foo", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/foo")) == "f=1")
        #expect(jar.cookieHeader(for: url("http://h.test/foo/")) == "f=1")
        #expect(jar.cookieHeader(for: url("http://h.test/foo/bar")) == "f=1")
        #expect(jar.cookieHeader(for: url("http://h.test/foobar")) == nil)
        #expect(jar.cookieHeader(for: url("http://h.test/fo")) == nil)
        #expect(jar.cookieHeader(for: url("http://h.test/")) == nil)
        try jar.setCookie(fromHeader: "g=1; Path=/bar/", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/bar/x")) == "g=1")
        #expect(jar.cookieHeader(for: url("http://h.test/bar")) == nil)
    }

    @Test func ipHostsAreNeverDomainMatchedBySuffix() throws {
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "a=1; Domain=0.0.1", for: url("http://127.0.0.1/")) }
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "a=1; Domain=0.1", for: url("http://10.0.0.1/")) }
        let same = try jar.setCookie(fromHeader: "b=1; Domain=127.0.0.1", for: url("http://127.0.0.1:8080/"))
        #expect(same.hostOnly)
        #expect(jar.cookieHeader(for: url("http://127.0.0.1/")) == "b=1")
        #expect(jar.cookieHeader(for: url("http://1.127.0.0.1/")) == nil)
        jar.setCookie(Cookie(name: "c", value: "1", domain: "0.0.1", hostOnly: false))
        #expect(jar.cookieHeader(for: url("http://127.0.0.1/")) == "b=1")
        #expect(!CookieMatch.domainMatches("127.0.0.1", domain: "0.0.1"))
        #expect(CookieMatch.domainMatches("a.b.example", domain: "b.example"))
        #expect(!CookieMatch.domainMatches("ab.example", domain: "b.example"))
        let v6 = try jar.setCookie(fromHeader: "d=1", for: url("http://[::1]:8080/"))
        #expect(v6.domain == "::1")
        #expect(jar.cookieHeader(for: url("http://[::1]/")) == "d=1")
    }

    @Test func insecureOriginsCannotSetOrShadowSecureCookies() throws {
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "s=1; Secure", for: url("http://h.test/")) }
        try jar.setCookie(fromHeader: "s=1; Secure", for: url("https://h.test/"))
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "s=evil", for: url("http://h.test/")) }
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "s=evil; Path=/deeper", for: url("http://h.test/")) }
        #expect(jar.cookieHeader(for: url("https://h.test/deeper")) == "s=1")
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "__Secure-a=1", for: url("https://h.test/")) }
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "__Host-a=1; Secure; Path=/; Domain=h.test", for: url("https://h.test/")) }
        try jar.setCookie(fromHeader: "__Host-a=1; Secure; Path=/", for: url("https://h.test/"))
    }

    @Test func expiredCookiesAreNeverSent() throws {
        try jar.setCookie(fromHeader: "old=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "gone=1; Max-Age=-5", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/")) == nil)
        #expect(jar.documentCookieString(for: url("http://h.test/")) == "")
    }

    @Test func headerInjectionThroughValuesIsRefused() {
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "a=1\r\nX-Evil: 1", for: url("http://h.test/")) }
        #expect(throws: HybridError.self) { try jar.setDocumentCookie("a=\u{0}", for: url("http://h.test/")) }
        #expect(jar.allCookies.isEmpty)
    }

    @Test func urlsWithoutHostsGetNothing() throws {
        try jar.setCookie(fromHeader: "a=1; Path=/", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("file:///etc/passwd")) == nil)
        #expect(jar.cookieHeader(for: url("about:blank")) == nil)
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "a=1", for: url("about:blank")) }
    }
}

@Suite("CookieJar persistence")
struct CookieJarPersistenceTests {
    @Test func persistentCookiesSurviveARestartSessionCookiesDoNot() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cookies-\(UUID().uuidString)/jar.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let first = try CookieJar(persistingTo: file)
        try first.setCookie(fromHeader: "keep=1; Max-Age=3600; HttpOnly; Path=/app", for: url("http://h.test/"))
        try first.setCookie(fromHeader: "early=1; Max-Age=3600", for: url("http://h.test/"))
        try first.setCookie(fromHeader: "session=1", for: url("http://h.test/"))
        try first.setCookie(fromHeader: "gone=1; Max-Age=3600", for: url("http://h.test/"))
        try first.setCookie(fromHeader: "gone=1; Max-Age=0", for: url("http://h.test/"))
        let second = try CookieJar(persistingTo: file)
        #expect(second.cookieHeader(for: url("http://h.test/app")) == "keep=1; early=1")
        let kept = try #require(second.allCookies.first)
        #expect(kept.httpOnly && kept.path == "/app")
        let created = try #require(first.creationDate(of: kept))
        #expect(abs(try #require(second.creationDate(of: kept)).timeIntervalSince(created)) < 0.001)
    }

    @Test func corruptFileIsReported() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cookies-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not json".utf8).write(to: file)
        #expect(throws: HybridError.self) { try CookieJar(persistingTo: file) }
    }

    @Test func concurrentWritersLeaveAConsistentFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cookies-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let jar = try CookieJar(persistingTo: file)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { _ = try? jar.setCookie(fromHeader: "c\(index)=\(index); Max-Age=600", for: url("http://h.test/")) }
            }
        }
        #expect(try CookieJar(persistingTo: file).allCookies.count == 50)
    }
}
