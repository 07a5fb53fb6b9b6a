import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// `hybrid run` as page authors use it: a test page decides the exit status.
@Suite("hybrid run exit status", .serialized)
struct RunCommandTests {
    /// The `hybrid` binary built beside this test executable.
    static let tool = HybridTool()

    typealias Run = HybridTool.Run

    /// Writes `page` as index.html of a fresh directory and runs `hybrid run DIR arguments`.
    static func run(page: String, _ arguments: [String]) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(page.utf8).write(to: directory.appendingPathComponent("index.html"))
        return try hybrid(["run", directory.path] + arguments)
    }

    /// Runs `hybrid ARGUMENTS` and collects its standard output.
    static func hybrid(_ arguments: [String]) throws -> Run {
        try tool.run(arguments, errors: .discarded)
    }

    /// Runs `hybrid ARGUMENTS` and collects its standard output and error together.
    static func hybridWithErrors(_ arguments: [String]) throws -> Run {
        try tool.run(arguments)
    }

    static func done(_ ok: Bool) -> String {
        "<title>t</title><script>hybrid.ready.then(() => hybrid.call('test', 'done', { ok: \(ok), details: { checked: 3 } }))</script>"
    }

    @Test func aPageReportingOkExitsZeroWithItsDetails() throws {
        let run = try Self.run(page: Self.done(true), ["--until", "done", "--timeout", "30"])
        #expect(run.status == 0)
        #expect(run.output.contains("{\"checked\":3}"))
    }

    @Test func aPageReportingFailureExitsOne() throws {
        let run = try Self.run(page: Self.done(false), ["--until", "done", "--timeout", "30", "--headless"])
        #expect(run.status == 1)
        #expect(run.output.contains("page reported failure"))
    }

    @Test func aPageThatNeverReportsTimesOutWithTwo() throws {
        let run = try Self.run(page: "<p>silent</p>", ["--until", "done", "--timeout", "3", "--headless"])
        #expect(run.status == 2)
        #expect(run.output.contains("timed out"))
    }

    @Test func aLoadThatFailsExitsTwo() throws {
        let run = try Self.run(page: "<p>x</p>", ["--entry", "missing.html", "--headless", "--timeout", "20"])
        #expect(run.status == 2)
        #expect(run.output.contains("HTTP 404"))
    }

    @Test func screenshotAndReportAreWritten() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hk-run-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try Self.run(
            page: "<body style='background:rgb(0,128,0)'>" + Self.done(true),
            ["--until", "done", "--headless", "--screenshot", out.appendingPathComponent("shot.png").path,
             "--report", out.appendingPathComponent("report.json").path])
        #expect(run.status == 0)
        let png = try Data(contentsOf: out.appendingPathComponent("shot.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        #expect(report?["exit"] as? Double == 0)
        #expect(report?["title"] as? String == "t")
    }

    @Test(arguments: ["webkit", "blink"])
    func theReportHasThePagesTimingAndScriptErrors(_ engine: String) throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hk-run-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let page = """
            <title>t</title><h1>Health</h1><p>text to paint</p>
            <script>
            function fail() { throw new Error('reported by the run'); }
            setTimeout(fail, 0);
            </script>
            """
        let run = try Self.run(page: page, ["--engine", engine, "--headless", "--timeout", "30",
                                            "--report", out.appendingPathComponent("report.json").path])
        #expect(run.status == 0)
        let report = try JSONValue(jsonText: String(decoding: Data(contentsOf: out.appendingPathComponent("report.json")), as: UTF8.self))
        let health = try #require(report["health"])
        #expect((health["timing"]?["first_contentful_paint_ms"]?.numberValue ?? 0) > 0)
        #expect((health["timing"]?["load_ms"]?.numberValue ?? 0) > 0)
        let error = try #require(health["errors"]?.arrayValue?.first)
        #expect(error["message"]?.stringValue?.contains("reported by the run") == true)
        #expect(error["line"] == .number(3))
        #expect(health["launches"] == .number(1))
    }

    @Test func aCookiesFileReachesTheFirstRequestAndOnlyNonHttpOnlyReachJS() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/page") { request in
            let header = JSONValue.string(request.headers["Cookie"] ?? "").jsonText
            return .html("<script>hybrid.ready.then(() => hybrid.call('test', 'done', { ok: true, details: { header: \(header), js: document.cookie } }))</script>")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cookies-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            # Netscape HTTP Cookie File
            127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc
            #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\ttoken\tsecret
            other.example\tFALSE\t/\tFALSE\t0\tforeign\tno

            """.utf8).write(to: file)
        let origin = "http://127.0.0.1:\(server.port)"
        let run = try Self.hybrid(["run", server.url("/page").absoluteString, "--cookies", file.path, "--allow", origin,
                                   "--until", "done", "--headless", "--timeout", "30"])
        #expect(run.status == 0)
        let details = try JSONValue(jsonText: run.output.split(separator: "\n").last.map(String.init) ?? "null")
        let header = details["header"]?.stringValue ?? ""
        #expect(header.contains("sid=abc") && header.contains("token=secret") && !header.contains("foreign"))
        #expect(details["js"] == "sid=abc")
    }
}

/// The container's white-screen recovery as `hybrid run` reports it.
@Suite("hybrid run and crashes", .serialized)
struct RunCrashTests {
    @Test func aPageThatCrashesOnceIsReloadedAndItsReportCounts() throws {
        // The storage module keeps the count across the reload (it is the app's, not the page's).
        let page = """
            <title>t</title><script>hybrid.ready.then(async () => {
              const seen = await hybrid.call('storage', 'get', { key: 'crashed' });
              if (!seen) { await hybrid.call('storage', 'set', { key: 'crashed', value: 'yes' }); await hybrid.call('test', 'crash'); return; }
              await hybrid.call('test', 'done', { ok: true, details: { recovered: true } });
            })</script>
            """
        let run = try RunCommandTests.run(page: page, ["--until", "done", "--headless", "--timeout", "30"])
        #expect(run.status == 0)
        #expect(run.output.contains("white screen") && run.output.contains("{\"recovered\":true}"))
    }

    @Test func aPageThatKeepsCrashingIsUnrecoverableAndExitsTwo() throws {
        let page = "<title>t</title><script>hybrid.ready.then(() => hybrid.call('test', 'crash'))</script>"
        let run = try RunCommandTests.run(page: page, ["--until", "done", "--headless", "--timeout", "30"])
        #expect(run.status == 2)
        #expect(run.output.contains("unrecoverable"))
    }
}
