import Foundation
import HybridFixtures
import Testing

/// `hybrid run --inspect`: the engine's own inspector endpoint, on loopback, reachable while the
/// page runs (the test connects to it, then ends the run).
@Suite("hybrid run --inspect", .serialized)
struct RunInspectTests {
    /// Starts `hybrid run DIR --inspect` on a page that never ends the run by itself, waits for the
    /// line naming the inspector (read as the tool prints it), fetches that URL, ends the run.
    static func inspect(engine: String, until marker: String) throws -> (url: URL, body: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<title>Inspected page</title><p>inspect me</p>".utf8).write(to: directory.appendingPathComponent("index.html"))
        let run = try LiveRun(["run", directory.path, "--engine", engine, "--inspect", "--headless", "--until", "done", "--timeout", "30"])
        defer { run.stop() }
        let line = try run.line(startingWith: "hybrid run: inspector at ")
        let url = try #require(URL(string: String(line.dropFirst("hybrid run: inspector at ".count))))
        #expect(url.host == "127.0.0.1")
        return (url, try fetch(url, until: marker))
    }

    /// The body at `url` once it contains `marker` (the page may still be loading when the line
    /// is printed), or the last body after 15 s.
    static func fetch(_ url: URL, until marker: String) throws -> String {
        let deadline = Date().addingTimeInterval(15)
        var body = ""
        repeat {
            // A raw exchange on the socket: no proxy settings of the environment in the way.
            let port = url.port ?? 80
            // Not half-closed: Chromium's endpoint now and then took that for a client gone and
            // answered nothing (an empty body for 15 s, one run in four).
            body = RawHTTP.exchange(port: port, "GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n",
                                    halfClose: false)
            if body.contains(marker) { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return body
    }

    @Test func webKitsRemoteInspectorListsThePage() throws {
        let (url, body) = try Self.inspect(engine: "webkit", until: "Inspected page")
        #expect(url.port != nil)
        #expect(body.contains("Inspectable targets"))
        #expect(body.contains("hybrid-app://local/index.html"))
        #expect(body.contains("/socket/"))   // the page's inspector connection
    }

    @Test func chromiumsDevToolsEndpointAnswers() throws {
        let (url, body) = try Self.inspect(engine: "blink", until: "webSocketDebuggerUrl")
        #expect(url.path == "/json/version")
        #expect(body.contains("\"webSocketDebuggerUrl\""))
        #expect(body.contains("ws://127.0.0.1:"))
    }
}
