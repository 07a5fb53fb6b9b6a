import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Engine loading and navigation", .serialized)
@MainActor
struct EngineLoadingTests {
    @Test(arguments: EngineKind.allCases)
    func loadsAPageFromAHandlerAndReportsURLAndTitle(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["index.html": "<title>Index</title><p>hi</p>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(kind.url("index.html"))
        #expect(engine.url == kind.url("index.html"))
        // The title reaches the UI process asynchronously; it may trail load-finished.
        try await recorder.next("title") { $0 == .titleChanged("Index") }
        #expect(engine.title == "Index")
        #expect(recorder.events.contains { if case .loadStarted = $0 { true } else { false } })
        #expect(recorder.events.contains { if case .loadCommitted = $0 { true } else { false } })
        #expect(!engine.isLoading)
    }

    /// Blink announces no title change over DevTools; a loaded page's script-set title must still
    /// reach the view (a cleared title is what the white-screen probe looks for).
    @Test(arguments: EngineKind.allCases)
    func aTitleThePageSetsOrClearsLaterIsReported(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["index.html": "<title>Index</title><p>hi</p>", "bare.html": "<p>no title</p>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(kind.url("index.html"))
        try await recorder.next("title") { $0 == .titleChanged("Index") }
        _ = try await engine.evaluate("document.title = 'Later'; 0")
        try await recorder.next("the new title") { $0 == .titleChanged("Later") }
        #expect(engine.title == "Later")
        _ = try await engine.evaluate("document.title = ''; 0")
        try await recorder.next("no title") { $0 == .titleChanged(nil) }
        #expect(engine.title == nil)
        try await engine.loadAndWait(kind.url("bare.html"))
        _ = try await engine.evaluate("document.title = 'Added'; 0")
        try await recorder.next("an added title") { $0 == .titleChanged("Added") }
        #expect(engine.title == "Added")
    }

    @Test(arguments: EngineKind.allCases)
    func loadsACustomSchemeURL(_ kind: EngineKind) async throws {
        try kind.require(.customSchemeNavigation)
        let engine = try kind.makeEngine(EngineConfiguration(schemeHandlers: [TestPages.scheme: TestPages(["i.html": "<title>I</title>"])]))
        defer { engine.close() }
        try await engine.loadAndWait(TestPages.url("i.html"))
        #expect(try await engine.evaluate("location.origin + ' ' + document.title") == "hybrid-test://app I")
    }

    @Test(arguments: EngineKind.allCases)
    func requestHeadersReachTheServer(_ kind: EngineKind) async throws {
        let (server, seen) = try Self.requestEchoServer()
        defer { server.stop() }
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(EngineRequest(url: server.url("/h"), headers: [("X-Hybrid-Token", "abc 123")]))
        try await recorder.loadFinished()
        #expect(seen.value == ["token": "abc 123", "method": "GET", "body": ""])
    }

    @Test(arguments: EngineKind.allCases)
    func aLoadedPOSTSendsItsMethodAndBody(_ kind: EngineKind) async throws {
        try kind.require(.requestBodyLoads)
        let (server, seen) = try Self.requestEchoServer()
        defer { server.stop() }
        let engine = try kind.makeEngine()
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(EngineRequest(url: server.url("/h"), method: "POST", headers: [("Content-Type", "text/plain")], body: Data("a=1".utf8)))
        try await recorder.loadFinished()
        #expect(seen.value == ["token": "", "method": "POST", "body": "a=1"])
    }

    @Test(arguments: EngineKind.allCases)
    func htmlWithBaseURLResolvesRelativeResourcesAndOrigin(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["lib/app.js": "window.loadedFromBase = location.origin;"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<script src='lib/app.js'></script>", baseURL: kind.url(""))
        #expect(try await engine.evaluate("window.loadedFromBase") == .string(kind.origin()))
        #expect(try await engine.evaluate("location.href") == .string(kind.origin() + "/"))
        #expect(pages.requests.map(\.url.path) == ["/lib/app.js"])
    }

    @Test(arguments: EngineKind.allCases)
    func simulatedResponseLooksLikeANormalLoad(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["style.css": "p { color: rgb(1, 2, 3) }"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        let url = kind.url("page/sim.html")
        engine.loadSimulatedResponse(Data("<link rel=stylesheet href='../style.css'><p id=p>sim</p>".utf8), mimeType: "text/html", encoding: "utf-8", for: url)
        try await recorder.loadFinished()
        #expect(engine.url == url)
        #expect(try await engine.evaluate("location.href") == .string(url.absoluteString))
        try await engine.waitUntil("getComputedStyle(document.getElementById('p')).color == 'rgb(1, 2, 3)'")
        #expect(pages.requests.map(\.url.path) == ["/style.css"])  // the page itself came from memory
    }

    @Test(arguments: EngineKind.allCases)
    func reloadLoadsTheDocumentAgain(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["r.html": "<p>r</p>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("r.html"))
        let recorder = EventRecorder(engine)
        engine.reload()
        try await recorder.loadFinished()
        #expect(pages.requests.count == 2)
    }

    @Test(arguments: EngineKind.allCases)
    func stopCancelsALoadThatNeverAnswers(_ kind: EngineKind) async throws {
        let never = ClosureSchemeHandler { _ in
            try await Task.sleep(nanoseconds: 30_000_000_000)
            return SchemeResponse(contentType: "text/html", data: Data())
        }
        let engine = try kind.makeEngine(kind.pages(never))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        engine.load(kind.url("slow.html"))
        try await recorder.next("load start") { if case .loadStarted = $0 { true } else { false } }
        #expect(engine.isLoading)
        engine.stopLoading()
        let failed = try await recorder.next("cancelled") { if case .loadFailed = $0 { true } else { false } }
        #expect(failed == .loadFailed(kind.url("slow.html"), message: failedMessage(failed), cancelled: true))
        #expect(!engine.isLoading)
    }

    @Test(arguments: EngineKind.allCases)
    func backForwardListAndNavigation(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["a.html": "<title>A</title>", "b.html": "<title>B</title>", "c.html": "<title>C</title>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        for name in ["a", "b", "c"] { try await engine.loadAndWait(kind.url("\(name).html")) }
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

    @Test(arguments: EngineKind.allCases)
    func progressRisesToOneAndLoadingToggles(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["p.html": "<img src='missing.png'><p>p</p>"])
        let engine = try kind.makeEngine(kind.pages(pages))
        defer { engine.close() }
        let recorder = EventRecorder(engine)
        try await engine.loadAndWait(kind.url("p.html"))
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

extension EngineLoadingTests {
    /// A server whose `/h` records the token header, method and body of each request.
    fileprivate static func requestEchoServer() throws -> (LoopbackServer, Locked<[String: String]>) {
        let server = try LoopbackServer()
        let seen = Locked<[String: String]>([:])
        server.route("/h") { request in
            seen.set(["token": request.headers["X-Hybrid-Token"] ?? "", "method": request.method,
                      "body": String(decoding: request.body, as: UTF8.self)])
            return .html("<p>h</p>")
        }
        return (server, seen)
    }
}
