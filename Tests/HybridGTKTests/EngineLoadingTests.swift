import Foundation
import HybridCore
import HybridGTK
import HybridServer
import HybridTestSupport
import Testing

/// A scheme handler that records every request it sees.
@MainActor
final class RecordingPages: URLSchemeHandler {
    let pages: TestPages
    var requests: [SchemeRequest] = []
    init(_ files: [String: String]) { pages = TestPages(files) }
    func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        requests.append(request)
        return try await pages.respond(to: request)
    }
}

@MainActor
func pagesConfiguration(_ handler: any URLSchemeHandler, scripts: [UserScript] = []) -> EngineConfiguration {
    EngineConfiguration(userScripts: scripts, schemeHandlers: [TestPages.scheme: handler])
}

@Suite("Engine loading and navigation", .serialized)
@MainActor
struct EngineLoadingTests {
    @Test func loadsACustomSchemeURLAndReportsURLAndTitle() async throws {
        let pages = RecordingPages(["index.html": "<title>Index</title><p>hi</p>"])
        let engine = try EngineHarness.makeEngine(pagesConfiguration(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(TestPages.url("index.html"))
        #expect(engine.url == TestPages.url("index.html"))
        // The title reaches the UI process asynchronously; it may trail load-finished.
        try await recorder.next("title") { $0 == .titleChanged("Index") }
        #expect(engine.title == "Index")
        #expect(recorder.events.contains { if case .loadStarted = $0 { true } else { false } })
        #expect(recorder.events.contains { if case .loadCommitted = $0 { true } else { false } })
        #expect(!engine.isLoading)
    }

    @Test func requestHeadersReachTheServer() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let seen = Locked<[String: String]>([:])
        server.route("/h") { request in
            seen.set(["token": request.headers["X-Hybrid-Token"] ?? "", "method": request.method])
            return .html("<p>h</p>")
        }
        let engine = try EngineHarness.makeEngine()
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(EngineRequest(url: server.url("/h"), headers: [("X-Hybrid-Token", "abc 123")]))
        try await recorder.loadFinished()
        #expect(seen.value == ["token": "abc 123", "method": "GET"])
    }

    @Test func htmlWithBaseURLResolvesRelativeResourcesAndOrigin() async throws {
        let pages = RecordingPages(["lib/app.js": "window.loadedFromBase = location.origin;"])
        let engine = try EngineHarness.makeEngine(pagesConfiguration(pages))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<script src='lib/app.js'></script>", baseURL: TestPages.url(""))
        #expect(try await engine.evaluate("window.loadedFromBase") == .string("hybrid-test://app"))
        #expect(try await engine.evaluate("location.href") == .string("hybrid-test://app/"))
    }

    @Test func simulatedResponseLooksLikeANormalLoad() async throws {
        let pages = RecordingPages(["style.css": "p { color: rgb(1, 2, 3) }"])
        let engine = try EngineHarness.makeEngine(pagesConfiguration(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        let url = TestPages.url("page/sim.html")
        engine.loadSimulatedResponse(Data("<link rel=stylesheet href='../style.css'><p id=p>sim</p>".utf8), mimeType: "text/html", encoding: "utf-8", for: url)
        try await recorder.loadFinished()
        #expect(engine.url == url)
        #expect(try await engine.evaluate("location.href") == .string(url.absoluteString))
        try await engine.waitUntil("getComputedStyle(document.getElementById('p')).color == 'rgb(1, 2, 3)'")
        #expect(pages.requests.map(\.url.path) == ["/style.css"])  // the page itself came from memory
    }

    @Test func reloadLoadsTheDocumentAgain() async throws {
        let pages = RecordingPages(["r.html": "<p>r</p>"])
        let engine = try EngineHarness.makeEngine(pagesConfiguration(pages))
        defer { engine.close() }
        try await engine.loadAndWait(TestPages.url("r.html"))
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
        let engine = try EngineHarness.makeEngine(pagesConfiguration(never))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(TestPages.url("slow.html"))
        try await recorder.next("load start") { if case .loadStarted = $0 { true } else { false } }
        #expect(engine.isLoading)
        engine.stopLoading()
        let failed = try await recorder.next("cancelled") { if case .loadFailed = $0 { true } else { false } }
        #expect(failed == .loadFailed(TestPages.url("slow.html"), message: failedMessage(failed), cancelled: true))
        #expect(!engine.isLoading)
    }

    @Test func backForwardListAndNavigation() async throws {
        let pages = RecordingPages(["a.html": "<title>A</title>", "b.html": "<title>B</title>", "c.html": "<title>C</title>"])
        let engine = try EngineHarness.makeEngine(pagesConfiguration(pages))
        defer { engine.close() }
        for name in ["a", "b", "c"] { try await engine.loadAndWait(TestPages.url("\(name).html")) }
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
    }

    @Test func progressRisesToOneAndLoadingToggles() async throws {
        let pages = RecordingPages(["p.html": "<img src='missing.png'><p>p</p>"])
        let engine = try EngineHarness.makeEngine(pagesConfiguration(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(TestPages.url("p.html"))
        let progress = recorder.events.compactMap { if case .progressChanged(let p) = $0 { p } else { nil } }
        #expect(progress.last == 1.0)
        #expect(progress.allSatisfy { $0 >= 0 && $0 <= 1 })
        #expect(recorder.events.contains(.loadingChanged(true)))
        #expect(recorder.events.contains(.loadingChanged(false)))
        #expect(engine.estimatedProgress == 1.0)
    }
}

func failedMessage(_ event: EngineEvent) -> String {
    if case .loadFailed(_, let message, _) = event { return message }
    return ""
}
