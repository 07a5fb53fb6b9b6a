import Foundation
import HybridBlink
import HybridCore
import HybridTestSupport
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

    @Test func aWindowedBrowserRunsWhenADisplayExists() async throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil else {
            print("◇ skipped aWindowedBrowserRunsWhenADisplayExists on blink: no DISPLAY")
            try Test.cancel("no DISPLAY: a windowed browser needs one")
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
}
