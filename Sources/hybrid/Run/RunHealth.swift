import Foundation
import HybridCore

/// `hybrid run --report`'s health section: the events the container recorded for the run's page
/// (through the same ``HealthRecorder`` an app configures), as the report's `health` object:
/// the page's timing, its script errors, the ready mark, white screens, crashes and drops.
final class RunHealth: HealthSink, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [HealthEvent] = []
    private var rollbacks: [PackageRollback] = []

    /// The recorder to configure the run's view with.
    lazy var recorder = HealthRecorder(sinks: [self])

    /// Called with each script error of the page as it is recorded (`--watch` prints them).
    let onScriptError: (@Sendable (ScriptErrorReport) -> Void)?

    /// A sink; `onScriptError` hears each of the page's script errors at once.
    init(onScriptError: (@Sendable (ScriptErrorReport) -> Void)? = nil) { self.onScriptError = onScriptError }

    func record(_ event: HealthEvent) {
        lock.withLock { events.append(event) }
        if case .scriptError(let report) = event.kind { onScriptError?(report) }
    }

    /// Boot health rolled a version back during the run (the view's delegate call).
    func rolledBack(_ rollback: PackageRollback) { lock.withLock { rollbacks.append(rollback) } }

    /// Waits, at most `seconds`, until the page's timing has been recorded: the capture sends it a
    /// moment after the load and first paint, so a run that ends at the load would otherwise miss it.
    @MainActor func waitForTiming(seconds: Double) async {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !lock.withLock({ events.contains { if case .pageTiming = $0.kind { true } else { false } } }) {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Waits for the count of errors the page's capture folded (it posts it a second after the
    /// first error past its limit), when the page reported errors at all.
    @MainActor func waitForFoldedErrors() async {
        let erred = lock.withLock { events.contains { if case .scriptError = $0.kind { true } else { false } } }
        guard erred else { return }
        try? await Task.sleep(nanoseconds: 1_200_000_000)
    }

    /// `{release, engine, launches, releases, rollbacks, timing, ready_ms, errors, white_screens,
    /// terminations, dropped}`: `release` is the version that ran last (after a rollback, the one
    /// rolled back to); `releases` attributes each launch and ready mark to the version it ran.
    func report() -> JSONValue {
        let (events, rollbacks) = lock.withLock { (self.events, self.rollbacks) }
        let launches = events.filter { if case .launch = $0.kind { true } else { false } }
        var object: [String: JSONValue] = ["launches": .number(Double(launches.count))]
        var errors: [JSONValue] = [], whiteScreens: [JSONValue] = [], terminations: [JSONValue] = [], dropped = 0
        if let last = launches.last ?? events.last {
            object["release"] = .string(last.context.release)
            object["engine"] = .string(last.context.engine)
        }
        var releases: [(release: String, launches: Int, readyMs: Double?)] = []
        for event in events {
            let release = event.context.release
            let index = releases.firstIndex { $0.release == release } ?? {
                releases.append((release, 0, nil))
                return releases.count - 1
            }()
            switch event.kind {
            case .launch: releases[index].launches += 1
            case .ready(let milliseconds): releases[index].readyMs = milliseconds
            default: break
            }
        }
        object["releases"] = .array(releases.filter { $0.launches > 0 || $0.readyMs != nil }.map {
            .object(["release": .string($0.release), "launches": .number(Double($0.launches)),
                     "ready_ms": $0.readyMs.map { .number($0) } ?? .null])
        })
        object["rollbacks"] = .array(rollbacks.map {
            .object(["package": .string($0.id), "from": .number(Double($0.from)), "to": .number(Double($0.to)),
                     "reason": .string($0.reason.code), "message": .string($0.reason.sentence)])
        })
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
