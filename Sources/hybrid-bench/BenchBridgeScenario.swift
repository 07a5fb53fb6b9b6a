#if os(Linux)
import Foundation
import HybridCore
import HybridBlink
import HybridGTK

/// One page in one view, with the bridge and a bare reply handler (`raw`) side by side.
@MainActor
final class BridgeBenchmark {
    let iterations: Int
    /// `webkit` or `blink` (`--engine`).
    let engineName: String

    init(iterations: Int, engine: String = "webkit") {
        self.iterations = iterations
        engineName = engine
    }

    /// An empty action and an echo, for the origin the page is loaded from.
    struct BenchModule: BridgeModule {
        let name = "bench"
        let allowedOrigins: [OriginPattern] = ["https://bench.hybridkit.invalid"]
        var actions: [BridgeAction] {
            [
                .immediate("empty") { (_: Empty, _) in BridgeEmpty() },
                Action("emptyAsync") { (_: Empty, _) in BridgeEmpty() },
                Action("echo") { (text: String, _) in text },
            ]
        }
    }

    /// Sends `hybrid://` navigations to the bridge (the legacy transport's signal).
    final class Navigation: WebEngineDelegate {
        let host: BridgeHost
        init(_ host: BridgeHost) { self.host = host }
        func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
            host.handleNavigation(action) ? .cancel : .allow
        }
    }

    func run() async throws -> BenchReport {
        let provider: any WebEngineProvider = engineName == "blink" ? try BlinkEngineProvider() : try GTKEngineProvider(session: .ephemeral)
        let host = BridgeHost(capabilities: provider.capabilities, modules: [BenchModule()], byteChannelOrigin: provider.byteChannelOrigin)
        var configuration = EngineConfiguration()
        host.configure(&configuration)
        // The floor: a reply handler in the page's world that answers with what it got.
        configuration.messageHandlers.append(ScriptMessageHandler(name: "raw", answer: { message in
            if case .string(let text) = message.body { return .now(.string(text)) }
            return .now(.string(""))
        }))
        // The isolation floor: the same reply handler in the bridge's isolated world, reached from
        // the page through a DOM event relay, as any isolated-world design must (no HybridKit code).
        configuration.messageHandlers.append(ScriptMessageHandler(name: "rawRelay", world: .named(host.options.worldName), answer: { message in
            if case .string(let text) = message.body { return .now(.string(text)) }
            return .now(.string(""))
        }))
        let engine = try provider.makeEngine(configuration)
        defer { engine.close() }
        let navigation = Navigation(host)
        engine.delegate = navigation
        host.attach(engine)
        try await load(engine)
        _ = try await engine.callAsync("await hybrid.ready; window.__big = 'x'.repeat(1 << 20); return null;")
        _ = try await engine.callAsync(Self.relaySource, arguments: [:], in: .named(host.options.worldName))
        _ = try await engine.callAsync(Self.relayClient)

        let n = iterations
        let rawStep = "await window.webkit.messageHandlers.raw.postMessage('')"
        let hybridStep = "await hybrid.call('bench', 'empty')"
        let (raw, hybrid) = try await interleaved(engine, n, rawStep, hybridStep)
        let (rawBig, hybridBig) = try await interleaved(engine, max(100, n / 50),
            "if ((await window.webkit.messageHandlers.raw.postMessage(__big)).length !== __big.length) throw new Error('raw echo')",
            "if ((await hybrid.call('bench', 'echo', __big)).length !== __big.length) throw new Error('echo')")
        let (relay, hybridVsRelay) = try await interleaved(engine, n, "await __relay('')", hybridStep)
        let (rawVsRelay, relayVsRaw) = try await interleaved(engine, n, rawStep, "await __relay('')")
        // The same relay carrying texts the size of an empty call's envelope and reply (the echo of
        // a 110-byte text is 110 bytes back; the reply is 47): what the message sizes alone cost.
        let sized = "await __relay('{\"v\":1,\"id\":123456789,\"module\":\"bench\",\"action\":\"empty\",\"params\":{},\"nonce\":\"' + 'a'.repeat(48) + '\"}')"
        let (relaySized, hybridVsSized) = try await interleaved(engine, n, sized, hybridStep)
        let (rawVsAsync, hybridAsync) = try await interleaved(engine, n, rawStep, "await hybrid.call('bench', 'emptyAsync')")
        let (hybridAgain, url) = try await interleaved(engine, n / 2,
            hybridStep, "await hybrid.call('bench', 'empty', {}, { transport: 'url' })")
        let events = try await eventsPerSecond(engine, host: host, count: 50_000)
        let routerMicroseconds = try routerMicrosecondsPerCall()
        return BenchReport(values: [
            ("raw_rt_ms", raw), ("hybrid_rt_ms", hybrid), ("raw_rt_1mb_ms", rawBig), ("hybrid_rt_1mb_ms", hybridBig),
            ("url_transport_rt_ms", url), ("events_per_s", events), ("isolated_relay_rt_ms", relay),
            ("overhead_ratio", hybrid / raw), ("overhead_ratio_1mb", hybridBig / rawBig), ("url_vs_hybrid_ratio", url / hybridAgain),
            ("overhead_vs_relay_ratio", hybridVsRelay / relay), ("isolation_floor_ratio", relayVsRaw / rawVsRelay),
            ("isolated_relay_sized_rt_ms", relaySized), ("overhead_vs_sized_relay_ratio", hybridVsSized / relaySized),
            ("router_us_per_call", routerMicroseconds), ("router_share_of_overhead", routerMicroseconds / 1000 / (hybridVsRelay - relay)),
            ("hybrid_async_rt_ms", hybridAsync), ("async_overhead_ratio", hybridAsync / rawVsAsync),
            ("iterations", Double(n)),
        ])
    }

    /// Microseconds the native side spends on one empty call as the page sends it: decoding the
    /// envelope, admitting the document and origin, running the immediate action, writing the
    /// reply (a router of its own with the same module, timed in a loop on the main actor).
    private func routerMicrosecondsPerCall() throws -> Double {
        let router = BridgeRouter(modules: [BenchModule()], nonceMode: .issued)
        guard let nonce = router.beginDocument().nonce else { throw HybridError.engine(.resultNotJSON("no nonce issued")) }
        let origin = BridgeOrigin(url: URL(string: "https://bench.hybridkit.invalid/")!)
        let text = #"{"v":1,"id":123456789,"module":"bench","action":"empty","params":{},"nonce":"\#(nonce)"}"#
        guard case .now(.string(let reply)) = router.answer(text, origin: origin), reply.contains(#""ok":true"#) else {
            throw HybridError.engine(.resultNotJSON("the router did not answer the bench call"))
        }
        let count = 200_000
        let start = ContinuousClock.now
        for _ in 0..<count { _ = router.answer(text, origin: origin) }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds / Double(count) * 1e6
    }

    /// In the isolated world: relays a page event to `rawRelay` and its reply back.
    static let relaySource = """
        const handler = window.webkit.messageHandlers.rawRelay;
        document.addEventListener('bench:relay', (e) => handler.postMessage(e.detail)
          .then((reply) => document.dispatchEvent(new CustomEvent('bench:relayed', { detail: reply }))));
        return null;
        """

    /// In the page: `__relay(text)` resolves with the relayed reply.
    static let relayClient = """
        let waiting = null;
        document.addEventListener('bench:relayed', (e) => { const resolve = waiting; waiting = null; resolve(e.detail); });
        window.__relay = (text) => new Promise((resolve) => {
          waiting = resolve;
          document.dispatchEvent(new CustomEvent('bench:relay', { detail: text }));
        });
        return null;
        """

    private func load(_ engine: any WebEngine) async throws {
        let html = "<!doctype html><title>bench</title><body>bench</body>"
        engine.loadHTML(html, baseURL: URL(string: "https://bench.hybridkit.invalid/"))
        let deadline = Date().addingTimeInterval(20)
        while (try? await engine.evaluate("document.readyState === 'complete' && !!window.hybrid", in: .page)) != .bool(true) {
            guard Date() < deadline else { throw HybridError.engine(.loadFailed(url: "bench page", message: "did not load")) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Medians of the mean time of one run of `first` and of `second`, timed inside the page
    /// in alternating groups, so both see the same machine load (this machine is shared).
    ///
    /// `performance.now()` is coarsened to a millisecond on WebKit (no cross-origin isolation), so
    /// each side runs in groups sized, after a warm-up that measures it, to last about 100 ms (the
    /// timer's step is then about 1% of a group), and the medians are taken over at least 15 groups
    /// of each side, and over at least `count` runs of `first`.
    private func interleaved(_ engine: any WebEngine, _ count: Int, _ first: String, _ second: String)
        async throws -> (Double, Double)
    {
        let body = """
            const a = [], b = [];
            const runA = async (n) => { const t0 = performance.now(); for (let j = 0; j < n; j++) { \(first); } return (performance.now() - t0) / n; };
            const runB = async (n) => { const t0 = performance.now(); for (let j = 0; j < n; j++) { \(second); } return (performance.now() - t0) / n; };
            const groupSize = async (run) => {
              for (let n = 1; ; n *= 2) {
                const t = await run(n);
                if (t * n >= 30 || n >= 65536) return Math.max(1, Math.round(100 / Math.max(t, 0.001)));
              }
            };
            const groupA = await groupSize(runA), groupB = await groupSize(runB);
            const rounds = Math.max(15, Math.ceil(count / groupA));
            for (let i = 0; i < rounds; i++) {
              if (i % 2 === 0) { a.push(await runA(groupA)); b.push(await runB(groupB)); }
              else { b.push(await runB(groupB)); a.push(await runA(groupA)); }
            }
            const median = (xs) => { xs.sort((x, y) => x - y); return xs[xs.length >> 1]; };
            return [median(a), median(b)];
            """
        let value = try await engine.callAsync(body, arguments: ["count": .number(Double(count))])
        guard let pair = value.arrayValue, pair.count == 2, let a = pair[0].numberValue, let b = pair[1].numberValue else {
            throw HybridError.engine(.resultNotJSON("\(value)"))
        }
        return (a, b)
    }

    /// Events emitted back to back, counted as the page receives them.
    private func eventsPerSecond(_ engine: any WebEngine, host: BridgeHost, count: Int) async throws -> Double {
        _ = try await engine.evaluate("window.__events = 0; hybrid.on('bench', () => { window.__events++; }); void 0;", in: .page)
        let start = ContinuousClock.now
        for index in 0..<count { try host.emit("bench", index) }
        while (try await engine.evaluate("window.__events", in: .page)).numberValue.map({ Int($0) }) != count {
            try await Task.sleep(for: .microseconds(200))
            guard ContinuousClock.now - start < .seconds(60) else { throw HybridError.engine(.closed) }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(count) / seconds
    }
}
#endif
