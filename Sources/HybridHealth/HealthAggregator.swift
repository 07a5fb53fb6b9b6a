import Foundation
import HybridBase

/// A ``HealthSink`` that keeps a running summary per release in memory: launches, ready rate,
/// crash-free rate, white-screen rate, script errors per launch and first contentful paint
/// percentiles — what EAS Update or a mini-program console shows per release, computed on the
/// device. Memory is bounded: per release, counters and at most ``maxSamples`` paint times.
public final class HealthAggregator: HealthSink {
    /// One release's figures.
    public struct ReleaseSummary: Sendable, Equatable {
        /// `id@version`, or `network`.
        public var release: String
        /// Page loads started.
        public var launches: Int
        /// Launches that said `ready`, over launches (0 with no launches).
        public var readyRate: Double
        /// Launches whose content process never died, over launches.
        public var crashFreeRate: Double
        /// Launches that went white at least once, over launches.
        public var whiteScreenRate: Double
        /// Script errors recorded (after de-duplication), over launches.
        public var scriptErrorsPerLaunch: Double
        /// First contentful paint, milliseconds: 50th, 90th and 99th percentile (`nil` with no samples).
        public var fcpP50: Double?
        /// The 90th percentile.
        public var fcpP90: Double?
        /// The 99th percentile.
        public var fcpP99: Double?
        /// Events the recorder left out (rate limits), reported as `dropped`.
        public var dropped: Int
    }

    private struct Tally {
        package var launches: Set<String> = []
        package var ready: Set<String> = []
        package var crashed: Set<String> = []
        package var white: Set<String> = []
        package var launchCount = 0
        package var errors = 0
        package var dropped = 0
        var paints: [Double] = []
    }

    /// Paint samples kept per release (the oldest are replaced beyond it).
    public let maxSamples: Int
    private let tallies = LockedState<[String: Tally]>([:])

    /// An empty aggregator.
    public init(maxSamples: Int = 10_000) { self.maxSamples = max(1, maxSamples) }

    /// Counts `event` in its release.
    public func record(_ event: HealthEvent) {
        let launch = event.context.launchID ?? ""
        let maxSamples = maxSamples
        tallies.withLock { tallies in
            var tally = tallies[event.context.release] ?? Tally()
            switch event.kind {
            case .launch:
                tally.launchCount += 1
                // Per-launch sets stay bounded: once full, outcomes are still counted, by id, approximately.
                if tally.launches.count < 100_000 { tally.launches.insert(launch) }
            case .ready: tally.ready.insert(launch)
            case .processTerminated: tally.crashed.insert(launch)
            case .whiteScreen: tally.white.insert(launch)
            case .scriptError: tally.errors += 1
            case .dropped(let count): tally.dropped += count
            case .pageTiming(let timing):
                if let paint = timing.firstContentfulPaint {
                    if tally.paints.count < maxSamples { tally.paints.append(paint) } else { tally.paints[tally.launchCount % maxSamples] = paint }
                }
            default: break
            }
            tallies[event.context.release] = tally
        }
    }

    /// Every release seen, by name.
    public var summaries: [ReleaseSummary] {
        tallies.withLock { tallies in
            tallies.keys.sorted().map { release in Self.summarize(release, tallies[release]!) }
        }
    }

    /// The summary of `events`, as an aggregator that had recorded them would give it.
    public static func summarize(_ events: [HealthEvent]) -> [ReleaseSummary] {
        let aggregator = HealthAggregator()
        for event in events { aggregator.record(event) }
        return aggregator.summaries
    }

    private static func summarize(_ release: String, _ tally: Tally) -> ReleaseSummary {
        let launches = tally.launchCount
        func rate(_ count: Int) -> Double { launches == 0 ? 0 : Double(count) / Double(launches) }
        let known = tally.launches
        let paints = tally.paints.sorted()
        return ReleaseSummary(
            release: release, launches: launches,
            readyRate: rate(tally.ready.intersection(known).count),
            crashFreeRate: launches == 0 ? 0 : 1 - rate(tally.crashed.intersection(known).count),
            whiteScreenRate: rate(tally.white.intersection(known).count),
            scriptErrorsPerLaunch: rate(tally.errors),
            fcpP50: percentile(paints, 0.50), fcpP90: percentile(paints, 0.90), fcpP99: percentile(paints, 0.99),
            dropped: tally.dropped)
    }

    /// The nearest-rank percentile of sorted `values`.
    package static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let rank = Int((p * Double(values.count)).rounded(.up))
        return values[min(max(rank, 1), values.count) - 1]
    }

    /// A table of `summaries`, one release per row (what `hybrid health FILE` prints).
    public static func table(_ summaries: [ReleaseSummary]) -> String {
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        func ms(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "-" }
        let header = ["RELEASE", "LAUNCHES", "READY", "CRASH-FREE", "WHITE", "ERRORS/LAUNCH", "FCP P50", "P90", "P99", "DROPPED"]
        let rows = summaries.map {
            [$0.release, String($0.launches), percent($0.readyRate), percent($0.crashFreeRate), percent($0.whiteScreenRate),
             String(format: "%.2f", $0.scriptErrorsPerLaunch), ms($0.fcpP50), ms($0.fcpP90), ms($0.fcpP99), String($0.dropped)]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
