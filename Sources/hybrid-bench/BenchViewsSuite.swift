#if os(Linux)
import Foundation
import HybridCore
import HybridBlink
import HybridGTK
import HybridFixtures

/// `hybrid bench views`: creates, loads and destroys views in a loop and watches the UI
/// process's memory. A leak (a GObject reference, a signal box, a pending call) shows as
/// steady growth per view; a bounded process levels off after the first views warm caches.
enum ViewsBenchSuite: BenchSuite {
    static let name = "views"
    static let keys = """
        Creates a view, loads a small page, closes it; N times (default 200). Reports the UI
        process's resident memory (MB) after 20 views and after N, the growth per view (KB)
        between them, and create→load-finished→close times:
        rss_start_mb, rss_after_20_mb, rss_after_n_mb, growth_per_view_kb, views, open_close_ms
        """

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let count = options.iterations ?? 200
        let provider = try options.makeProvider()
        let page = "<title>v</title><p>view</p><script>let a = new Array(1000).fill(1);</script>"
        let start = residentMB()
        var after20 = start
        var timings: [Double] = []
        for index in 1...count {
            let began = BenchClock.now()
            let engine = try provider.makeEngine(EngineConfiguration())
            try await engine.waitForLoad(timeout: BenchOptions.loadTimeout) { engine.loadHTML(page, baseURL: URL(string: "https://views.hybridkit.invalid/")) }
            engine.close()
            timings.append(BenchClock.since(began))
            if index == 20 {
                try await settle()
                after20 = residentMB()
            }
        }
        try await settle()
        let end = residentMB()
        let alive = (provider as? GTKEngineProvider)?.liveViewCount ?? (provider as? BlinkEngineProvider)?.liveViewCount ?? 0
        guard alive == 0 else { throw HybridError.engine(.native(domain: "bench", code: 1, message: "\(alive) views still alive")) }
        return BenchReport(values: [
            ("rss_start_mb", start), ("rss_after_20_mb", after20), ("rss_after_n_mb", end),
            ("growth_per_view_kb", (end - after20) * 1024 / Double(max(count - 20, 1))),
            ("views", Double(count)), ("open_close_ms", benchMedian(timings)),
        ])
    }

    /// Lets WebKit finish tearing closed views down (their processes exit asynchronously).
    @MainActor private static func settle() async throws {
        try await Task.sleep(nanoseconds: 1_000_000_000)
    }

    /// Resident set size of this (the UI) process, from /proc/self/statm.
    static func residentMB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
#endif
