import Foundation

/// One navigation's progress as the user sees it.
public struct LoadProgress: Sendable, Equatable, CustomStringConvertible {
    /// Counts navigations of one view, from 1; `0` before the first.
    public var navigation: Int
    /// 0...1, never decreasing within a navigation.
    public var fraction: Double
    /// The navigation has ended (finished, failed or stopped); `fraction` is then exactly 1.
    public var isComplete: Bool

    /// A progress value of navigation `navigation`.
    public init(navigation: Int, fraction: Double, isComplete: Bool) {
        self.navigation = navigation
        self.fraction = fraction
        self.isComplete = isComplete
    }

    /// Before any navigation.
    public static let initial = LoadProgress(navigation: 0, fraction: 0, isComplete: true)
    /// `#navigation fraction`, with ` done` once complete (`#2 0.800`, `#2 1.000 done`).
    public var description: String { "#\(navigation) \(String(format: "%.3f", fraction))\(isComplete ? " done" : "")" }
}

/// The progress bar's value: the engine's estimate raised by a "virtual" curve that moves fast
/// to ``Options/virtualTarget``, creeps towards ``Options/waitingCeiling`` while the page is
/// still loading, and runs to 1 quickly when the load ends.
///
/// Pure policy with no clock of its own: every input carries `now` (seconds on any monotonic
/// scale), so tests drive it with a clock they control. Each input returns the new value when it
/// changed, `nil` otherwise. Guarantees, per navigation: the fraction never decreases, and a
/// value with fraction 1 (``LoadProgress/isComplete``) is produced exactly once.
///
/// A navigation that starts while another is running (a redirect chain, a superseding load)
/// continues the running one — the bar does not jump back. A cancelled load completes after
/// ``Options/cancelGrace`` unless a new load starts within it (the engine cancels the old load
/// just before the new one starts). Same-document navigations never start one.
public struct ProgressModel: Sendable {
    /// The shape of the curve; the initializer clamps each value to a sensible range.
    public struct Options: Sendable, Equatable {
        /// Where the virtual curve heads quickly (0.7–0.9 reads well).
        public var virtualTarget: Double
        /// Time constant of the fast phase: ~63 % of the target after this many seconds.
        public var virtualTimeConstant: Double
        /// The value a load that is taking long creeps towards and never passes before it ends.
        public var waitingCeiling: Double
        /// How long the run to 1 takes once the load ends (0 = jump).
        public var finishDuration: Double
        /// How long a cancelled load waits for a successor before it completes.
        public var cancelGrace: Double

        /// Options with the defaults: target 0.8 in ~0.35 s, ceiling 0.9, a 0.15 s finish and a 0.1 s
        /// grace for cancelled loads.
        public init(virtualTarget: Double = 0.8, virtualTimeConstant: Double = 0.35, waitingCeiling: Double = 0.9,
                    finishDuration: Double = 0.15, cancelGrace: Double = 0.1) {
            self.virtualTarget = min(max(virtualTarget, 0), 0.95)
            self.virtualTimeConstant = max(virtualTimeConstant, 0.001)
            self.waitingCeiling = min(max(waitingCeiling, self.virtualTarget), 0.99)
            self.finishDuration = max(finishDuration, 0)
            self.cancelGrace = max(cancelGrace, 0)
        }
    }

    private enum Phase: Sendable, Equatable {
        case idle
        case loading(since: Double)
        case cancelled(loadingSince: Double, completeAt: Double)
        case finishing(from: Double, since: Double)
    }

    /// The options the model was made with.
    public let options: Options
    /// The progress now.
    public private(set) var value: LoadProgress = .initial
    private var phase: Phase = .idle

    /// A model at ``LoadProgress/initial``.
    public init(options: Options = Options()) { self.options = options }

    /// Whether ``tick(at:)`` should be called (about once a frame) to move the value.
    public var needsTicks: Bool { phase != .idle }
    /// A navigation is running.
    public var isRunning: Bool { phase != .idle }

    /// A load started (including one that continues a running navigation).
    public mutating func start(at now: Double) -> LoadProgress? {
        switch phase {
        case .idle:
            phase = .loading(since: now)
            return set(LoadProgress(navigation: value.navigation + 1, fraction: 0, isComplete: false))
        case .loading:
            return nil
        case .cancelled(let since, _):
            phase = .loading(since: since)
            return nil
        case .finishing:
            // A new load while the bar runs out: it continues this navigation from where it is.
            phase = .loading(since: now - timeToReach(value.fraction))
            return nil
        }
    }

    /// The engine's estimate (0...1). Held below 1 until the load ends.
    public mutating func engineProgress(_ fraction: Double, at now: Double) -> LoadProgress? {
        guard case .loading = phase, fraction.isFinite else { return nil }
        return raise(to: min(fraction, 0.99))
    }

    /// The load finished: run to 1.
    public mutating func finish(at now: Double) -> LoadProgress? {
        switch phase {
        case .idle: return nil
        case .finishing: return tick(at: now)
        case .loading, .cancelled:
            phase = .finishing(from: value.fraction, since: now)
            return tick(at: now)
        }
    }

    /// The load failed. A cancellation waits ``Options/cancelGrace`` for a successor; any other
    /// failure ends the navigation like a finish.
    public mutating func fail(cancelled: Bool, at now: Double) -> LoadProgress? {
        guard cancelled else { return finish(at: now) }
        if case .loading(let since) = phase {
            phase = .cancelled(loadingSince: since, completeAt: now + options.cancelGrace)
        }
        return tick(at: now)
    }

    /// Moves the virtual curve and any run to 1 forward to `now`.
    public mutating func tick(at now: Double) -> LoadProgress? {
        switch phase {
        case .idle:
            return nil
        case .loading(let since):
            return raise(to: virtualFraction(elapsed: now - since))
        case .cancelled(_, let completeAt):
            guard now >= completeAt else { return nil }
            phase = .finishing(from: value.fraction, since: now)
            return tick(at: now)
        case .finishing(let from, let since):
            let done = options.finishDuration == 0 ? 1 : min(1, (now - since) / options.finishDuration)
            if done >= 1 {
                phase = .idle
                return set(LoadProgress(navigation: value.navigation, fraction: 1, isComplete: true))
            }
            return raise(to: min(from + (1 - from) * done, 0.999))
        }
    }

    /// The virtual curve: fast towards the target, then a slow creep towards the ceiling.
    func virtualFraction(elapsed: Double) -> Double {
        let t = max(elapsed, 0)
        let fast = options.virtualTarget * (1 - exp(-t / options.virtualTimeConstant))
        let settled = 3 * options.virtualTimeConstant
        guard t > settled else { return fast }
        let headroom = options.waitingCeiling - fast
        return fast + headroom * (1 - exp(-(t - settled) / 10))
    }

    /// The time on the fast curve at which it shows `fraction` (to resume it without a jump).
    private func timeToReach(_ fraction: Double) -> Double {
        let ratio = min(fraction / options.virtualTarget, 0.999)
        return -options.virtualTimeConstant * log(1 - ratio)
    }

    private mutating func raise(to fraction: Double) -> LoadProgress? {
        guard fraction > value.fraction + 0.0005 else { return nil }
        return set(LoadProgress(navigation: value.navigation, fraction: fraction, isComplete: false))
    }

    private mutating func set(_ new: LoadProgress) -> LoadProgress? {
        guard new != value else { return nil }
        value = new
        return new
    }
}
