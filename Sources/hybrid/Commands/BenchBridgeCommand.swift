import Foundation
import HybridCore

/// `hybrid bench bridge`: the bridge against the engine's own floor, in one process, one page.
enum BridgeBenchSuite: BenchSuite {
    static let name = "bridge"
    static let keys = """
        Loads one page in a real engine view and measures, as medians of N round trips (default 1000):
        raw_rt_ms          postMessage-with-reply with no HybridKit code on either side (the floor)
        hybrid_rt_ms       an empty hybrid.call through the runtime, transport, router and a module
        raw_rt_1mb_ms, hybrid_rt_1mb_ms   the same with a 1 MiB string echoed back
        url_transport_rt_ms  the legacy URL-interception transport (hidden iframe + queue)
        events_per_s       native→page events delivered (container.emit → hybrid.on)
        overhead_ratio, overhead_ratio_1mb, url_vs_hybrid_ratio
        """

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        try await BridgeBenchmark(iterations: options.iterations ?? 1000).run()
    }
}
