import Foundation
import HybridBase

/// One view's recovery from white screens: the policy with its memory of recent ones, the reload
/// it scheduled, the reason owed for a termination the view caused itself, and the error page it
/// shows when it gave up. Owned by ``HybridWebView``; every change to it is made here.
@MainActor
struct PageRecovery {
    /// Decides between a reload and the error page.
    private(set) var policy: WhiteScreenPolicy
    /// The error page is showing (recovery gave up).
    private(set) var errorPage: WhiteScreenEvent?
    /// A reload waiting for its delay.
    private var scheduled: Task<Void, Never>?
    /// The view ended an unresponsive page itself: its termination is reported with this reason.
    private var expectedTermination: WhiteScreenReason?

    init(policy: WhiteScreenPolicy) { self.policy = policy }

    /// A reload is waiting for its delay.
    var isPending: Bool { scheduled != nil }

    /// Records a white screen at `now` and decides: a reload after a delay, or the error page.
    mutating func decide(at now: Double) -> WhiteScreenRecovery {
        cancelScheduled()
        return policy.decide(at: now)
    }

    /// Keeps the task that reloads after the delay (cancelled by a navigation, a retry or the pool).
    mutating func schedule(_ reload: Task<Void, Never>) { scheduled = reload }

    /// The scheduled reload runs now.
    mutating func scheduledReloadStarted() { scheduled = nil }

    /// Drops a scheduled reload.
    mutating func cancelScheduled() {
        scheduled?.cancel()
        scheduled = nil
    }

    /// The error page is shown for `event`.
    mutating func showErrorPage(_ event: WhiteScreenEvent) { errorPage = event }

    /// The view navigates on its own: a scheduled reload and the error page are over.
    mutating func navigationBegan() {
        cancelScheduled()
        errorPage = nil
    }

    /// The user asked to try again: the policy starts afresh; returns the white screen it gave up on.
    mutating func retry() -> WhiteScreenEvent? {
        guard let failed = errorPage else { return nil }
        policy.reset()
        errorPage = nil
        return failed
    }

    /// The view is about to end an unresponsive page: its termination is that, not a crash.
    mutating func expectTermination(_ reason: WhiteScreenReason) { expectedTermination = reason }

    /// Why a termination happened: the reason the view expected, else the process's own.
    mutating func cause(of reason: TerminationReason) -> WhiteScreenReason {
        defer { expectedTermination = nil }
        return expectedTermination ?? .contentProcessTerminated(reason)
    }
}
