import Foundation
import HybridBlink
import HybridCore
import HybridFixtures
import HybridServer
import Testing

/// What only Blink has: a browser process behind every view (crash, restart, a window), a
/// back-forward list that really clears, and custom schemes that fail at once with the reason.
/// Everything the engines share is in the parameterised Engine* suites.
@Suite("Blink browser process and Blink-only verbs", .serialized)
@MainActor
struct BlinkBrowserTests {
    static let kind = EngineKind.blink

    @Test func aBrowserCrashEndsEveryViewAndTheNextLoadStartsANewBrowser() async throws {
        let provider = try BlinkEngineProvider()
        let pages = RecordingPages(["p.html": "<p>back</p>"])
        let engine = try provider.makeBlinkEngine(Self.kind.pages(pages))
        defer { engine.close() }
        try await engine.loadAndWait(Self.kind.url("p.html"))
        let recorder = EventRecorder(engine)
        provider.killBrowserForTesting()
        try await recorder.next("termination") { $0 == .contentProcessTerminated(.crashed) }
        #expect(!provider.isBrowserRunning)
        try await engine.loadAndWait(Self.kind.url("p.html"))
        #expect(provider.isBrowserRunning)
        #expect(try await engine.evaluate("document.body.textContent") == "back")
        await provider.shutdown()
        #expect(!provider.isBrowserRunning)
    }

    /// A reload after the browser died shows the last page again in the new browser's target
    /// (a plain Page.reload there would reload its about:blank).
    @Test func aReloadAfterABrowserCrashLoadsTheLastPage() async throws {
        let provider = try BlinkEngineProvider()
        let engine = try provider.makeBlinkEngine(Self.kind.pages(RecordingPages(["r.html": "<title>R</title>"])))
        defer { engine.close() }
        let page = Self.kind.url("r.html")
        try await engine.loadAndWait(page)
        let watcher = EventRecorder(engine)
        provider.killBrowserForTesting()
        try await watcher.next("termination") { $0 == .contentProcessTerminated(.crashed) }
        engine.reload()
        try await watcher.loadFinished(page)
        #expect(try await engine.evaluate("document.title") == "R")
        #expect(engine.url == page)
        await provider.shutdown()
    }

    @Test func aWindowedBrowserRunsWhenADisplayExists() async throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil else {
            let message = "skipped aWindowedBrowserRunsWhenADisplayExists on blink: no DISPLAY: a windowed browser needs one"
            print("◇ \(message)")
            SkipLog.record(message)
            try Test.cancel(Comment(rawValue: message))
        }
        let provider = try BlinkEngineProvider(headless: false)
        #expect(!provider.headless)
        let engine = try provider.makeBlinkEngine(Self.kind.pages(RecordingPages(["w.html": "<title>W</title><p>windowed</p>"])))
        try await engine.loadAndWait(Self.kind.url("w.html"))
        #expect(try await engine.evaluate("document.body.textContent") == "windowed")
        engine.close()
        await provider.shutdown()
    }

    @Test func customSchemeNavigationFailsAtOnceWithTheReason() async throws {
        #expect(!BlinkWebEngine.blinkCapabilities.contains(.customSchemeNavigation))
        #expect(BlinkWebEngine.blinkCapabilities.contains(.interceptsHTTP))
        let engine = try BlinkSuiteBrowser.provider().makeBlinkEngine(EngineConfiguration(schemeHandlers: [TestPages.scheme: TestPages(["i.html": "<p>i</p>"])]))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(TestPages.url("i.html"))
        let failed = try await recorder.next("failure", timeout: 5) { if case .loadFailed = $0 { true } else { false } }
        #expect(failedMessage(failed).contains("cannot navigate to hybrid-test:"))
        #expect(!engine.isLoading)
    }

    @Test func theBackForwardListClearsForReal() async throws {
        #expect(BlinkWebEngine.blinkCapabilities.contains(.clearsHistory))
        let pages = RecordingPages(["a.html": "<title>A</title>", "b.html": "<title>B</title>", "c.html": "<title>C</title>"])
        let engine = try BlinkSuiteBrowser.provider().makeBlinkEngine(Self.kind.pages(pages))
        defer { engine.close() }
        for name in ["a", "b", "c"] { try await engine.loadAndWait(Self.kind.url("\(name).html")) }
        let recorder = EventRecorder(engine)
        engine.goBack()
        try await recorder.loadFinished()
        #expect(engine.canGoForward)
        engine.clearHistory()
        try await recorder.next("list cleared") { $0 == .backForwardChanged(canGoBack: false, canGoForward: false) }
        #expect(engine.backForwardList.back.isEmpty)
        #expect(engine.backForwardList.forward.isEmpty)
        #expect(engine.backForwardList.current?.url.lastPathComponent == "b.html")
    }

    /// However a browser ends (shut down, dropped without a shutdown, crashed), nothing of it
    /// stays: no process, no `org.chromium.Chromium.*` singleton directory, no temporary profile.
    /// The browser gets a temporary directory of its own so the count is this test's alone.
    @Test(arguments: ["shut down", "released", "crashed"])
    func aBrowserLeavesNothingBehind(_ ending: String) async throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("hk-blink-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        func leftovers() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []).filter { $0.hasPrefix("org.chromium.Chromium.") }.count
        }
        #expect(leftovers() == 0)
        var provider: BlinkEngineProvider? = try BlinkEngineProvider()
        provider?.temporaryDirectory = tmp
        var engine: BlinkWebEngine? = try provider?.makeBlinkEngine(Self.kind.pages(RecordingPages(["p.html": "<p>p</p>"])))
        try await engine?.loadAndWait(Self.kind.url("p.html"))
        let pid = try #require(provider?.browserProcessID)
        let profile = try #require(provider?.profileDirectory)
        #expect(leftovers() == 1, "a running browser has its singleton directory (else this test could not fail)")
        switch ending {
        case "shut down":
            engine?.close()
            await provider?.shutdown()
        case "released":
            engine?.close()
            engine = nil
            provider = nil
        default:
            provider?.killBrowserForTesting()
        }
        try await eventually("the browser to be gone and its files removed after it \(ending)", timeout: 20) {
            kill(pid, 0) != 0 && leftovers() == 0 && !FileManager.default.fileExists(atPath: profile.path)
        }
        engine?.close()
        await provider?.shutdown()
    }

    /// Chromium's own preloading is off in the profile it runs with, a kept one included, so a
    /// page's `<script type="speculationrules">` makes Chromium request nothing (the container's
    /// prerender is the only one); the rest of the profile's settings stay.
    @Test func chromiumActsOnNoSpeculationRulesInAKeptProfile() async throws {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("hk-blink-prefs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        try FileManager.default.createDirectory(at: profile.appendingPathComponent("Default"), withIntermediateDirectories: true)
        try Data(#"{"net": {"network_prediction_options": 0}, "hybridkit_kept": 7}"#.utf8)
            .write(to: profile.appendingPathComponent("Default/Preferences"))
        let server = try LoopbackServer()
        defer { server.stop() }
        let hits = Locked(0)
        server.route("/next") { _ in hits.mutate { $0 += 1 }; return .html("<title>next</title>") }
        server.route("/list") { _ in
            .html(#"<title>list</title><script type="speculationrules">{"prerender": [{"source": "list", "urls": ["/next"]}], "prefetch": [{"source": "list", "urls": ["/next?p"]}]}</script>"#)
        }
        let provider = try BlinkEngineProvider(session: .persistent(directory: profile))
        let engine = try provider.makeBlinkEngine(Self.kind.pages(RecordingPages([:])))
        try await engine.loadAndWait(server.url("/list"))
        try await Task.sleep(nanoseconds: 1_000_000_000)
        engine.close()
        await provider.shutdown()
        #expect(hits.value == 0)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: profile.appendingPathComponent("Default/Preferences"))) as? [String: Any]
        #expect((written?["net"] as? [String: Any])?["network_prediction_options"] as? Int == 2)
        #expect(written?["hybridkit_kept"] as? Int == 7)
    }

    /// A warm view's next page runs in the renderer its warm-up started: the warm-up document is
    /// about:blank, which Chromium keeps in a renderer no site owns yet. (A `data:` URL document has
    /// a renderer of its own, and the next page of a site started another: 15–20 ms of a pooled open.)
    @Test func aWarmViewsNextPageRunsInTheRendererItsWarmUpStarted() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/next") { _ in .html("<title>next</title><p>next</p>") }
        let provider = try BlinkEngineProvider()
        let view = try HybridWebView(provider: provider)
        view.warmUp()
        await view.waitUntilWarm()
        #expect(view.engine.url?.absoluteString == "about:blank")
        let browser = try #require(provider.browserProcessID)
        let warm = Self.renderers(of: browser)
        #expect(!warm.isEmpty, "the warm-up document has a renderer (else this test could not fail)")
        try await view.loadAndWait(server.url("/next"))
        #expect(try await view.engine.evaluate("document.title") == "next")
        let started = Self.renderers(of: browser).subtracting(warm)
        #expect(started.isEmpty, "renderers started for the page: \(started)")
        view.close()
        await provider.shutdown()
    }

    /// An app that exits without shutting its provider down (`hybrid run` never does) leaves no
    /// browser and no files: its exit hook quits Chromium and removes what Chromium left.
    @Test func anAppExitingWithoutAShutdownLeavesNothingBehind() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("hk-blink-exit-\(UUID().uuidString)")
        let site = tmp.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        try Data("<script>hybrid.ready.then(() => hybrid.call('test', 'done', { ok: true }))</script>".utf8)
            .write(to: site.appendingPathComponent("index.html"))
        // The app's and Chromium's temporary files (profile, singleton socket) all land here.
        let run = try RunCommandTests.tool.run(["run", site.path, "--engine", "blink", "--until", "done", "--timeout", "30"],
                                               environment: ["TMPDIR": tmp.path], errors: .discarded)
        #expect(run.status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: tmp.path).filter { $0 != "site" }
        #expect(left.isEmpty, "left behind in TMPDIR: \(left)")
        #expect(ProcessTable.ids(mentioning: tmp.path).isEmpty, "still running: \(ProcessTable.ids(mentioning: tmp.path))")
    }

    /// The renderer processes running under the browser `browser` (any depth: Chromium starts them
    /// through its zygote).
    static func renderers(of browser: Int32) -> Set<Int32> {
        Set(ProcessTable.ids(mentioning: "--type=renderer").filter { ProcessTable.descends($0, from: browser) })
    }
}
