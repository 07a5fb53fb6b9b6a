import Foundation
import HybridCore
import HybridFixtures
import Testing

@Suite("Engine custom schemes", .serialized)
@MainActor
struct EngineSchemeTests {
    @Test(arguments: EngineKind.allCases)
    func handlerSeesMethodHeadersAndBodyOfAFetchPost(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["form.html": "<p>form</p>"])
        let api = RecordingPages([:])
        let echo = ClosureSchemeHandler { request in
            if request.url.path == "/api/echo" {
                api.requests.append(request)
                let body = "\(request.method) \(request.header("X-Test") ?? "-") \(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "nil")"
                return SchemeResponse(status: 207, contentType: "text/plain", headers: [("X-Reply", "r1")], data: Data(body.utf8))
            }
            return try await pages.respond(to: request)
        }
        let engine = try kind.makeEngine(kind.pages(echo))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("form.html"))
        let result = try await engine.callAsync("""
            const r = await fetch('/api/echo', {method: 'POST', headers: {'X-Test': 'yes'}, body: 'payload=1&b=ü'});
            return {status: r.status, reply: r.headers.get('X-Reply'), text: await r.text()};
            """)
        #expect(result == ["status": 207, "reply": "r1", "text": "POST yes payload=1&b=ü"])
        #expect(api.requests.first?.body == Data("payload=1&b=ü".utf8))
    }

    @Test(arguments: EngineKind.allCases)
    func streamedBodyArrivesInFull(_ kind: EngineKind) async throws {
        let chunks = 64, chunkSize = 16 * 1024
        let streaming = ClosureSchemeHandler { request in
            if request.url.path == "/stream" {
                let stream = AsyncThrowingStream<Data, any Error> { continuation in
                    Task {
                        for index in 0..<chunks {
                            continuation.yield(Data(repeating: UInt8(65 + index % 26), count: chunkSize))
                            if index % 8 == 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
                        }
                        continuation.finish()
                    }
                }
                return SchemeResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: .stream(stream, length: nil))
            }
            return SchemeResponse(contentType: "text/html", data: Data("<p>s</p>".utf8))
        }
        let engine = try kind.makeEngine(kind.pages(streaming))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("s.html"))
        let result = try await engine.callAsync("""
            const b = new Uint8Array(await (await fetch('/stream')).arrayBuffer());
            return {length: b.length, first: b[0], last: b[b.length - 1]};
            """)
        #expect(result == ["length": .number(Double(chunks * chunkSize)), "first": 65, "last": .number(Double(65 + (chunks - 1) % 26))])
    }

    @Test(arguments: EngineKind.allCases)
    func aThrowingHandlerFailsTheRequestInThePage(_ kind: EngineKind) async throws {
        struct Refused: Error {}
        let failing = ClosureSchemeHandler { request in
            if request.url.path == "/fail" { throw Refused() }
            return SchemeResponse(contentType: "text/html", data: Data("<p>f</p>".utf8))
        }
        let engine = try kind.makeEngine(kind.pages(failing))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("f.html"))
        let result = try await engine.callAsync("try { await fetch('/fail'); return 'resolved'; } catch (e) { return e.name; }")
        #expect(result == "TypeError")
    }
}

@Suite("Engine script messages and user content", .serialized)
@MainActor
struct EngineUserContentTests {
    @Test(arguments: EngineKind.allCases)
    func replyHandlerResolvesAndRejectsThePagePromise(_ kind: EngineKind) async throws {
        let handler = ScriptMessageHandler(name: "echo") { message in
            switch message.body {
            case .string(let text) where text == "fail": .error("refused: \(text)")
            case .string(let text): .string("got " + text)
            case .json(let json): .json("{\"json\":\(json)}")
            }
        }
        let engine = try kind.makeEngine(EngineConfiguration(messageHandlers: [handler]))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>m</p>")
        let post = "return await window.webkit.messageHandlers.echo.postMessage(v);"
        #expect(try await engine.callAsync(post, arguments: ["v": "hi"]) == "got hi")
        #expect(try await engine.callAsync(post, arguments: ["v": ["n": 1]]) == ["json": ["n": 1]])
        let rejected = try await engine.callAsync("try { await window.webkit.messageHandlers.echo.postMessage('fail'); return 'no'; } catch (e) { return String(e.message || e); }")
        #expect(rejected.stringValue?.contains("refused: fail") == true)
    }

    @Test(arguments: EngineKind.allCases)
    func receiverWithoutReplyGetsEveryMessageInOrder(_ kind: EngineKind) async throws {
        var received: [ScriptMessage.Body] = []
        let handler = ScriptMessageHandler(name: "log") { message in received.append(message.body) }
        let engine = try kind.makeEngine(EngineConfiguration(messageHandlers: [handler]))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>m</p>")
        _ = try await engine.evaluate("for (let i = 0; i < 5; i++) window.webkit.messageHandlers.log.postMessage(i === 4 ? 'end' : {i}); 0")
        try await eventually("five messages") { received.count >= 5 }
        #expect(received == [.json("{\"i\":0}"), .json("{\"i\":1}"), .json("{\"i\":2}"), .json("{\"i\":3}"), .string("end")])
    }

    @Test(arguments: EngineKind.allCases)
    func handlerInANamedWorldIsInvisibleToThePage(_ kind: EngineKind) async throws {
        let handler = ScriptMessageHandler(name: "secret", world: .named("native")) { _ in .string("ok") }
        let engine = try kind.makeEngine(EngineConfiguration(messageHandlers: [handler]))
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>m</p>")
        #expect(try await engine.evaluate("!!(window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.secret)") == false)
        #expect(try await engine.evaluate("Object.keys(window).filter(k => k.startsWith('__hybridkit')).length") == 0)
        #expect(try await engine.callAsync("return await window.webkit.messageHandlers.secret.postMessage('x')", arguments: [:], in: .named("native")) == "ok")
    }

    @Test(arguments: EngineKind.allCases)
    func userScriptsRunAtStartAndEndInTheirFramesOnly(_ kind: EngineKind) async throws {
        let pages = RecordingPages([
            "main.html": "<script>window.sawStart = window.startMark;</script><iframe src='frame.html'></iframe>",
            "frame.html": "<p>frame</p>",
        ])
        let scripts = [
            UserScript(source: "window.startMark = 'start';", injectionTime: .documentStart, frames: .allFrames),
            UserScript(source: "window.endMark = document.querySelectorAll('iframe').length;", injectionTime: .documentEnd, frames: .mainFrameOnly),
        ]
        let engine = try kind.makeEngine(kind.pages(pages, scripts: scripts))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("main.html"))
        #expect(try await engine.evaluate("window.sawStart") == "start")
        #expect(try await engine.evaluate("window.endMark") == 1)
        // (an iframe's initial about:blank is already complete: wait for frame.html itself)
        try await engine.waitUntil("document.querySelector('iframe').contentDocument.body?.textContent == 'frame'")
        #expect(try await engine.evaluate("document.querySelector('iframe').contentWindow.startMark") == "start")
        #expect(try await engine.evaluate("typeof document.querySelector('iframe').contentWindow.endMark") == "undefined")
    }

    @Test(arguments: EngineKind.allCases)
    func aDocumentStartScriptSeesTheDocumentElement(_ kind: EngineKind) async throws {
        try kind.require(.documentElementAtDocumentStart)
        let pages = RecordingPages(["main.html": "<p>main</p>"])
        let scripts = [UserScript(source: "document.documentElement.dataset.all = 'yes';", injectionTime: .documentStart)]
        let engine = try kind.makeEngine(kind.pages(pages, scripts: scripts))
        defer { engine.close() }
        try await engine.loadAndWait(kind.url("main.html"))
        #expect(try await engine.evaluate("document.documentElement.dataset.all") == "yes")
    }

    @Test(arguments: EngineKind.allCases)
    func allowAndBlockListsScopeUserScriptsAndStyles(_ kind: EngineKind) async throws {
        let pages = RecordingPages(["in/a.html": "<p id=p>a</p>", "out/b.html": "<p id=p>b</p>", "in/blocked.html": "<p id=p>c</p>"])
        let scripts = [UserScript(source: "window.scoped = true;", allowList: ["\(kind.origin())/in/*"], blockList: ["\(kind.origin())/in/blocked.html"])]
        var configuration = kind.pages(pages, scripts: scripts)
        configuration.userStyleSheets = [UserStyleSheet(source: "#p { color: rgb(9, 8, 7) }", allowList: ["\(kind.origin())/in/*"])]
        let engine = try kind.makeEngine(configuration)
        defer { engine.close() }
        let color = "getComputedStyle(document.getElementById('p')).color"
        try await engine.loadAndWait(kind.url("in/a.html"))
        #expect(try await engine.evaluate("window.scoped === true") == true)
        #expect(try await engine.evaluate(color) == "rgb(9, 8, 7)")
        try await engine.loadAndWait(kind.url("out/b.html"))
        #expect(try await engine.evaluate("window.scoped === true") == false)
        #expect(try await engine.evaluate(color) != "rgb(9, 8, 7)")
        try await engine.loadAndWait(kind.url("in/blocked.html"))
        #expect(try await engine.evaluate("window.scoped === true") == false)
    }

    @Test(arguments: EngineKind.allCases)
    func consoleMessagesAreForwarded(_ kind: EngineKind) async throws {
        try kind.require(.consoleMessages)
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>c</p>")
        let recorder = EventRecorder(engine)
        _ = try await engine.evaluate("console.warn('careful', 42)")
        try await recorder.next("console") { $0 == .consoleMessage(level: "warning", text: "careful 42") }
    }
}
