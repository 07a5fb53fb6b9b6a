import Foundation
import HybridCore
import HybridServer
import Testing

/// `hybrid run --report`'s health on a page that floods errors and hosts a foreign frame: what is
/// kept is bounded and counted, and a foreign frame's message is what the page itself would see.
@Suite("hybrid run --report: error counts and privacy", .serialized)
struct RunHealthTests {
    @Test(arguments: ["webkit", "blink"])
    func errorsPastTheLimitAreCountedAndAForeignFramesMessageIsRedacted(_ engine: String) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let port = server.port
        server.route("/frame") { _ in
            .html("""
                <script>setTimeout(() => parent.postMessage('thrown', '*'), 100);
                throw new Error('checkout failed for user=alice@example.com')</script>
                """)
        }
        server.route("/page") { _ in
            .html("""
                <title>flood</title>
                <iframe src="http://localhost:\(port)/frame"></iframe>
                <script>
                // The flood starts once the frame has thrown, so its error is among those kept.
                addEventListener('message', (event) => {
                  if (event.data !== 'thrown') return;
                  for (let i = 0; i < 10000; i++) setTimeout(() => { throw new Error('distinct ' + i); }, 0);
                  setTimeout(() => hybrid.call('test', 'done', { ok: true }), 300);
                });
                </script>
                """)
        }
        let dir = RunConfigTests.temporary("run-health")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = dir.appendingPathComponent("report.json")
        let run = try RunCommandTests.hybridWithErrors(["run", server.url("/page").absoluteString, "--engine", engine, "--until", "done",
                                                        "--headless", "--timeout", "30", "--report", report.path])
        #expect(run.status == 0, "\(run.output)")
        let health = try JSONValue(jsonText: String(decoding: Data(contentsOf: report), as: UTF8.self))["health"]
        let errors = health?["errors"]?.arrayValue ?? []
        #expect(errors.count == 25, "at most 25 distinct errors are kept per launch")
        guard case .number(let dropped)? = health?["dropped"] else {
            Issue.record("no dropped count: \(String(describing: health))")
            return
        }
        // 10,000 page errors and the frame's one: every one is either kept or counted.
        #expect(Int(dropped) + errors.count >= 10_000, "dropped \(dropped) + kept \(errors.count)")
        let foreign = errors.filter { $0["origin"]?.stringValue?.contains("localhost") == true }
        // WebKitGTK reports the frame's error to the container's world; Chromium's DevTools session
        // does not report errors of an out-of-process frame at all (nothing to redact there).
        #expect(foreign.count == (engine == "webkit" ? 1 : 0), "\(errors)")
        for error in foreign {
            #expect(error["message"] == "Script error." && error["source"] == .null && error["line"] == .null, "\(error)")
        }
        let text = String(decoding: try Data(contentsOf: report), as: UTF8.self)
        #expect(!text.contains("alice@example.com"), "a foreign frame's message must not reach the report")
    }
}
