import Foundation

/// The metrics a window of health events adds up to, in OpenTelemetry's metrics data model: what
/// ``OTLPExporter`` sends to the collector's metrics endpoint beside the events themselves, so a
/// dashboard gets rates and percentiles without reading every log record.
///
/// - `hybridkit.events` — a monotonic delta **Sum** of events (unit `{event}`), one data point per
///   `event.name` and release.
/// - `hybridkit.page.first_contentful_paint`, `hybridkit.page.ready_time`,
///   `hybridkit.package.update.duration` — delta **Histograms** in milliseconds (``bounds``), one data
///   point per release.
///
/// A release is the attributes `hybridkit.package.id`, `hybridkit.package.version` and
/// `hybridkit.engine` (the names the log records use). Each window starts where the last one ended.
struct OTLPMetrics: Sendable {
    /// The histograms' explicit bucket bounds, in milliseconds.
    static let bounds: [Double] = [50, 100, 250, 500, 1000, 2500, 5000, 10000]

    /// What a data point is about.
    struct Release: Hashable, Sendable {
        var packageID: String?
        var packageVersion: Int?
        var engine: String

        init(_ context: HealthContext) {
            packageID = context.packageID
            packageVersion = context.packageVersion
            engine = context.engine
        }

        var attributes: [OTLPAttribute] {
            var out: [OTLPAttribute] = []
            if let packageID { out.append(OTLPAttribute("hybridkit.package.id", .string(packageID))) }
            if let packageVersion { out.append(OTLPAttribute("hybridkit.package.version", .int(packageVersion))) }
            out.append(OTLPAttribute("hybridkit.engine", .string(engine)))
            return out
        }
    }

    /// One histogram data point.
    struct Histogram: Sendable {
        var buckets = [UInt64](repeating: 0, count: OTLPMetrics.bounds.count + 1)
        var count: UInt64 = 0
        var sum = 0.0
        var min = Double.infinity
        var max = -Double.infinity

        mutating func add(_ value: Double) {
            guard value.isFinite else { return }
            buckets[OTLPMetrics.bounds.firstIndex { value <= $0 } ?? OTLPMetrics.bounds.count] += 1
            count += 1
            sum += value
            min = Swift.min(min, value)
            max = Swift.max(max, value)
        }
    }

    /// The histograms' names, in the order they are sent.
    static let histogramNames = ["hybridkit.page.first_contentful_paint", "hybridkit.page.ready_time", "hybridkit.package.update.duration"]

    /// When the window started and its last event (Unix nanoseconds).
    var start: UInt64
    var end: UInt64
    /// Events per release and name.
    var counts: [Release: [String: UInt64]] = [:]
    /// Histograms per name and release.
    var histograms: [String: [Release: Histogram]] = [:]

    /// An empty window starting at `start`.
    init(start: UInt64) {
        self.start = start
        end = start
    }

    /// Whether the window holds nothing.
    var isEmpty: Bool { counts.isEmpty }

    /// Adds `event` to the window.
    mutating func add(_ event: HealthEvent) {
        let release = Release(event.context)
        end = Swift.max(end, unixNanos(event.time))
        counts[release, default: [:]][event.name, default: 0] += 1
        switch event.kind {
        case .pageTiming(let timing):
            if let fcp = timing.firstContentfulPaint { histograms[Self.histogramNames[0], default: [:]][release, default: Histogram()].add(fcp) }
        case .ready(let milliseconds):
            histograms[Self.histogramNames[1], default: [:]][release, default: Histogram()].add(milliseconds)
        case .update(_, _, let milliseconds):
            histograms[Self.histogramNames[2], default: [:]][release, default: Histogram()].add(milliseconds)
        default:
            break
        }
    }
}
