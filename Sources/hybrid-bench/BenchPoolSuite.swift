#if os(Linux)
import Foundation
import HybridCore
import HybridGTK
import HybridServer
import HybridFixtures

/// `hybrid bench pool`: what the warm pool and the parallel preload save when a container opens
/// a page, measured side by side in one run.
enum PoolBenchSuite: BenchSuite {
    static let name = "pool"
    static let keys = """
        Opens a small page on a loopback HybridServer N times each way (default 15, medians; the sides take
        turns in an order that rotates every round, after one untimed open each; every view ends up visible):
        cold_open_ms        a new view of the running engine, beside others (WebKit may hand it a process it kept
                            warm), load to load-finished: what a pool saves an app that is already up
        pooled_open_ms      dequeue a warm view from a WebViewPool (parked out of sight until then) and load the page
        pool_speedup        cold_open_ms / pooled_open_ms (target >= 10): the pool's headline
        first_open_ms       an app's first container: a new engine (a new WebKit context; on Blink a Chromium
                            launch) and its first view, the engine's start included, timed on its own
        first_open_speedup  first_open_ms / pooled_open_ms
        pooled_dequeue_ms   of pooled_open_ms: the dequeue (liveness probe of the warm view, moving it on screen)
        pooled_commit_ms    of pooled_open_ms: load() to the page's commit (request, response, new document)
        pooled_finish_ms    of pooled_open_ms: commit to load-finished (parse, scripts at document start, load event)
        bare_open_ms        the engine's floor for a pooled open: a warm engine view with no HybridKit code (no
                            scripts, no message handler, no container), parked, shown and loaded the same way
        bare_speedup        cold_open_ms / bare_open_ms: the most any pool could reach on this engine in this run
        pooled_over_bare_ms pooled_open_ms - bare_open_ms: what the container adds to a pooled open
        bare_commit_ms, bare_finish_ms  of bare_open_ms: showing it and load() to the commit; commit to finished
        pooled_main_cpu_ms, bare_main_cpu_ms  CPU time of the app's main thread over each open (the engine's
                            signals, the container's handlers and policies, the bridge's hello): medians
        main_cpu_over_bare_ms pooled_main_cpu_ms - bare_main_cpu_ms: the part of pooled_over_bare_ms that is the
                            app process's own work on its main thread
        open40_ms           a new view, page served with 40 ms added latency, normal load
        preload_open40_ms   same, with the HTML fetched natively while the view is created
        preload_speedup     open40_ms / preload_open40_ms (target >= 1.1)
        aa_noise_ratio      the A/A noise floor: pooled_open_ms measured a second time in every round, over the
                            first (1 is no noise); a difference between sides within it is no difference
        """

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let rounds = options.iterations ?? 15
        let debug = ProcessInfo.processInfo.environment["HYBRID_BENCH_DEBUG"] != nil
        let provider = try options.makeProvider()
        let server = try LoopbackServer()
        defer { server.stop() }
        let html = "<!doctype html><title>Bench</title><meta name=viewport content='width=device-width'><p>pool bench</p>"
        server.route("/page") { _ in .html(html) }
        server.route("/page40") { _ in ServerResponse.html(html).delayed(by: .milliseconds(40)) }
        let pool = WebViewPool(provider: provider, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600  // refilled between timings, never during one
        defer { pool.drain() }
        let preloader = PagePreloader()

        // One-time costs of the process (libraries, the network process, connections) on every path.
        _ = try await cold(provider, server.url("/page?warmup"))
        _ = try await cold(provider, server.url("/page40?warmup"))
        _ = await preloader.fetch(server.url("/page40?warmup"))

        func logged(_ side: String, _ round: Int, _ ms: Double) -> Double {
            if debug { FileHandle.standardError.write(Data(String(format: "round %d: %@ %.1f ms\n", round, side, ms).utf8)) }
            return ms
        }
        var pooledParts: [TimedOpen] = [], bareParts: [TimedOpen] = []
        let turns = BenchTurns(rounds: rounds, settle: settle, noiseSide: "pooled")
        let samples = try await turns.run([
            // A new engine per timing, its start timed with it: nothing WebKit keeps warm can help
            // it (an app's first open). Reported as first_open_ms, not the pool's headline.
            .init(name: "first") { logged("first", $0, try await first(options, server.url("/page?fresh=\($0)"))) },
            .init(name: "cold") { logged("cold", $0, try await cold(provider, server.url("/page?shared=\($0)"))) },
            .init(name: "pooled") { round in
                await pool.prewarm()
                try await settle()
                let open = try await pooled(pool, server.url("/page?pooled=\(round)"))
                if round >= 0 { pooledParts.append(open) }
                return logged("pooled", round, open.total)
            },
            .init(name: "bare") { round in
                let open = try await bareOpen(provider, server.url("/page?bare=\(round)"))
                if round >= 0 { bareParts.append(open) }
                return logged("bare", round, open.total)
            },
            .init(name: "open40") { logged("open40", $0, try await cold(provider, server.url("/page40?normal=\($0)"))) },
            .init(name: "preload40") { logged("preload40", $0, try await preloaded(provider, preloader, server.url("/page40?preload=\($0)"))) },
        ])
        let firstMs = samples.median("first"), coldMs = samples.median("cold"), pooledMs = samples.median("pooled")
        let pooledCPU = benchMedian(pooledParts.map(\.mainCPU)), bareCPU = benchMedian(bareParts.map(\.mainCPU))
        let bareMs = samples.median("bare"), open40Ms = samples.median("open40"), preload40Ms = samples.median("preload40")
        return BenchReport(values: [
            ("cold_open_ms", coldMs), ("pooled_open_ms", pooledMs), ("pool_speedup", coldMs / pooledMs),
            ("first_open_ms", firstMs), ("first_open_speedup", firstMs / pooledMs),
            ("pooled_dequeue_ms", benchMedian(pooledParts.map(\.dequeue))), ("pooled_commit_ms", benchMedian(pooledParts.map(\.commit))),
            ("pooled_finish_ms", benchMedian(pooledParts.map(\.finish))),
            ("bare_open_ms", bareMs), ("bare_speedup", coldMs / bareMs), ("pooled_over_bare_ms", pooledMs - bareMs),
            ("bare_commit_ms", benchMedian(bareParts.map(\.commit))), ("bare_finish_ms", benchMedian(bareParts.map(\.finish))),
            ("pooled_main_cpu_ms", pooledCPU), ("bare_main_cpu_ms", bareCPU), ("main_cpu_over_bare_ms", pooledCPU - bareCPU),
            ("open40_ms", open40Ms), ("preload_open40_ms", preload40Ms), ("preload_speedup", open40Ms / preload40Ms),
            ("aa_noise_ratio", samples.noiseRatio ?? 0),
        ])
    }

    /// Start a new engine, create its first view, load `url`, close: milliseconds to load-finished.
    @MainActor private static func first(_ options: BenchOptions, _ url: URL) async throws -> Double {
        let began = BenchClock.now()
        let provider = try options.makeProvider()
        let view = try HybridWebView(provider: provider)
        defer { view.close() }
        try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { view.load(url) }
        return BenchClock.since(began)
    }

    /// Create a view, load `url`, close: milliseconds to load-finished.
    @MainActor private static func cold(_ provider: any WebEngineProvider, _ url: URL) async throws -> Double {
        let began = BenchClock.now()
        let view = try HybridWebView(provider: provider)
        defer { view.close() }
        try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { view.load(url) }
        return BenchClock.since(began)
    }

    /// The floor of a pooled open: an engine view made with no HybridKit code at all, warmed with the
    /// same empty document and parked as the pool's views are (made, parked, warmed, left to settle
    /// as long as a pooled view is after ``WebViewPool/prewarm()``), then shown and loaded: milliseconds
    /// from showing it to load-finished.
    @MainActor private static func bareOpen(_ provider: any WebEngineProvider, _ url: URL) async throws -> TimedOpen {
        let engine = try provider.makeEngine(EngineConfiguration())
        defer { engine.close() }
        engine.setParked(true)
        try await engine.waitForLoad(timeout: BenchOptions.loadTimeout) { engine.loadHTML("", baseURL: nil) }
        try await settle()
        let clock = CommitClock(engine, url)
        defer { clock.stop() }
        let cpu = BenchClock.threadCPU()
        let began = BenchClock.now()
        engine.setParked(false)
        try await engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { engine.load(url) }
        let finished = BenchClock.now()
        let committed = clock.committed ?? finished
        return TimedOpen(total: finished - began, commit: committed - began, finish: finished - committed,
                          mainCPU: BenchClock.threadCPU() - cpu)
    }

    /// An open's milliseconds: in all, and its parts (dequeue, load to commit, commit to finish), and
    /// the CPU time of the app's main thread over it.
    struct TimedOpen {
        var total = 0.0, dequeue = 0.0, commit = 0.0, finish = 0.0, mainCPU = 0.0
    }

    /// When the page's commit was reported (the warm-up document's is not the page's: it ended before).
    @MainActor private final class CommitClock {
        var committed: Double?
        private var token: ObservationToken?

        /// Starts watching `engine` for the commit of `url`'s document.
        init(_ engine: any WebEngine, _ url: URL) {
            token = engine.observe { [weak self] event in
                guard let self, case .loadCommitted(let committed) = event, committed?.path == url.path, self.committed == nil else { return }
                self.committed = BenchClock.now()
            }
        }

        /// Stops watching.
        func stop() { token?.cancel() }
    }

    @MainActor private static func pooled(_ pool: WebViewPool, _ url: URL) async throws -> TimedOpen {
        let cpu = BenchClock.threadCPU()
        let began = BenchClock.now()
        let view = try await pool.dequeue()
        defer { pool.enqueue(view) }
        let handedOut = BenchClock.now()
        let clock = CommitClock(view.engine, url)
        defer { clock.stop() }
        try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { view.load(url) }
        let finished = BenchClock.now()
        let mainCPU = BenchClock.threadCPU() - cpu
        // Not timed: the view handed out showed no earlier page (its history is this page alone).
        let history = try await view.engine.evaluate("history.length")
        guard history == 1, !view.engine.canGoBack, pool.coldCount == 0 else {
            let detail = "history.length \(history.jsonText), canGoBack \(view.engine.canGoBack), cold views \(pool.coldCount)"
            throw HybridError.engine(.native(domain: "bench", code: 2, message: "the pooled view was not a clean warm view: \(detail)"))
        }
        let committed = clock.committed ?? finished
        return TimedOpen(total: finished - began, dequeue: handedOut - began, commit: committed - handedOut, finish: finished - committed,
                          mainCPU: mainCPU)
    }

    @MainActor private static func preloaded(_ provider: any WebEngineProvider, _ preloader: PagePreloader, _ url: URL) async throws -> Double {
        let began = BenchClock.now()
        let page = preloader.start(url)
        let view = try HybridWebView(provider: provider)
        defer { view.close() }
        // Started at once, as the normal load is: a plain Task would start the view's content
        // process one main-loop turn (3-5 ms measured) later.
        try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { Task.immediate { await view.load(url, preloaded: page) } }
        return BenchClock.since(began)
    }

    /// Lets closed views' processes exit and the pool's warm-up finish before the next timing.
    @MainActor private static func settle() async throws {
        try await Task.sleep(nanoseconds: 500_000_000)
    }
}
#endif
