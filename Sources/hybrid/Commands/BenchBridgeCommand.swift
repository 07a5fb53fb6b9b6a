import Foundation
import HybridCore
#if os(Linux)
import HybridGTK
#endif

/// `hybrid bench bridge`: the bridge against the engine's own floor, in one process, one page.
enum BenchBridgeCommand: HybridCommand {
    static let name = "bench"
    static let summary = "Measure a subsystem against the engine's floor (suites: bridge)"
    static let usage = """
        USAGE: hybrid bench bridge [--json] [--iterations N]

        Loads one page in a real engine view and measures, as medians of N round trips:
          raw_rt_ms          postMessage-with-reply with no HybridKit code on either side (the floor)
          hybrid_rt_ms       an empty hybrid.call through the runtime, transport, router and a module
          raw_rt_1mb_ms, hybrid_rt_1mb_ms   the same with a 1 MiB string echoed back
          url_transport_rt_ms  the legacy URL-interception transport (hidden iframe + queue)
          events_per_s       native→page events delivered (container.emit → hybrid.on)
        and the ratios overhead_ratio, overhead_ratio_1mb, url_vs_hybrid_ratio.
        With --json the last line of standard output is one JSON object with these keys.
        Needs a display (run under xvfb-run -a).
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let json = arguments.flag("--json")
        let iterations = try arguments.int("--iterations") ?? 1000
        let suites = try arguments.finish(maxPositionals: 1)
        guard suites == ["bridge"] else {
            throw Arguments.Error.invalid(option: "SUITE", value: suites.first ?? "(none)", expected: "bridge")
        }
        guard iterations >= 10 else { throw Arguments.Error.invalid(option: "--iterations", value: "\(iterations)", expected: "at least 10") }
        #if os(Linux)
        let report = try GLibMainLoop.run { try await BridgeBenchmark(iterations: iterations).run() }
        print(report.table)
        if json { print(report.json.jsonText) }
        return 0
        #else
        FileHandle.standardError.write(Data("hybrid bench bridge: needs the WebKitGTK engine (Linux)\n".utf8))
        return 1
        #endif
    }
}

/// What `hybrid bench bridge` measured.
struct BridgeBenchReport: Sendable {
    var values: [(key: String, value: Double)]

    var json: JSONValue {
        .object(Dictionary(uniqueKeysWithValues: values.map { ($0.key, .number(($0.value * 10_000).rounded() / 10_000)) }))
    }

    var table: String {
        values.map { "\($0.key.padding(toLength: 22, withPad: " ", startingAt: 0)) \(String(format: "%.4f", $0.value))" }
            .joined(separator: "\n")
    }
}
