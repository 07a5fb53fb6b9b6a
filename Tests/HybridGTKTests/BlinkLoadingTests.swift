import Foundation
import HybridBlink
import HybridCore
import HybridServer
import HybridTestSupport
import Testing

@Suite("Blink loading and navigation", .serialized)
@MainActor
struct BlinkLoadingTests {
    @Test func loadsAnInterceptedHTTPSURLAndReportsURLAndTitle() async throws {
        let pages = BlinkPages(["index.html": "<title>Index</title><p>hi</p>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(BlinkHarness.url("index.html"))
        #expect(engine.url == BlinkHarness.url("index.html"))
        try await recorder.next("title") { $0 == .titleChanged("Index") }
        #expect(engine.title == "Index")
        #expect(recorder.events.contains { if case .loadStarted = $0 { true } else { false } })
        #expect(recorder.events.contains { if case .loadCommitted = $0 { true } else { false } })
        #expect(!engine.isLoading)
    }

    @Test func customSchemeNavigationFailsAtOnceWithTheReason() async throws {
        // Chromium hands a navigation to an unknown scheme to the OS; nothing reaches Fetch.
        BlinkHarness.skip("loadsACustomSchemeURL", "Chromium cannot navigate to custom schemes; serve the same handler at an https origin (interceptsHTTP)")
        #expect(BlinkWebEngine.blinkCapabilities.interceptsHTTP)
        let engine = try BlinkHarness.makeEngine(EngineConfiguration(schemeHandlers: [TestPages.scheme: TestPages(["i.html": "<p>i</p>"])]))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(TestPages.url("i.html"))
        let failed = try await recorder.next("failure", timeout: 5) { if case .loadFailed = $0 { true } else { false } }
        #expect(failedMessage(failed).contains("cannot navigate to hybrid-test:"))
        #expect(!engine.isLoading)
    }

    @Test func requestMethodHeadersAndBodyReachTheServer() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let seen = Locked<[String: String]>([:])
        server.route("/h") { request in
            seen.set(["token": request.headers["X-Hybrid-Token"] ?? "", "method": request.method,
                      "body": String(decoding: request.body, as: UTF8.self)])
            return .html("<p>h</p>")
        }
        let engine = try BlinkHarness.makeEngine()
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(EngineRequest(url: server.url("/h"), headers: [("X-Hybrid-Token", "abc 123")]))
        try await recorder.loadFinished()
        #expect(seen.value == ["token": "abc 123", "method": "GET", "body": ""])
        recorder.reset()
        engine.load(EngineRequest(url: server.url("/h"), method: "POST", headers: [("Content-Type", "text/plain")], body: Data("a=1".utf8)))
        try await recorder.loadFinished()
        #expect(seen.value == ["token": "", "method": "POST", "body": "a=1"])
    }

    @Test func htmlWithBaseURLResolvesRelativeResourcesAndOrigin() async throws {
        let pages = BlinkPages(["lib/app.js": "window.loadedFromBase = location.origin;"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<script src='lib/app.js'></script>", baseURL: BlinkHarness.url(""))
        #expect(try await engine.evaluate("window.loadedFromBase") == .string(BlinkHarness.origin))
        #expect(try await engine.evaluate("location.href") == .string(BlinkHarness.origin + "/"))
        #expect(pages.requests.map(\.url.path) == ["/lib/app.js"])
    }

    @Test func simulatedResponseLooksLikeANormalLoad() async throws {
        let pages = BlinkPages(["style.css": "p { color: rgb(1, 2, 3) }"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        let url = BlinkHarness.url("page/sim.html")
        engine.loadSimulatedResponse(Data("<link rel=stylesheet href='../style.css'><p id=p>sim</p>".utf8), mimeType: "text/html", encoding: "utf-8", for: url)
        try await recorder.loadFinished()
        #expect(engine.url == url)
        #expect(try await engine.evaluate("location.href") == .string(url.absoluteString))
        try await engine.waitUntil("getComputedStyle(document.getElementById('p')).color == 'rgb(1, 2, 3)'")
        #expect(pages.requests.map(\.url.path) == ["/style.css"])
    }

    @Test func reloadLoadsTheDocumentAgain() async throws {
        let pages = BlinkPages(["r.html": "<p>r</p>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        try await engine.loadAndWait(BlinkHarness.url("r.html"))
        let recorder = EventRecorder(engine)
        engine.reload()
        try await recorder.loadFinished()
        #expect(pages.requests.count == 2)
    }

    @Test func stopCancelsALoadThatNeverAnswers() async throws {
        let never = ClosureSchemeHandler { _ in
            try await Task.sleep(nanoseconds: 30_000_000_000)
            return SchemeResponse(contentType: "text/html", data: Data())
        }
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(never))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(BlinkHarness.url("slow.html"))
        try await recorder.next("load start") { if case .loadStarted = $0 { true } else { false } }
        #expect(engine.isLoading)
        engine.stopLoading()
        let failed = try await recorder.next("cancelled") { if case .loadFailed = $0 { true } else { false } }
        #expect(failed == .loadFailed(BlinkHarness.url("slow.html"), message: failedMessage(failed), cancelled: true))
        #expect(!engine.isLoading)
    }

    @Test func backForwardListNavigationAndClearing() async throws {
        let pages = BlinkPages(["a.html": "<title>A</title>", "b.html": "<title>B</title>", "c.html": "<title>C</title>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        for name in ["a", "b", "c"] { try await engine.loadAndWait(BlinkHarness.url("\(name).html")) }
        #expect(engine.canGoBack)
        #expect(!engine.canGoForward)
        var list = engine.backForwardList
        #expect(list.back.map(\.url.lastPathComponent) == ["a.html", "b.html"])
        #expect(list.current?.url.lastPathComponent == "c.html")
        let recorder = EventRecorder(engine)
        engine.goBack()
        try await recorder.loadFinished()
        #expect(engine.url?.lastPathComponent == "b.html")
        #expect(engine.canGoForward)
        list = engine.backForwardList
        #expect(list.forward.map(\.url.lastPathComponent) == ["c.html"])
        #expect(list.back.first?.title == "A")
        recorder.reset()
        engine.goForward()
        try await recorder.loadFinished()
        #expect(engine.url?.lastPathComponent == "c.html")
        // Blink can really clear the list (clearsHistory), which WebKit cannot.
        engine.clearHistory()
        try await recorder.next("list cleared") { $0 == .backForwardChanged(canGoBack: false, canGoForward: false) }
        #expect(engine.backForwardList.back.isEmpty)
        #expect(engine.backForwardList.current?.url.lastPathComponent == "c.html")
    }

    @Test func progressRisesToOneAndLoadingToggles() async throws {
        let pages = BlinkPages(["p.html": "<img src='missing.png'><p>p</p>"])
        let engine = try BlinkHarness.makeEngine(BlinkHarness.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(BlinkHarness.url("p.html"))
        let progress = recorder.events.compactMap { if case .progressChanged(let p) = $0 { p } else { nil } }
        #expect(progress.last == 1.0)
        #expect(progress.allSatisfy { $0 >= 0 && $0 <= 1 })
        #expect(recorder.events.contains(.loadingChanged(true)))
        #expect(recorder.events.contains(.loadingChanged(false)))
        #expect(engine.estimatedProgress == 1.0)
    }
}
