import Foundation
import HybridCore

/// `hybrid run --report`'s health section: the events the container recorded for the run's page
/// (through the same ``HealthRecorder`` an app configures), as the report's `health` object:
/// the page's timing, its script errors, the ready mark, white screens, crashes and drops.
final class RunHealth: HealthSink, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [HealthEvent] = []

    /// The recorder to configure the run's view with.
    lazy var recorder = HealthRecorder(sinks: [self])

    func record(_ event: HealthEvent) { lock.withLock { events.append(event) } }

    /// Waits, at most `seconds`, until the page's timing has been recorded: the capture sends it a
    /// moment after the load and first paint, so a run that ends at the load would otherwise miss it.
    @MainActor func waitForTiming(seconds: Double) async {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !lock.withLock({ events.contains { if case .pageTiming = $0.kind { true } else { false } } }) {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// `{release, engine, launches, timing, ready_ms, errors, white_screens, terminations, dropped}`.
    func report() -> JSONValue {
        let events = lock.withLock { self.events }
        var object: [String: JSONValue] = ["launches": .number(Double(events.filter { $0.name == "hybridkit.page.launch" }.count))]
        var errors: [JSONValue] = [], whiteScreens: [JSONValue] = [], terminations: [JSONValue] = [], dropped = 0
        if let first = events.first {
            object["release"] = .string(first.context.release)
            object["engine"] = .string(first.context.engine)
        }
        func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        for event in events {
            switch event.kind {
            case .pageTiming(let timing):
                object["timing"] = .object([
                    "response_start_ms": number(timing.responseStart), "dom_content_loaded_ms": number(timing.domContentLoaded),
                    "load_ms": number(timing.load), "first_paint_ms": number(timing.firstPaint),
                    "first_contentful_paint_ms": number(timing.firstContentfulPaint),
                ])
            case .ready(let milliseconds):
                object["ready_ms"] = .number(milliseconds)
            case .scriptError(let report):
                errors.append(.object([
                    "type": .string(report.type), "message": .string(report.message), "source": text(report.source),
                    "line": number(report.line.map(Double.init)), "column": number(report.column.map(Double.init)),
                    "origin": text(report.origin),
                ]))
            case .whiteScreen(let reason, let recovery):
                whiteScreens.append(.object(["reason": .string(reason), "recovery": .string(recovery)]))
            case .processTerminated(let reason):
                terminations.append(.string(reason))
            case .dropped(let count):
                dropped += count
            default:
                break
            }
        }
        object["errors"] = .array(errors)
        object["white_screens"] = .array(whiteScreens)
        object["terminations"] = .array(terminations)
        object["dropped"] = .number(Double(dropped))
        return .object(object)
    }
}
