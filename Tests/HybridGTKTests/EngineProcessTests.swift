import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Engine process, snapshot and lifetime", .serialized)
@MainActor
struct EngineProcessTests {
    @Test(arguments: EngineKind.allCases)
    func killingTheContentProcessIsReportedWithItsReason(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["alive.html": "<p>alive</p>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("alive.html"))
        let recorder = EventRecorder(engine)
        engine.terminateContentProcess()
        try await recorder.next("termination") { $0 == .contentProcessTerminated(.terminatedByClient) }
        #expect(!engine.isAlive)
        await #expect(throws: HybridError.engine(.contentProcessTerminated(.terminatedByClient))) {
            _ = try await engine.evaluate("1")
        }
        // A reload brings the page back in a new process.
        recorder.reset()
        engine.reload()
        try await recorder.loadFinished()
        #expect(engine.isAlive)
        #expect(try await engine.evaluate("document.body.textContent") == "alive")
    }

    @Test(arguments: EngineKind.allCases)
    func pendingCallsFailExactlyOnceWhenTheProcessDies(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>x</p>")
        let calls = (0..<20).map { _ in
            Task { @MainActor in try await engine.callAsync("window.started = (window.started || 0) + 1; return await new Promise(() => {})") }
        }
        try await engine.waitUntil("window.started === 20")  // every call is running in the page
        engine.terminateContentProcess()
        var failures = 0
        for call in calls {
            do { _ = try await call.value } catch HybridError.engine(.contentProcessTerminated) { failures += 1 }
        }
        #expect(failures == 20)
    }

    @Test(arguments: EngineKind.allCases)
    func closeFailsPendingCallsAndSilencesEvents(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        try await engine.loadHTMLAndWait("<p>x</p>")
        let eventsAfterClose = Locked(0)
        let closed = Locked(false)
        let token = engine.observe { _ in if closed.value { eventsAfterClose.mutate { $0 += 1 } } }
        let pending = Task { @MainActor in try await engine.callAsync("window.started = true; return await new Promise(() => {})") }
        try await engine.waitUntil("window.started === true")
        engine.close()
        closed.set(true)
        await #expect(throws: HybridError.engine(.closed)) { try await pending.value }
        await #expect(throws: HybridError.engine(.closed)) { try await engine.evaluate("1") }
        engine.close()  // idempotent
        engine.load(URL(string: "about:blank")!)
        // The barrier: the same load in a live view of the same provider has finished, so the
        // closed one, had it started that load, would have reported its events by now too.
        let witness = try kind.makeEngine()
        defer { witness.close() }
        try await witness.loadAndWait(URL(string: "about:blank")!)
        #expect(eventsAfterClose.value == 0)
        #expect(engine.url == nil)
        token.cancel()
    }

    @Test(arguments: EngineKind.allCases)
    func snapshotIsAPNGOfTheRenderedPage(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine(EngineConfiguration(viewportSize: ViewportSize(width: 320, height: 240)))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<body style='margin:0;background:rgb(255,0,0)'><div style='height:100px;background:rgb(0,0,255)'></div></body>")
        // A blue band 100 CSS px high over a red page. The first frames may still be blank, so
        // take snapshots until one shows the page (a blank or wrong frame never does).
        func showsThePage(_ png: Data) -> Bool {
            guard let image = try? TestPNG.decode(png) else { return false }
            return image.pixel(image.width / 2, image.height / 10, is: (0, 0, 255)) && image.pixel(image.width / 2, image.height * 3 / 4, is: (255, 0, 0))
        }
        // (WebKit may also fail a snapshot before its first frame: "error creating the snapshot".)
        var png = Data()
        try await eventually("a snapshot of the rendered page") {
            if let shot = try? await engine.snapshot() { png = shot }
            return showsThePage(png)
        }
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let image = try PNGInfo(png)
        #expect(image.width >= 300 && image.height >= 200)
        #expect(png.count > 200)
        let decoded = try TestPNG.decode(png)
        #expect(decoded.width == image.width && decoded.height == image.height)
        #expect(decoded.pixel(5, 5, is: (0, 0, 255)) && decoded.pixel(decoded.width - 5, decoded.height - 5, is: (255, 0, 0)))
    }

    @Test(arguments: EngineKind.allCases)
    func viewsOfOneProviderShareCookies(_ kind: EngineKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/set") { _ in ServerResponse(headers: ["Set-Cookie": "shared=1; Path=/", "Content-Type": "text/html"], body: Data("<p>set</p>".utf8)) }
        server.route("/read") { _ in .html("<p>read</p>") }
        let first = try kind.makeEngine()
        defer { first.close() }
        let second = try kind.makeEngine()
        defer { second.close() }
        try await first.loadAndWait(server.url("/set"))
        try await second.loadAndWait(server.url("/read"))
        #expect(try await second.evaluate("document.cookie").stringValue?.contains("shared=1") == true)
    }

    @Test(arguments: EngineKind.allCases)
    func persistentSessionKeepsCookiesAcrossProviders(_ kind: EngineKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let expiry = Date().addingTimeInterval(3600)
        do {
            let provider = try kind.isolatedProvider(session: .persistent(directory: directory))
            try await provider.cookieStore.setCookie(Cookie(name: "kept", value: "v1", domain: "persist.example.com", expires: expiry))
            await kind.release(provider)
        }
        let reopened = try kind.isolatedProvider(session: .persistent(directory: directory))
        let cookies = try await reopened.cookieStore.allCookies()
        #expect(cookies.contains { $0.name == "kept" && $0.value == "v1" && $0.domain == "persist.example.com" })
        await kind.release(reopened)
        let ephemeral = try kind.isolatedProvider()
        #expect(try await ephemeral.cookieStore.allCookies().isEmpty)
        await kind.release(ephemeral)
    }

    @Test(arguments: EngineKind.allCases)
    func setVisibleChangesThePagesVisibility(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>v</p>")
        #expect(try await engine.evaluate("document.visibilityState") == "visible")
        engine.setVisible(false)
        try await engine.waitUntil("document.visibilityState === 'hidden'", timeout: 5)
        engine.setVisible(true)
        try await engine.waitUntil("document.visibilityState === 'visible'", timeout: 5)
    }

    /// Every view is visible on its own: a new view does not hide the others (as a new tab
    /// would), and hiding one leaves the others visible.
    @Test(arguments: EngineKind.allCases)
    func eachViewsVisibilityIsItsOwn(_ kind: EngineKind) async throws {
        let first = try kind.makeEngine()
        let second = try kind.makeEngine()
        defer { first.close(); second.close() }
        try await first.loadHTMLAndWait("<p>first</p>")
        try await second.loadHTMLAndWait("<p>second</p>")
        #expect(try await first.evaluate("document.visibilityState") == "visible")
        #expect(try await second.evaluate("document.visibilityState") == "visible")
        first.setVisible(false)
        try await first.waitUntil("document.visibilityState === 'hidden'", timeout: 5)
        #expect(try await second.evaluate("document.visibilityState") == "visible")
        first.setVisible(true)
        try await first.waitUntil("document.visibilityState === 'visible'", timeout: 5)
        #expect(try await second.evaluate("document.visibilityState") == "visible")
    }
}

/// The width and height from a PNG's IHDR chunk.
struct PNGInfo {
    let width: Int, height: Int
    init(_ data: Data) throws {
        struct NotPNG: Error {}
        guard data.count > 24 else { throw NotPNG() }
        func int(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        width = int(16)
        height = int(20)
    }
}
