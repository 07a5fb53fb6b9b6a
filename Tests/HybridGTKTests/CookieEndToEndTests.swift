import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Issue 4's cookie cases, each against the real engine and the real loopback server.
@Suite("Cookies end to end", .serialized)
@MainActor
struct CookieEndToEndTests {
    /// 1. The first request of a load carries the jar's cookies — HttpOnly included.
    @Test(arguments: EngineKind.allCases)
    func firstRequestCarriesTheJarsCookies(_ kind: EngineKind) async throws {
        let rig = try await CookieRig(kind)
        defer { rig.close() }
        try rig.jar.setCookie(fromHeader: "sid=s1; HttpOnly; Path=/", for: rig.url("/"))
        try rig.jar.setCookie(fromHeader: "theme=dark; Path=/", for: rig.url("/"))
        try rig.jar.setCookie(fromHeader: "other=1; Path=/", for: rig.url("/", host: "localhost"))
        let engine = try rig.engine()
        try await rig.open(rig.url("/cookies/page"), in: engine)
        #expect(try await rig.serverSawCookies(engine).sorted() == ["sid", "theme"])
    }

    /// 2. The document-start script alone (no store sync) makes exactly the document's
    /// non-HttpOnly cookies visible; other hosts', other paths', Secure and HttpOnly never.
    @Test(arguments: EngineKind.allCases)
    func documentStartScriptExposesOnlyMatchingNonHttpOnlyCookies(_ kind: EngineKind) async throws {
        let now = Locked(Date())
        let rig = try await CookieRig(kind, jar: CookieJar(clock: { now.value }), syncing: false)
        defer { rig.close() }
        let document = rig.url("/cookies/page")
        try rig.jar.setCookie(fromHeader: "visible=v1; Path=/", for: document)
        try rig.jar.setCookie(fromHeader: "also=v2; Path=/cookies", for: document)
        try rig.jar.setCookie(fromHeader: "hidden=h1; HttpOnly; Path=/", for: document)
        try rig.jar.setCookie(fromHeader: "admin=a1; Path=/admin", for: document)
        try rig.jar.setCookie(fromHeader: "foreign=f1; Path=/", for: rig.url("/", host: "localhost"))
        rig.jar.setCookie(Cookie(name: "secure", value: "s1", domain: "127.0.0.1", secure: true))
        rig.jar.setCookie(Cookie(name: "stale", value: "x", domain: "127.0.0.1", expires: now.value.addingTimeInterval(0.2)))
        now.mutate { $0 += 1 }  // the jar's clock passes the stale cookie's expiry
        let engine = try rig.engine([rig.sync.documentStartScript(for: document)])
        try await engine.loadAndWait(document)
        #expect(try await rig.documentCookie(engine) == "also=v2; visible=v1")
        // The script ran before the page's scripts: the page saw them in its first script.
        #expect(try await engine.evaluate("document.getElementById('cookies').textContent") == .string("also=v2; visible=v1"))
        // The same script never runs on another host.
        try await engine.loadAndWait(rig.url("/cookies/page", host: "localhost"))
        #expect(try await rig.documentCookie(engine) == "")
    }

    /// 2 (with sync). `document.cookie` shows what the jar shows a script, and no page can read
    /// another host's cookies or an HttpOnly one.
    @Test(arguments: EngineKind.allCases)
    func pagesSeeOnlyTheirOwnNonHttpOnlyCookies(_ kind: EngineKind) async throws {
        let rig = try await CookieRig(kind)
        defer { rig.close() }
        try rig.jar.setCookie(fromHeader: "mine=1; Path=/", for: rig.url("/"))
        try rig.jar.setCookie(fromHeader: "session=secret; HttpOnly; Path=/", for: rig.url("/"))
        try rig.jar.setCookie(fromHeader: "theirs=2; Path=/", for: rig.url("/", host: "localhost"))
        let document = rig.url("/cookies/page")
        let engine = try rig.engine([rig.sync.documentStartScript(for: document)])
        try await rig.open(document, in: engine)
        #expect(try await rig.documentCookie(engine) == rig.jar.documentCookieString(for: document))
        #expect(try await rig.documentCookie(engine) == "mine=1")
        // A hostile page on 127.0.0.1 tries to read and to plant cookies for localhost.
        let attempt = try await engine.evaluate("""
            document.cookie = 'planted=1; domain=localhost; path=/';
            document.cookie = 'session=stolen; path=/';
            document.cookie
            """)
        #expect(attempt.stringValue?.contains("theirs") == false)
        #expect(attempt.stringValue?.contains("secret") == false)
        await rig.sync.pullFromEngine()
        #expect(rig.jar.cookieHeader(for: rig.url("/", host: "localhost")) == "theirs=2")
        #expect(rig.jar.cookies(for: rig.url("/")).first { $0.name == "session" }?.value == "secret")
    }

    /// 3. A 302 to another host gets that host's cookies, and an iframe and an image on the
    /// other host get theirs, all through the engine's store.
    @Test(arguments: EngineKind.allCases)
    func crossHostRedirectsAndSubresourcesGetTheirHostsCookies(_ kind: EngineKind) async throws {
        let rig = try await CookieRig(kind)
        defer { rig.close() }
        try rig.jar.setCookie(fromHeader: "ip=1; Path=/", for: rig.url("/"))
        try rig.jar.setCookie(fromHeader: "lh=1; Path=/; HttpOnly", for: rig.url("/", host: "localhost"))
        let engine = try rig.engine()
        try await rig.open(rig.url("/redirect/cross?to=/cookies/page"), in: engine)
        #expect(engine.url?.host == "localhost")
        #expect(try await rig.serverSawCookies(engine) == ["lh"])
        try await rig.open(rig.url("/redirect/cross?to=/cookies/page", host: "localhost"), in: engine)
        #expect(try await rig.serverSawCookies(engine) == ["ip"])
        let other = rig.url("/record", host: "localhost")
        rig.page("/mixed", """
            <iframe src="\(other.absoluteString)/frame"></iframe><img src="\(other.absoluteString)/image.png">
            """)
        try await rig.open(rig.url("/mixed"), in: engine)
        try await engine.waitUntil("document.querySelector('iframe').contentWindow && performance.getEntriesByType('resource').length >= 2")
        // (`lh` has no SameSite: an engine that treats it as Lax keeps it from cross-site subresources.)
        let crossSite = kind.capabilities.contains(.crossSiteCookiesWithoutSameSite) ? "lh=1" : ""
        #expect(rig.recorded["/record/frame"] == crossSite)
        #expect(rig.recorded["/record/image.png"] == crossSite)
    }

    /// 4. Cookies the server sets and cookies `document.cookie` sets reach the jar; deletions
    /// and expiry propagate both ways.
    @Test(arguments: EngineKind.allCases)
    func engineCookiesFlowBackAndDeletionsPropagate(_ kind: EngineKind) async throws {
        let now = Locked(Date())
        let rig = try await CookieRig(kind, jar: CookieJar(clock: { now.value }))
        defer { rig.close() }
        let engine = try rig.engine()
        try await rig.open(rig.url("/cookies/standard"), in: engine)
        await rig.sync.pullFromEngine()
        let names = Set(rig.jar.allCookies.map(\.name))
        #expect(names.isSuperset(of: ["plain", "http_only", "scoped", "persistent"]))
        #expect(!names.contains("expired"))
        // A Secure cookie from http:// is refused, unless the engine counts loopback as a secure origin.
        let loopbackIsSecure = kind.capabilities.contains(.secureCookiesOnLoopbackHTTP)
        #expect(names.contains("secure") == loopbackIsSecure, "Secure cookie from http://127.0.0.1 stored: \(names.contains("secure"))")
        #expect(rig.jar.allCookies.first { $0.name == "http_only" }?.httpOnly == true)
        #expect(rig.jar.allCookies.first { $0.name == "scoped" }?.path == "/cookies/scoped")
        #expect(rig.jar.allCookies.first { $0.name == "persistent" }?.expires != nil)
        // What the page itself sees: never HttpOnly, never Secure on http, never another path's.
        try await rig.open(rig.url("/cookies/page"), in: engine)
        let seen = try await rig.documentCookie(engine)
        #expect(seen.contains("plain=p1") && seen.contains("persistent=m1"))
        for hidden in ["http_only", "scoped", "expired"] + (loopbackIsSecure ? [] : ["secure"]) { #expect(!seen.contains(hidden), "\(hidden)") }
        #expect(try await rig.serverSawCookies(engine).contains("http_only"))

        _ = try await engine.evaluate("document.cookie = 'fromjs=j1; path=/'")
        // The web process hands a script's cookie to the network process asynchronously.
        try await eventually("the script's cookie in the jar") {
            await rig.sync.pullFromEngine()
            return rig.jar.cookies(for: rig.url("/")).first { $0.name == "fromjs" }?.value == "j1"
        }

        // Server deletes → jar deletes.
        try await rig.open(rig.url("/cookies/delete?name=plain&path=/"), in: engine)
        await rig.sync.pullFromEngine()
        #expect(!rig.jar.allCookies.contains { $0.name == "plain" })

        // App deletes → the engine stops sending it, and the page stops seeing it.
        if let fromJS = rig.jar.allCookies.first(where: { $0.name == "fromjs" }) { rig.jar.deleteCookie(fromJS) }
        await rig.sync.flush()
        try await rig.open(rig.url("/cookies/page"), in: engine)
        #expect(!(try await rig.serverSawCookies(engine)).contains("fromjs"))
        #expect(!(try await rig.documentCookie(engine)).contains("fromjs"))

        // Expiry in the jar → gone from the engine.
        try rig.jar.setCookie(fromHeader: "brief=b; Max-Age=1; Path=/", for: rig.url("/"))
        await rig.sync.flush()
        now.mutate { $0 += 2 }  // the jar's clock passes the Max-Age
        rig.jar.removeExpired()
        await rig.sync.flush()
        try await rig.open(rig.url("/cookies/page"), in: engine)
        #expect(!(try await rig.serverSawCookies(engine)).contains("brief"))
    }

    /// 5. Containers of one provider share its session.
    @Test(arguments: EngineKind.allCases)
    func containersShareOneSession(_ kind: EngineKind) async throws {
        let rig = try await CookieRig(kind)
        defer { rig.close() }
        let first = try rig.engine()
        try await rig.open(rig.url("/cookies/set?shared=1"), in: first)
        let second = try rig.engine()
        try await rig.open(rig.url("/cookies/page"), in: second)
        #expect(try await rig.serverSawCookies(second) == ["shared"])
        #expect(try await rig.documentCookie(second) == "shared=1")
    }

    /// 5. With a persistent session directory and a persistent jar, cookies survive a restart.
    @Test(arguments: EngineKind.allCases)
    func persistentCookiesSurviveARestart(_ kind: EngineKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cookie-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let jarFile = directory.appendingPathComponent("jar.json")
        let session = EngineSessionKind.persistent(directory: directory.appendingPathComponent("session"))
        var port = 0
        do {
            let rig = try await CookieRig(kind, session: session, jar: try CookieJar(persistingTo: jarFile))
            port = rig.server.port
            let engine = try rig.engine()
            try await rig.open(rig.url("/cookies/set?header=kept%3D1%3B%20Max-Age%3D3600%3B%20Path%3D%2F&session=1"), in: engine)
            await rig.sync.pullFromEngine()
            await rig.shutdown()
        }
        // A new process's worth of objects: a new jar from the file, a new provider on the directory.
        let jar = try CookieJar(persistingTo: jarFile)
        #expect(jar.allCookies.map(\.name) == ["kept"])
        // The new provider on the same directory, with no sync from the jar: what the page and
        // the server see now comes from the engine's own persisted store.
        let rig = try await CookieRig(kind, session: session, jar: jar, syncing: false)
        let stored = try await rig.provider.cookieStore.allCookies()
        #expect(stored.contains { $0.name == "kept" && $0.domain == "127.0.0.1" })
        let engine = try rig.engine()
        try await engine.loadAndWait(rig.url("/cookies/page"))
        #expect(try await rig.serverSawCookies(engine) == ["kept"])
        #expect(try await rig.documentCookie(engine) == "kept=1")
        await rig.shutdown()
        #expect(port > 0)
    }
}
