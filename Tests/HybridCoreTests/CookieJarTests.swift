import Foundation
import HybridCore
import Testing

/// A clock tests can move.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

func url(_ string: String) -> URL { URL(string: string)! }

@Suite("CookieJar (RFC 6265 §5.3, §5.4)")
struct CookieJarTests {
    let clock = TestClock()
    var jar: CookieJar { CookieJar(clock: { [clock] in clock.now }) }

    @Test func hostOnlyCookieGoesToThatHostOnly() throws {
        let jar = self.jar
        let stored = try jar.setCookie(fromHeader: "a=1", for: url("http://example.com/"))
        #expect(stored.hostOnly)
        #expect(stored.domain == "example.com")
        #expect(jar.cookieHeader(for: url("http://example.com/x")) == "a=1")
        #expect(jar.cookieHeader(for: url("http://sub.example.com/")) == nil)
        #expect(jar.cookieHeader(for: url("http://example.org/")) == nil)
    }

    @Test func domainCookieGoesToSubdomains() throws {
        let jar = self.jar
        let stored = try jar.setCookie(fromHeader: "a=1; Domain=.Example.com", for: url("http://www.example.com/"))
        #expect(!stored.hostOnly)
        #expect(stored.domain == "example.com")
        #expect(jar.cookieHeader(for: url("http://example.com/")) == "a=1")
        #expect(jar.cookieHeader(for: url("http://deep.sub.example.com/")) == "a=1")
        #expect(jar.cookieHeader(for: url("http://badexample.com/")) == nil)
    }

    @Test func domainAttributeEqualToAPublicSuffixHostIsHostOnly() throws {
        let jar = self.jar
        let stored = try jar.setCookie(fromHeader: "a=1; Domain=localhost", for: url("http://localhost:8080/"))
        #expect(stored.hostOnly)
        #expect(throws: HybridError.self) { try jar.setCookie(fromHeader: "a=1; Domain=com", for: url("http://example.com/")) }
    }

    @Test func defaultPathAndPathMatching() throws {
        let jar = self.jar
        #expect(try jar.setCookie(fromHeader: "a=1", for: url("http://h.test/docs/page.html")).path == "/docs")
        #expect(try jar.setCookie(fromHeader: "b=1", for: url("http://h.test/page.html")).path == "/")
        #expect(try jar.setCookie(fromHeader: "c=1", for: url("http://h.test")).path == "/")
        #expect(try jar.setCookie(fromHeader: "d=1; Path=relative", for: url("http://h.test/x/y")).path == "/x")
        #expect(jar.cookieHeader(for: url("http://h.test/docs")) == "a=1; b=1; c=1")
        #expect(jar.cookieHeader(for: url("http://h.test/docs/deeper")) == "a=1; b=1; c=1")
        #expect(jar.cookieHeader(for: url("http://h.test/docsx")) == "b=1; c=1")
    }

    @Test func orderIsLongerPathThenEarlierCreation() throws {
        let jar = self.jar
        try jar.setCookie(fromHeader: "root1=1; Path=/", for: url("http://h.test/"))
        clock.advance(1)
        try jar.setCookie(fromHeader: "deep=1; Path=/a/b", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "mid=1; Path=/a", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "root2=1; Path=/", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/a/b/c")) == "deep=1; mid=1; root1=1; root2=1")
        // Replacing keeps the creation time, so the order stays.
        clock.advance(1)
        try jar.setCookie(fromHeader: "root1=2; Path=/", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "root1=2; root2=1")
    }

    @Test func replaceIsByNameDomainAndPath() throws {
        let jar = self.jar
        try jar.setCookie(fromHeader: "a=1; Path=/", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "a=2; Path=/p", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "a=3; Path=/", for: url("http://h.test/"))
        #expect(jar.allCookies.map(\.value) == ["3", "2"])
        let created = try #require(jar.creationDate(of: jar.allCookies[0]))
        #expect(created == clock.now)
    }

    @Test func maxAgeZeroDeletesAndExpiryEvicts() throws {
        let jar = self.jar
        try jar.setCookie(fromHeader: "a=1; Max-Age=10", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "b=1", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "a=1; b=1")
        try jar.setCookie(fromHeader: "b=; Max-Age=0", for: url("http://h.test/"))
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "a=1")
        clock.advance(11)
        #expect(jar.cookieHeader(for: url("http://h.test/")) == nil)
        #expect(jar.allCookies.isEmpty)
        try jar.setCookie(fromHeader: "c=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", for: url("http://h.test/"))
        #expect(jar.allCookies.isEmpty)
    }

    @Test func secureCookiesOnlyOnSecureSchemes() throws {
        let jar = CookieJar(policy: .init(secureSchemes: ["https", "hybrid-app"]), clock: { [clock] in clock.now })
        try jar.setCookie(fromHeader: "s=1; Secure", for: url("https://h.test/"))
        try jar.setCookie(fromHeader: "p=1", for: url("https://h.test/"))
        #expect(jar.cookieHeader(for: url("https://h.test/")) == "s=1; p=1")
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "p=1")
        #expect(jar.documentCookieString(for: url("hybrid-app://h.test/index.html")) == "s=1; p=1")
        #expect(jar.documentCookieString(for: url("http://h.test/")) == "p=1")
    }

    @Test func documentCookieNeverShowsHttpOnly() throws {
        let jar = self.jar
        try jar.setCookie(fromHeader: "session=secret; HttpOnly", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "theme=dark", for: url("http://h.test/"))
        #expect(jar.documentCookieString(for: url("http://h.test/")) == "theme=dark")
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "session=secret; theme=dark")
        #expect(jar.cookies(for: url("http://h.test/"), via: .script).allSatisfy { !$0.httpOnly })
    }

    @Test func scriptsCannotSetOrReplaceHttpOnly() throws {
        let jar = self.jar
        try jar.setCookie(fromHeader: "session=secret; HttpOnly", for: url("http://h.test/"))
        #expect(throws: HybridError.self) { try jar.setDocumentCookie("session=stolen", for: url("http://h.test/")) }
        #expect(throws: HybridError.self) { try jar.setDocumentCookie("x=1; HttpOnly", for: url("http://h.test/")) }
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "session=secret")
        try jar.setDocumentCookie("theme=light", for: url("http://h.test/"))
        #expect(jar.documentCookieString(for: url("http://h.test/")) == "theme=light")
    }

    @Test func observersSeeStoresAndRemovals() throws {
        let jar = self.jar
        let seen = LockedList<CookieJar.Change>()
        let token = jar.observe { seen.append($0) }
        try jar.setCookie(fromHeader: "a=1; Max-Age=5", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "a=1; Max-Age=5", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "b=1", for: url("http://h.test/"))
        jar.deleteCookie(Cookie(name: "b", value: "", domain: "h.test"))
        clock.advance(10)
        _ = jar.cookieHeader(for: url("http://h.test/"))
        let names = seen.items.map { change -> String in
            switch change {
            case .stored(let cookie): "+\(cookie.name)"
            case .removed(let cookie): "-\(cookie.name)"
            }
        }
        #expect(names == ["+a", "+b", "-b", "-a"])
        token.cancel()
        try jar.setCookie(fromHeader: "c=1", for: url("http://h.test/"))
        #expect(seen.items.count == 4)
    }

    @Test func directStoreAndDelete() {
        let jar = self.jar
        jar.setCookie(Cookie(name: "x", value: "1", domain: ".h.test", hostOnly: false))
        #expect(jar.cookieHeader(for: url("http://a.h.test/")) == "x=1")
        jar.setCookie(Cookie(name: "x", value: "1", domain: "h.test", expires: .distantPast, hostOnly: false))
        #expect(jar.allCookies.isEmpty)
    }

    @Test func httpCookieConversionKeepsTheFields() throws {
        let cookie = Cookie(name: "a", value: "1", domain: "h.test", path: "/p", expires: Date(timeIntervalSince1970: 2_000_000_000),
                            secure: true, httpOnly: true, hostOnly: false)
        let foundation = try #require(cookie.httpCookie)
        #expect(foundation.domain == ".h.test")
        #expect(foundation.isSecure)
        let back = Cookie(foundation)
        #expect(back.name == "a" && back.value == "1" && back.domain == "h.test" && back.path == "/p")
        #expect(!back.hostOnly && back.secure)
        #expect(back.expires == cookie.expires)
    }
}

/// A thread-safe list for observer callbacks.
final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []
    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var items: [Element] { lock.withLock { storage } }
}
