import Foundation

/// Which views a ``WebViewPool`` keeps, hands out and retires. Pure policy.
public struct WebViewPoolPolicy: Sendable, Equatable {
    /// Warm views the pool keeps ready.
    public var capacity: Int
    /// A view is handed out at most this many times; then it is retired and replaced.
    public var maximumReuse: Int
    /// How long a liveness probe may take before a pooled view counts as unresponsive (seconds).
    public var probeTimeout: Double

    /// A policy; by default two warm views, each handed out at most 20 times, probed for 0.5 s.
    public init(capacity: Int = 2, maximumReuse: Int = 20, probeTimeout: Double = 0.5) {
        self.capacity = max(0, capacity)
        self.maximumReuse = max(1, maximumReuse)
        self.probeTimeout = max(0.01, probeTimeout)
    }

    /// What the pool knows about a view.
    public struct Candidate: Sendable, Equatable {
        /// Its content process is running.
        public var isAlive: Bool
        /// Times it has been handed out.
        public var uses: Int
        /// It showed a page (so it has history, session storage and other state of that page).
        public var wasNavigated: Bool

        /// What the pool knows about one view.
        public init(isAlive: Bool, uses: Int, wasNavigated: Bool) {
            self.isAlive = isAlive
            self.uses = uses
            self.wasNavigated = wasNavigated
        }
    }

    /// Why a view left the pool for good.
    public enum Retirement: String, Sendable, Equatable {
        /// Its content process died.
        case dead
        /// It did not answer a liveness probe.
        case unresponsive
        /// It reached ``maximumReuse``.
        case reuseLimit = "reuse_limit"
        /// It showed a page. Clearing history would not be enough to make it traceless (session
        /// storage, the page cache, a process the page warmed up), so no engine reuses it.
        case history
        /// The pool already holds ``capacity`` views.
        case poolFull = "pool_full"
        /// The app signalled memory pressure.
        case memoryPressure = "memory_pressure"
    }

    /// What happens to a view the app gives back.
    public enum Fate: Sendable, Equatable {
        /// Clean it and keep it warm.
        case keep
        /// Close it; the pool warms a fresh view in its place when below capacity.
        case retire(Retirement)
    }

    /// The fate of a view the app gives back while the pool holds `pooled` views.
    public func fate(of candidate: Candidate, pooled: Int) -> Fate {
        if !candidate.isAlive { return .retire(.dead) }
        if candidate.uses >= maximumReuse { return .retire(.reuseLimit) }
        if candidate.wasNavigated { return .retire(.history) }
        if pooled >= capacity { return .retire(.poolFull) }
        return .keep
    }

    /// Whether a pooled view may be handed out (before its liveness probe).
    public func mayHandOut(_ candidate: Candidate) -> Bool {
        candidate.isAlive && candidate.uses < maximumReuse && !candidate.wasNavigated
    }

    /// How a pooled view that ``mayHandOut(_:)`` is confirmed alive and answering before it is
    /// handed out, given `engineReport`, what the engine itself knows of its content process
    /// (``EngineView/isContentProcessResponsive``; `nil` when it does not track it).
    ///
    /// A view never handed out has run nothing but the empty warm-up document and the
    /// container's own scripts since its warm-up load finished (which the process answered), so
    /// the engine's report is enough: a process that died said so, one that stopped answering the
    /// engine is reported unresponsive. A view the app has held may run the app's scripts (one may
    /// hang it at any time): it gets a script round trip, as every view does on an engine that
    /// reports nothing.
    public func livenessCheck(for candidate: Candidate, engineReport: Bool?) -> LivenessCheck {
        if engineReport == false { return .retire }
        return candidate.uses == 0 && engineReport == true ? .engineReport : .probe
    }

    /// How a pooled view's liveness is confirmed at hand-out (``livenessCheck(for:engineReport:)``).
    public enum LivenessCheck: Sendable, Equatable {
        /// The engine's report is enough: hand it out without asking the content process.
        case engineReport
        /// Evaluate a tiny script; no answer within ``probeTimeout``: unresponsive.
        case probe
        /// The engine reports the process unresponsive: retire it without asking.
        case retire
    }

    /// How many fresh views to warm so the pool is full again.
    public func shortfall(pooled: Int, warming: Int) -> Int { max(0, capacity - pooled - warming) }
}
