#if os(Linux)
import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// `hybrid bench health`: what health recording costs on the bridge and on a pooled open, with
/// recording on and off side by side in one run, and whether the first contentful paint the
/// container records is the one the page itself reads.
enum HealthBenchSuite: BenchSuite {
    static let name = "health"
    static let keys = """
        Containers of the same configuration, with a HealthRecorder (health on) and without; the sides
        alternate, so all see the same machine load (N rounds, default 61, medians; HYBRID_BENCH_AA=1
        turns recording off on every side, to show the noise floor):
        bridge_off_ms, bridge_on_ms   one empty hybrid.call, timed in the page in groups of about 300 ms,
                                      in four views each way
        health_overhead_bridge        bridge_on_ms / bridge_off_ms (goal <= 1.02)
        pool_off_ms, pool_on_ms       dequeue a warm view from a WebViewPool and load a small loopback page,
                                      eight pools each way, each opened once in N/8 rounds (N opens a side)
        health_overhead_pool          pool_on_ms / pool_off_ms (goal <= 1.02)
        pool_SIDE_commit_ms, pool_SIDE_finish_ms, pool_SIDE_resume_ms
                                      where a side's open goes (medians): open to the committed event, committed
                                      to the finished event, the finished event to the waiting task resumed
        pool_opens                    pooled opens a side (N rounded up to a multiple of the eight pools)
        pool_paired_ratio             the median of each round's on / off (the sides of one round are
                                      back to back: a second view of the load drifting between rounds)
        fcp_ms                        the first contentful paint the container recorded (median)
        fcp_recorded_ratio            health-on opens whose FCP reached the recorder, with its launch, within 3 s,
                                      over all health-on opens (goal 1: a launch without its FCP is a dropped
                                      measurement; a recorded FCP that is not the page's own entry fails the run)
        With HYBRID_BENCH_HEALTH_SCRIPT=FILE.js, a third pool side: recording off, FILE.js injected as the
        capture script is (document start, every frame, the bridge's world) with a handler
        `hybridkitHealth` that drops what it is sent (to take the capture's cost apart):
        pool_script_ms, script_overhead_pool   its open, and pool_script_ms / pool_off_ms
        """

    /// An empty action for the bench page's origin.
    struct BenchModule: BridgeModule {
        let name = "bench"
        let allowedOrigins: [OriginPattern]
        var actions: [BridgeAction] { [.immediate("empty") { (_: Empty, _) in BridgeEmpty() }] }
    }

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let rounds = max(11, options.iterations ?? 61)
        let provider = try options.makeProvider()
        let server = try LoopbackServer()
        defer { server.stop() }
        let html = "<!doctype html><title>Bench</title><meta name=viewport content='width=device-width'><h1>health bench</h1><p>text</p>"
        server.route("/page") { _ in .html(html) }
        let log = HealthEventLog()
        let recorder = HealthRecorder(sinks: [log])
        func configuration(health: Bool) -> HybridWebViewConfiguration {
            var configuration = HybridWebViewConfiguration(modules: [BenchModule(allowedOrigins: [
                OriginPattern(stringLiteral: "http://127.0.0.1:\(server.port)"),
            ])])
            if health { configuration.health = recorder }
            return configuration
        }

        // The bridge: four views each way on the same page (made in alternating order: one view
        // alone is measurably faster or slower than another, recording or not), groups of calls
        // timed in the page, the sides alternating.
        let aa = ProcessInfo.processInfo.environment["HYBRID_BENCH_AA"] != nil   // both sides off: the noise floor
        var pairs: [(off: HybridWebView, on: HybridWebView)] = []
        defer { for pair in pairs { pair.off.close(); pair.on.close() } }
        for index in 0..<4 {
            let first = try HybridWebView(provider: provider, configuration: configuration(health: index % 2 == 1 && !aa))
            let second = try HybridWebView(provider: provider, configuration: configuration(health: index % 2 == 0 && !aa))
            pairs.append(index % 2 == 0 ? (first, second) : (second, first))
        }
        for view in pairs.flatMap({ [$0.off, $0.on] }) {
            let url = server.url("/page?bridge")
            try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { view.load(url) }
            _ = try await view.engine.callAsync("await hybrid.ready; return null")
        }
        let group = try await groupSize(pairs[0].off)
        var bridgeOff: [Double] = [], bridgeOn: [Double] = []
        for round in 0..<rounds {
            for pair in pairs {
                for step in 0..<2 {
                    if (step == 0) == (round % 2 == 0) {
                        bridgeOff.append(try await timeGroup(pair.off, group))
                    } else {
                        bridgeOn.append(try await timeGroup(pair.on, group))
                    }
                }
            }
        }

        // The pool: eight warm pooled views per side (made in alternating order, as the bridge's
        // views are: one view alone is measurably faster or slower than another, recording or not;
        // with four a side the A/A ratio still strayed 5 % from 1 on a quiet machine),
        // the same page, the sides in turn (rotating which goes first, so none is always the one
        // after a settle of the same length).
        let custom = try customScript()
        var scripted: HybridWebViewConfiguration?
        if let custom {
            var configuration = configuration(health: false)
            let world = ScriptWorld.named(configuration.bridgeOptions.worldName)
            configuration.engine.userScripts.append(UserScript(source: custom, injectionTime: .documentStart, frames: .allFrames, world: world))
            configuration.engine.messageHandlers.append(ScriptMessageHandler(name: "hybridkitHealth", world: world) { _ in })
            scripted = configuration
        }
        var groups: [[(name: String, health: Bool, pool: WebViewPool)]] = []
        for index in 0..<8 {
            var sides: [(name: String, health: Bool, configuration: HybridWebViewConfiguration)] = [
                ("off", false, configuration(health: false)), ("on", !aa, configuration(health: !aa)),
            ]
            if index % 2 == 1 { sides.reverse() }
            if let scripted { sides.append(("script", false, scripted)) }
            var group: [(name: String, health: Bool, pool: WebViewPool)] = []
            for side in sides {
                let pool = WebViewPool(provider: provider, configuration: side.configuration, policy: WebViewPoolPolicy(capacity: 1))
                pool.refillDelay = 3600
                await pool.prewarm()
                group.append((side.name, side.health, pool))
            }
            groups.append(group.sorted { $0.name < $1.name })
        }
        defer { for side in groups.joined() { side.pool.drain() } }
        var opens: [String: [Double]] = [:], stages: [String: [Double]] = [:], fcps: [Double] = [], healthOpens = 0
        for round in 0..<(rounds + groups.count - 1) / groups.count {
            for (index, sides) in groups.enumerated() {
                for step in 0..<sides.count {
                    let side = sides[(step + round + index) % sides.count]
                    await side.pool.prewarm()
                    try await settle()
                    let url = server.url("/page?pool=\(round)-\(index)&side=\(side.name)")
                    let began = BenchClock.now()
                    let view = try await side.pool.dequeue()
                    var seen: [String: Double] = [:]
                    let token = view.engine.observe { event in
                        switch event {
                        case .loadCommitted(url): seen["commit"] = seen["commit"] ?? BenchClock.now()
                        case .loadFinished(url): seen["finish"] = seen["finish"] ?? BenchClock.now()
                        default: break
                        }
                    }
                    try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { view.load(url) }
                    let ended = BenchClock.now()
                    token.cancel()
                    opens[side.name, default: []].append(ended - began)
                    if let commit = seen["commit"], let finish = seen["finish"] {
                        stages["\(side.name)_commit", default: []].append(commit - began)
                        stages["\(side.name)_finish", default: []].append(finish - commit)
                        stages["\(side.name)_resume", default: []].append(ended - finish)
                    }
                    if side.health {
                        healthOpens += 1
                        if let recorded = try await recordedFCP(log, for: url) {
                            let direct = try await view.engine.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null")
                            if let page = direct.numberValue, abs(recorded - page) >= 1 {
                                throw benchError("recorded FCP \(recorded) ms is not the page's own entry, \(page) ms")
                            }
                            fcps.append(recorded)
                        }
                    }
                    side.pool.enqueue(view)
                }
            }
        }
        let bridgeOffMs = benchMedian(bridgeOff), bridgeOnMs = benchMedian(bridgeOn)
        let poolOffMs = benchMedian(opens["off"] ?? []), poolOnMs = benchMedian(opens["on"] ?? [])
        let paired = benchMedian(zip(opens["on"] ?? [], opens["off"] ?? []).map { $0 / $1 })
        var values: [(key: String, value: Double)] = [
            ("bridge_off_ms", bridgeOffMs), ("bridge_on_ms", bridgeOnMs), ("health_overhead_bridge", bridgeOnMs / bridgeOffMs),
            ("pool_off_ms", poolOffMs), ("pool_on_ms", poolOnMs), ("health_overhead_pool", poolOnMs / poolOffMs),
            ("pool_paired_ratio", paired),
            ("fcp_ms", fcps.isEmpty ? -1 : benchMedian(fcps)), ("fcp_recorded_ratio", Double(fcps.count) / Double(max(1, healthOpens))),
            ("rounds", Double(rounds)),
            ("pool_opens", Double(opens["off"]?.count ?? 0)),
        ]
        values += stages.keys.sorted().map { ("pool_\($0)_ms", benchMedian(stages[$0] ?? [])) }
        if let scripted = opens["script"] {
            values += [("pool_script_ms", benchMedian(scripted)), ("script_overhead_pool", benchMedian(scripted) / poolOffMs)]
        }
        return BenchReport(values: values)
    }

    /// The script of `HYBRID_BENCH_HEALTH_SCRIPT`, if set.
    private static func customScript() throws -> String? {
        guard let path = ProcessInfo.processInfo.environment["HYBRID_BENCH_HEALTH_SCRIPT"] else { return nil }
        do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw benchError("HYBRID_BENCH_HEALTH_SCRIPT: cannot read \(path): \(error)")
        }
    }

    /// Calls per group so that one group lasts about 300 ms (performance.now() is coarsened to 1 ms on
    /// WebKit: a step is then about 0.3% of a group).
    @MainActor private static func groupSize(_ view: HybridWebView) async throws -> Int {
        var n = 1
        while n < 65_536 {
            let perCall = try await timeGroup(view, n)
            if perCall * Double(n) >= 30 { return max(1, Int(300 / max(perCall, 0.001))) }
            n *= 2
        }
        return n
    }

    /// The mean time of one empty call over `n` calls, timed in the page.
    @MainActor private static func timeGroup(_ view: HybridWebView, _ n: Int) async throws -> Double {
        let value = try await view.engine.callAsync("""
            const t0 = performance.now();
            for (let i = 0; i < n; i++) await hybrid.call('bench', 'empty');
            return (performance.now() - t0) / n;
            """, arguments: ["n": .number(Double(n))])
        guard let perCall = value.numberValue else { throw benchError("a group returned \(value.jsonText)") }
        return perCall
    }

    /// The FCP recorded for the launch of `url`, once the page has reported it; nil when none
    /// arrived within 3 s (a dropped measurement, counted by `fcp_recorded_ratio`).
    @MainActor private static func recordedFCP(_ log: HealthEventLog, for url: URL) async throws -> Double? {
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            let launch = log.all.last { $0.context.url == url.absoluteString.components(separatedBy: "?")[0] }?.context.launchID
            let timing = log.all.last { event in
                guard event.context.launchID == launch, case .pageTiming = event.kind else { return false }
                return true
            }
            if case .pageTiming(let value)? = timing?.kind, let fcp = value.firstContentfulPaint, launch != nil { return fcp }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        if ProcessInfo.processInfo.environment["HYBRID_BENCH_DEBUG"] != nil {
            FileHandle.standardError.write(Data("bench health: no page timing recorded for \(url.absoluteString)\n".utf8))
        }
        return nil
    }

    /// Lets the pool's warm-up finish and closed processes exit before a timing.
    @MainActor private static func settle() async throws {
        try await Task.sleep(nanoseconds: 300_000_000)
    }

    private static func benchError(_ message: String) -> HybridError {
        HybridError.engine(.native(domain: "bench", code: 3, message: message))
    }
}
#endif
