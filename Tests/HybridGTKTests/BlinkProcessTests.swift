import Foundation
import HybridBlink
import HybridCore
import HybridServer
import HybridTestSupport
import Testing

@Suite("Blink process, snapshot, cookies and lifetime", .serialized)
@MainActor
struct BlinkProcessTests {
    @Test func killingTheRendererIsReportedAndAReloadRecovers() async throws {
        let pages = BlinkPages(["alive.html": "<p>alive</p>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        try await engine.loadAndWait(BlinkHarness.url("alive.html"))
        let recorder = EventRecorder(engine)
        engine.terminateContentProcess()
        try await recorder.next("termination") { $0 == .contentProcessTerminated(.terminatedByClient) }
        #expect(!engine.isAlive)
        await #expect(throws: HybridError.engine(.contentProcessTerminated(.terminatedByClient))) {
            _ = try await engine.evaluate("1")
        }
        recorder.reset()
        engine.reload()
        try await recorder.loadFinished()
        #expect(engine.isAlive)
        #expect(try await engine.evaluate("document.body.textContent") == "alive")
    }

    @Test func pendingCallsFailExactlyOnceWhenTheRendererDies() async throws {
        let engine = try BlinkHarness.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>x</p>")
        let calls = (0..<20).map { _ in Task { @MainActor in try await engine.callAsync("return await new Promise(() => {})") } }
        try await Task.sleep(nanoseconds: 100_000_000)
        engine.terminateContentProcess()
        var failures = 0
        for call in calls {
            do { _ = try await call.value } catch HybridError.engine(.contentProcessTerminated) { failures += 1 }
        }
        #expect(failures == 20)
    }

    @Test func closeFailsPendingCallsAndSilencesEvents() async throws {
        let engine = try BlinkHarness.makeEngine()
        try await engine.loadHTMLAndWait("<p>x</p>")
        let closed = Locked(false), eventsAfterClose = Locked(0)
        let token = engine.observe { _ in if closed.value { eventsAfterClose.mutate { $0 += 1 } } }
        let pending = Task { @MainActor in try await engine.callAsync("return await new Promise(() => {})") }
        try await Task.sleep(nanoseconds: 50_000_000)
        engine.close()
        closed.set(true)
        await #expect(throws: HybridError.engine(.closed)) { try await pending.value }
        await #expect(throws: HybridError.engine(.closed)) { try await engine.evaluate("1") }
        engine.close()
        engine.load(URL(string: "about:blank")!)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(eventsAfterClose.value == 0)
        #expect(engine.url == nil)
        token.cancel()
    }

    @Test func snapshotIsAPNGOfTheRenderedPage() async throws {
        let engine = try BlinkHarness.makeEngine(EngineConfiguration(viewportSize: ViewportSize(width: 320, height: 240)))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<body style='margin:0;background:rgb(255,0,0)'><div style='height:100px;background:rgb(0,0,255)'></div></body>")
        let png = try await engine.snapshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let image = try PNGInfo(png)
        #expect(image.width == 320 && image.height == 240)
    }

    @Test func aBrowserCrashEndsEveryViewAndTheNextLoadStartsANewBrowser() async throws {
        let provider = try BlinkEngineProvider()
        let pages = BlinkPages(["p.html": "<p>back</p>"])
        let engine = try provider.makeBlinkEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        try await engine.loadAndWait(BlinkHarness.url("p.html"))
        let recorder = EventRecorder(engine)
        provider.killBrowserForTesting()
        try await recorder.next("termination") { $0 == .contentProcessTerminated(.crashed) }
        #expect(!provider.isBrowserRunning)
        try await engine.loadAndWait(BlinkHarness.url("p.html"))
        #expect(provider.isBrowserRunning)
        #expect(try await engine.evaluate("document.body.textContent") == "back")
        await provider.shutdown()
        #expect(!provider.isBrowserRunning)
    }

    @Test func aWindowedBrowserRunsWhenADisplayExists() async throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil else {
            BlinkHarness.skip("aWindowedBrowserRunsWhenADisplayExists", "no DISPLAY")
            return
        }
        let provider = try BlinkEngineProvider(headless: false)
        #expect(!provider.headless)
        let engine = try provider.makeBlinkEngine(BlinkHarness.pages(BlinkPages(["w.html": "<title>W</title><p>windowed</p>"])))
        try await engine.loadAndWait(BlinkHarness.url("w.html"))
        #expect(try await engine.evaluate("document.body.textContent") == "windowed")
        engine.close()
        await provider.shutdown()
    }

    @Test func setVisibleChangesThePagesVisibility() async throws {
        let engine = try BlinkHarness.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>v</p>")
        #expect(try await engine.evaluate("document.visibilityState") == "visible")
        engine.setVisible(false)
        try await engine.waitUntil("document.visibilityState === 'hidden'", timeout: 5)
        engine.setVisible(true)
        try await engine.waitUntil("document.visibilityState === 'visible'", timeout: 5)
    }

    @Test func viewsOfOneProviderShareCookies() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/set") { _ in ServerResponse(headers: ["Set-Cookie": "shared=1; Path=/", "Content-Type": "text/html"], body: Data("<p>set</p>".utf8)) }
        server.route("/read") { _ in .html("<p>read</p>") }
        let first = try BlinkHarness.makeEngine()
        defer { first.close() }
        let second = try BlinkHarness.makeEngine()
        defer { second.close() }
        try await first.loadAndWait(server.url("/set"))
        try await second.loadAndWait(server.url("/read"))
        #expect(try await second.evaluate("document.cookie").stringValue?.contains("shared=1") == true)
    }

    @Test func cookieStoreSetGetForURLAndDelete() async throws {
        let provider = try BlinkEngineProvider()
        let store = provider.cookieStore
        let secure = Cookie(name: "s", value: "1", domain: "shop.example.com", path: "/cart", secure: true, httpOnly: true)
        let domainWide = Cookie(name: "d", value: "2", domain: "example.com", hostOnly: false)
        let other = Cookie(name: "o", value: "3", domain: "other.test")
        for cookie in [secure, domainWide, other] { try await store.setCookie(cookie) }
        let forCart = try await store.cookies(for: URL(string: "https://shop.example.com/cart/items")!)
        #expect(Set(forCart.map(\.name)) == ["s", "d"])
        #expect(forCart.first { $0.name == "s" }?.httpOnly == true)
        #expect(forCart.first { $0.name == "d" }?.hostOnly == false)
        let insecure = try await store.cookies(for: URL(string: "http://shop.example.com/cart")!)
        #expect(insecure.map(\.name) == ["d"])
        #expect(try await store.allCookies().count == 3)
        try await store.deleteCookie(other)
        #expect(Set(try await store.allCookies().map(\.name)) == ["s", "d"])
        await provider.shutdown()
    }

    @Test func cookieChangesAreObservedFromTheNetworkAndFromScripts() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/c") { _ in ServerResponse(headers: ["Set-Cookie": "fromServer=yes; Path=/; HttpOnly", "Content-Type": "text/html"], body: Data("<p>c</p>".utf8)) }
        let provider = try BlinkEngineProvider()
        var changes = 0
        let token = provider.cookieStore.observeChanges { changes += 1 }
        let engine = try provider.makeBlinkEngine(EngineConfiguration())
        try await engine.loadAndWait(server.url("/c"))
        _ = try await engine.evaluate("document.cookie = 'fromScript=1; path=/'")
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(changes >= 1)  // polled: both changes may land in one poll
        let cookies = try await provider.cookieStore.cookies(for: server.url("/"))
        #expect(cookies.first { $0.name == "fromServer" }?.httpOnly == true)
        #expect(cookies.contains { $0.name == "fromScript" && $0.value == "1" })
        token.cancel()
        let before = changes
        _ = try await engine.evaluate("document.cookie = 'later=1'")
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(changes == before)
        engine.close()
        await provider.shutdown()
    }

    @Test func persistentSessionKeepsCookiesAcrossBrowsers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-blink-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let expiry = Date().addingTimeInterval(3600)
        do {
            let provider = try BlinkEngineProvider(session: .persistent(directory: directory))
            try await provider.cookieStore.setCookie(Cookie(name: "kept", value: "v1", domain: "persist.example.com", expires: expiry))
            await provider.shutdown()
        }
        let reopened = try BlinkEngineProvider(session: .persistent(directory: directory))
        let cookies = try await reopened.cookieStore.allCookies()
        #expect(cookies.contains { $0.name == "kept" && $0.value == "v1" && $0.domain == "persist.example.com" })
        await reopened.shutdown()
        let ephemeral = try BlinkEngineProvider()
        #expect(try await ephemeral.cookieStore.allCookies().isEmpty)
        await ephemeral.shutdown()
    }
}
