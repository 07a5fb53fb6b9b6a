import Foundation
import HybridCore
import HybridTesting
import Testing

@MainActor
@Suite("CookieSync")
struct CookieSyncTests {
    @Test func startPushesTheJarAndAdoptsEngineOnlyCookies() async throws {
        let jar = CookieJar()
        try jar.setCookie(fromHeader: "a=1; HttpOnly", for: url("http://h.test/"))
        let store = MemoryEngineCookieStore()
        store.receiveFromNetwork(Cookie(name: "fromEngine", value: "e", domain: "h.test"))
        store.receiveFromNetwork(Cookie(name: "a", value: "stale", domain: "h.test"))
        let sync = CookieSync(jar: jar, store: store)
        await sync.start()
        defer { sync.stop() }
        #expect(store.stored.values.map(\.value).sorted() == ["1", "e"])
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "a=1; fromEngine=e")
    }

    @Test func jarChangesReachTheEngineInOrder() async throws {
        let jar = CookieJar()
        let store = MemoryEngineCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        await sync.start()
        defer { sync.stop() }
        try jar.setCookie(fromHeader: "a=1", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "a=2", for: url("http://h.test/"))
        try jar.setCookie(fromHeader: "b=1; Domain=h.test; Path=/x", for: url("http://w.h.test/"))
        await sync.flush()
        #expect(store.stored.count == 2)
        #expect(store.stored.values.first { $0.name == "a" }?.value == "2")
        try jar.setCookie(fromHeader: "a=; Max-Age=0", for: url("http://h.test/"))
        await sync.flush()
        #expect(store.stored.values.map(\.name) == ["b"])
    }

    @Test func engineChangesComeBackToTheJarWithoutEchoes() async throws {
        let jar = CookieJar()
        let store = MemoryEngineCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        await sync.start()
        defer { sync.stop() }
        let serverCookie = Cookie(name: "sid", value: "s1", domain: "h.test", httpOnly: true)
        store.receiveFromNetwork(serverCookie)
        await sync.flush()
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "sid=s1")
        #expect(jar.documentCookieString(for: url("http://h.test/")) == "")
        let writesBefore = store.writes
        await sync.flush()
        #expect(store.writes == writesBefore, "the jar's echo must not be written back")
        store.dropFromNetwork(serverCookie)
        await sync.flush()
        #expect(jar.allCookies.isEmpty)
    }

    @Test func aNewerJarStateSurvivesAnEngineDeletion() async throws {
        let jar = CookieJar()
        let store = MemoryEngineCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        await sync.start()
        defer { sync.stop() }
        store.receiveFromNetwork(Cookie(name: "t", value: "old", domain: "h.test"))
        await sync.flush()
        jar.setCookie(Cookie(name: "t", value: "new", domain: "h.test"))
        store.dropFromNetwork(Cookie(name: "t", value: "old", domain: "h.test"))
        await sync.flush()
        await sync.pullFromEngine()
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "t=new")
        #expect(store.stored.values.first?.value == "new")
    }

    @Test func prepareNavigationLeavesTheEngineReadyForTheFirstRequest() async throws {
        let jar = CookieJar()
        let store = MemoryEngineCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        await sync.start()
        defer { sync.stop() }
        try jar.setCookie(fromHeader: "first=1; HttpOnly", for: url("http://h.test/"))
        await sync.prepareNavigation(to: url("http://h.test/page"))
        #expect(try await store.cookies(for: url("http://h.test/page")).map(\.name) == ["first"])
    }
}

@Suite("DocumentCookieScript")
struct DocumentCookieScriptTests {
    @Test func carriesOnlyTheDocumentsNonHttpOnlyCookies() throws {
        let jar = CookieJar()
        try jar.setCookie(fromHeader: "visible=1; Path=/", for: url("http://a.test/"))
        try jar.setCookie(fromHeader: "hidden=1; HttpOnly", for: url("http://a.test/"))
        try jar.setCookie(fromHeader: "other=1", for: url("http://b.test/"))
        try jar.setCookie(fromHeader: "scoped=1; Path=/admin", for: url("http://a.test/"))
        try jar.setCookie(fromHeader: "secure=1; Secure", for: url("https://a.test/"))
        let script = DocumentCookieScript(for: url("http://a.test/index.html"), jar: jar)
        #expect(script.cookies.map(\.name) == ["visible"])
        #expect(script.source.contains("visible=1; path=/"))
        for secret in ["hidden", "other", "scoped", "secure"] { #expect(!script.source.contains("\(secret)=1"), "\(secret)") }
        let user = script.userScript
        #expect(user.injectionTime == .documentStart)
        #expect(user.allowList == ["http://a.test/*"])
        #expect(DocumentCookieScript(for: url("https://a.test/"), jar: jar).cookies.map(\.name) == ["visible", "secure"])
    }

    @Test func assignmentsRecreateTheSameCookie() throws {
        let cookie = Cookie(name: "a", value: "1", domain: "a.test", path: "/p", expires: Date(timeIntervalSince1970: 2_000_000_000),
                            secure: true, hostOnly: false, sameSite: .lax)
        let assignment = DocumentCookieScript.assignment(for: cookie)
        #expect(assignment == "a=1; path=/p; domain=a.test; expires=Wed, 18 May 2033 03:33:20 GMT; secure; samesite=Lax")
        let parsed = try #require(SetCookieParser.parse(assignment))
        #expect(parsed.domain == "a.test" && parsed.path == "/p" && parsed.secure && parsed.sameSite == .lax)
        #expect(parsed.expires == cookie.expires)
    }

    @Test func hostileValuesCannotBreakOutOfTheScript() throws {
        let jar = CookieJar()
        jar.setCookie(Cookie(name: "x", value: "</script><script>alert(1)</script>\u{2028}", domain: "a.test"))
        jar.setCookie(Cookie(name: "y", value: "\"]);alert(1);//", domain: "a.test"))
        let source = DocumentCookieScript(for: url("http://a.test/"), jar: jar).source
        #expect(!source.contains("</script>"))
        #expect(!source.contains("\u{2028}"))
        #expect(source.contains("\\\"]);alert(1);//"))
    }
}
