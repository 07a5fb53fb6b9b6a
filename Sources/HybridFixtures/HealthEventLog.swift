import Foundation
import HybridCore

/// A health sink that keeps every event it is handed, in order, for tests to read.
public final class HealthEventLog: HealthSink, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [HealthEvent] = []

    /// An empty log.
    public init() {}

    /// Keeps `event`.
    public func record(_ event: HealthEvent) { lock.withLock { events.append(event) } }

    /// Every event so far, in order.
    public var all: [HealthEvent] { lock.withLock { events } }
    /// Their names (`hybridkit.page.launch`, …), in order.
    public var names: [String] { all.map(\.name) }
    /// The script errors recorded.
    public var errors: [ScriptErrorReport] {
        all.compactMap { if case .scriptError(let report) = $0.kind { report } else { nil } }
    }
    /// The page timings recorded.
    public var timings: [PageTiming] { all.compactMap { if case .pageTiming(let timing) = $0.kind { timing } else { nil } } }
    /// The sources of the launches recorded.
    public var launches: [HealthEvent.PageSource] {
        all.compactMap { if case .launch(let source) = $0.kind { source } else { nil } }
    }
    /// Whether a ready mark was recorded.
    public var hasReady: Bool { all.contains { if case .ready = $0.kind { true } else { false } } }
    /// The sum of the dropped counts recorded.
    public var dropped: Int { all.reduce(0) { if case .dropped(let count) = $1.kind { $0 + count } else { $0 } } }
}
