import Foundation
import HybridBase

/// Where recorded health events go: a file a collector ships (``HealthLogFile``), an in-memory
/// summary (``HealthAggregator``), or the app's own analytics. Called on any thread, one event at
/// a time, after privacy, sampling and rate limits have been applied.
public protocol HealthSink: Sendable {
    /// Takes one event.
    func record(_ event: HealthEvent)
}

/// The front door of health recording: applies the app's privacy and sampling choices, bounds
/// what a misbehaving page can produce, and hands each event to every sink.
///
/// - **Privacy by default**: query strings and fragments are stripped from every URL unless
///   ``Options/keepsQueryStrings``; no page content is ever recorded.
/// - **Sampling** per launch (``Options/sampleRate``), stable by launch id, so a launch's events
///   are kept or dropped together.
/// - **Bounded**: a launch's script errors are de-duplicated (same type, message, source, line
///   and column) and capped (``Options/maxScriptErrorsPerLaunch``); what is left out is counted
///   and reported once as ``HealthEvent/Kind/dropped(count:)`` when the launch ends. At most
///   ``Options/maxOpenLaunches`` launches are tracked at once.
public final class HealthRecorder: Sendable {
    /// The app's choices.
    public struct Options: Sendable, Equatable {
        /// Keep query strings and fragments in URLs (default `false`: they often carry tokens).
        public var keepsQueryStrings: Bool
        /// The share of launches recorded, 0–1 (default 1).
        public var sampleRate: Double
        /// Distinct script errors recorded per launch; the rest are counted as dropped.
        public var maxScriptErrorsPerLaunch: Int
        /// Launches tracked at once; the oldest is ended (its drops reported) beyond it.
        public var maxOpenLaunches: Int
        /// Origins (`https://pay.example.com`, scheme, host and port as `location.origin` gives
        /// them) whose frames' script errors are recorded in full inside a page of another origin.
        /// Default empty: an error of a frame whose origin is not the launch page's is recorded as
        /// the engine shows it to that page, `Script error.` with no source, line, column or
        /// stack, so a foreign frame's message (which may hold its user's data) never reaches a
        /// report. An error whose frame origin is unknown is recorded as given.
        public var fullErrorOrigins: Set<String>

        /// Options.
        public init(keepsQueryStrings: Bool = false, sampleRate: Double = 1, maxScriptErrorsPerLaunch: Int = 25,
                    maxOpenLaunches: Int = 64, fullErrorOrigins: Set<String> = []) {
            self.fullErrorOrigins = Set(fullErrorOrigins.map { $0.lowercased() })
            self.keepsQueryStrings = keepsQueryStrings
            self.sampleRate = min(max(sampleRate, 0), 1)
            self.maxScriptErrorsPerLaunch = max(0, maxScriptErrorsPerLaunch)
            self.maxOpenLaunches = max(1, maxOpenLaunches)
        }
    }

    private struct Launch {
        package var context: HealthContext
        package var errors: Set<ScriptErrorReport> = []
        package var dropped = 0
        package var order: Int
    }

    private struct State {
        package var launches: [String: Launch] = [:]
        var nextOrder = 0
        var droppedOutsideLaunches = 0
    }

    /// The app's choices.
    public let options: Options
    private let sinks: [any HealthSink]
    private let state = LockedState(State())

    /// A recorder handing events to `sinks`.
    public init(options: Options = Options(), sinks: [any HealthSink]) {
        self.options = options
        self.sinks = sinks
    }

    /// Records `event` (after privacy, sampling and limits). A `launch` event opens a launch;
    /// ``endLaunch(_:)`` closes it.
    public func record(_ event: HealthEvent) {
        var event = event
        event.context.url = event.context.url.map(redact)
        if case .scriptError(var report) = event.kind {
            if isForeign(report.origin, page: event.context.url) { report = Self.crossOrigin(report) }
            report.source = report.source.map(redact)
            report.message = String(report.message.prefix(1_000))
            report.stack = report.stack.map { String($0.prefix(4_000)) }
            event.kind = .scriptError(report)
        }
        guard isSampled(event.context.launchID) else { return }
        var deliver: [HealthEvent] = []
        state.withLock { state in
            switch event.kind {
            case .launch:
                guard let id = event.context.launchID else { break }
                if state.launches[id] == nil, state.launches.count >= options.maxOpenLaunches,
                   let oldest = state.launches.min(by: { $0.value.order < $1.value.order })?.key {
                    deliver += Self.close(oldest, in: &state)
                }
                state.launches[id] = Launch(context: event.context, order: state.nextOrder)
                state.nextOrder += 1
                deliver.append(event)
            case .scriptError(let report):
                guard let id = event.context.launchID, var launch = state.launches[id] else {
                    // Errors outside a known launch are kept, but never more than the per-launch cap.
                    if state.droppedOutsideLaunches < options.maxScriptErrorsPerLaunch {
                        state.droppedOutsideLaunches += 1
                        deliver.append(event)
                    }
                    return
                }
                if launch.errors.contains(report) || launch.errors.count >= options.maxScriptErrorsPerLaunch {
                    launch.dropped += 1
                } else {
                    launch.errors.insert(report)
                    deliver.append(event)
                }
                state.launches[id] = launch
            case .dropped(let count):
                // Drops the page side counted (it de-duplicates before sending) join this launch's.
                if let id = event.context.launchID, state.launches[id] != nil {
                    state.launches[id]?.dropped += count
                } else {
                    deliver.append(event)
                }
            default:
                deliver.append(event)
            }
        }
        send(deliver)
    }

    /// Whether `origin` (the frame's that threw) is neither the page's nor one the app listed.
    private func isForeign(_ origin: String?, page: String?) -> Bool {
        guard let origin = origin?.lowercased(), let page, let url = URL(string: page) else { return false }
        return origin != Self.origin(of: url) && !options.fullErrorOrigins.contains(origin)
    }

    /// `scheme://host[:port]` of `url`, as `location.origin` spells it.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// `report` as a page sees a foreign frame's error: `Script error.`, nothing else but its type and origin.
    static func crossOrigin(_ report: ScriptErrorReport) -> ScriptErrorReport {
        ScriptErrorReport(type: report.type, message: "Script error.", origin: report.origin)
    }

    /// Ends the launch `id`: its dropped count, if any, is recorded now.
    public func endLaunch(_ id: String) {
        send(state.withLock { Self.close(id, in: &$0) })
    }

    /// The launches being tracked now (bounded by ``Options/maxOpenLaunches``).
    public var openLaunches: Int { state.withLock { $0.launches.count } }

    private static func close(_ id: String, in state: inout State) -> [HealthEvent] {
        guard let launch = state.launches.removeValue(forKey: id), launch.dropped > 0 else { return [] }
        return [HealthEvent(.dropped(count: launch.dropped), context: launch.context)]
    }

    private func send(_ events: [HealthEvent]) {
        for event in events {
            for sink in sinks { sink.record(event) }
        }
    }

    /// Whether a launch is in the sample: a stable hash of its id against the rate, so all of a
    /// launch's events go together. Events of no launch (updates, rollbacks) are always kept.
    private func isSampled(_ launchID: String?) -> Bool {
        guard options.sampleRate < 1 else { return true }
        guard let launchID else { return true }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in launchID.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Double(hash % 10_000) / 10_000 < options.sampleRate
    }

    /// `url` without query and fragment, unless the app keeps them.
    func redact(_ url: String) -> String {
        guard !options.keepsQueryStrings else { return url }
        guard let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<cut])
    }
}
