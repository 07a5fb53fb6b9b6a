#if os(Linux)
import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// `hybrid bench serve`: `hybrid serve` and Debian's nginx on the same files in the same run,
/// under the same closed-loop load (200 clients × 50 keep-alive GETs by default). No engine.
enum ServeBenchSuite: BenchSuite {
    static let name = "serve"
    static let usesEngine = false
    static let keys = """
        200 concurrent keep-alive clients × N requests each (default 50, --iterations), connected
        before the clock starts, on loopback against hybrid serve and against nginx (1 worker:
        both serve from one thread) on the same six files (page, script, style, image, config,
        blob); latencies are per request, errors are anything but a whole 200:
        serve_rps, nginx_rps, serve_vs_nginx, serve_p50_ms, serve_p99_ms, nginx_p50_ms,
        nginx_p99_ms, serve_errors, nginx_errors, requests
        """

    static let clients = 200

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let perClient = options.iterations ?? 50
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("hk-bench-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: site) }
        let paths = try writeSite(site)

        // The load blocks its caller until done: run it off the main thread, which GLib owns.
        let (serve, nginx) = try await Task.detached { () throws -> (ServeLoad.Result, ServeLoad.Result) in
            let server = try StaticSiteServer(root: site)
            defer { server.stop() }
            let nginx = try NginxProcess(root: site, workers: 1, gzip: false)
            defer { nginx.stop() }
            func measure(_ port: Int) -> ServeLoad.Result {
                // A short warm-up (connections, page cache, mapped files), then the measured run.
                _ = ServeLoad(port: port, paths: paths, clients: 20, requestsPerClient: 10, timeLimit: 20).run()
                return ServeLoad(port: port, paths: paths, clients: clients, requestsPerClient: perClient, timeLimit: 120).run()
            }
            return (measure(server.server.port), measure(nginx.port))
        }.value

        return BenchReport(values: [
            ("serve_rps", serve.requestsPerSecond),
            ("nginx_rps", nginx.requestsPerSecond),
            ("serve_vs_nginx", nginx.requestsPerSecond > 0 ? serve.requestsPerSecond / nginx.requestsPerSecond : 0),
            ("serve_p50_ms", serve.percentile(0.50)),
            ("serve_p99_ms", serve.percentile(0.99)),
            ("nginx_p50_ms", nginx.percentile(0.50)),
            ("nginx_p99_ms", nginx.percentile(0.99)),
            ("serve_errors", Double(serve.errors)),
            ("nginx_errors", Double(nginx.errors)),
            ("requests", Double(serve.requests)),
        ])
    }

    /// A small repository-like site: a page, a script, a style sheet, an image, a config
    /// document and a blob. Returns the paths the clients cycle through.
    private static func writeSite(_ root: URL) throws -> [String] {
        var generator = SystemRandomNumberGenerator()
        let files: [String: Data] = [
            "index.html": Data(("<!doctype html><title>bench</title>" + String(repeating: "<p>hybrid serve</p>\n", count: 400)).utf8),
            "js/app.js": Data(String(repeating: "export function f(x) { return x * 2; }\n", count: 1_000).utf8),
            "css/site.css": Data(String(repeating: "body { margin: 0; color: #333; }\n", count: 120).utf8),
            "img/logo.png": Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            "config/latest.json": Data(("{\"format\":1,\"padding\":\"" + String(repeating: "x", count: 900) + "\"}").utf8),
            "blobs/ab/abcdef": Data((0..<8_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
        ]
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        return files.keys.sorted().map { "/" + $0 }
    }
}
#endif
