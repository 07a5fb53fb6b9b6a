import Foundation
import HybridCore

/// `hybrid bench bridge`: the bridge against the engine's own floor, in one process, one page.
enum BridgeBenchSuite: BenchSuite {
    static let name = "bridge"
    static let keys = """
        Loads one page in a real engine view and measures, as medians over groups of round trips (each
        about 100 ms, at least 15 per side, at least N calls: default 10000, at least 500); the two sides
        of each ratio alternate, so both see the same load:
        raw_rt_ms          postMessage-with-reply with no HybridKit code on either side (the floor):
                           a handler answering inside the engine's callback
        hybrid_rt_ms       an empty hybrid.call through the runtime, transport, router and a module's
                           immediate action (answered inside the engine's callback, no task)
        hybrid_async_rt_ms the same call to an async action (a task per call; it does not suspend)
        raw_rt_1mb_ms, hybrid_rt_1mb_ms   the same with a 1 MiB string echoed back
        url_transport_rt_ms  the legacy URL-interception transport (hidden iframe + queue)
        events_per_s       native→page events delivered (container.emit → hybrid.on)
        isolated_relay_rt_ms the isolation floor: page → isolated world by DOM event → the same bare
                           reply handler → back by DOM event (what any isolated-world bridge pays)
        overhead_ratio, overhead_ratio_1mb, url_vs_hybrid_ratio, overhead_vs_relay_ratio,
        async_overhead_ratio (hybrid_async / raw, from hybrid_async_rt_ms and its own interleaved raw)
        isolation_floor_ratio the relay over the raw handler, the two timed against each other: what any
                           bridge keeping its handler in an isolated world pays before code of its own
        isolated_relay_sized_rt_ms the same relay carrying an empty call's envelope as text (echoed back), so
                           overhead_vs_sized_relay_ratio leaves out what the message sizes cost
        router_us_per_call the native part of an empty call (decode, admit, run, write the reply), timed in a
                           loop outside the engine; router_share_of_overhead: its share of hybrid minus relay
        """

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        try await BridgeBenchmark(iterations: max(500, options.iterations ?? 10_000), engine: options.engine).run()
    }
}
