import Foundation

/// When a newly activated package version counts as healthy, and how long it is on trial.
///
/// A version that has not yet proved healthy is *on trial*. Before it is confirmed, within its
/// first ``maxTrialLaunches`` launches, a content-process crash, an unrecovered white screen, a
/// fatal script error or no health signal within ``timeout`` rolls it back to the last confirmed
/// version and blocks it (``PackageStore/State/rejected``). Once confirmed it is never rolled back:
/// the new code may already have migrated stored data.
public struct BootHealthPolicy: Sendable, Equatable {
    /// What tells the container the version is healthy.
    public enum Signal: Sendable, Equatable {
        /// The page calls `hybrid.call('app', 'ready')` (the built-in `app` module, which only the
        /// package's own origin may call).
        case appReady
        /// The page's first contentful paint, with no fatal script error before it.
        case firstContentfulPaint
        /// The first load that finishes (no trial: what HybridKit did before boot health). Crashes,
        /// white screens and script errors do not roll back; a load that fails still does.
        case firstLoad
    }

    /// What tells the container the version is healthy; by default ``Signal/appReady``.
    public var signal: Signal
    /// Seconds from the start of a trial launch's load to the signal; by default 10.
    public var timeout: TimeInterval
    /// Launches a version gets to signal health (K). A launch is counted before its page loads, so
    /// a process killed during a launch has used it; the launch after the K-th rolls back before
    /// loading. By default 3.
    public var maxTrialLaunches: Int

    /// A policy; by default the page's `app.ready`, within 10 seconds, within 3 launches.
    public init(signal: Signal = .appReady, timeout: TimeInterval = 10, maxTrialLaunches: Int = 3) {
        self.signal = signal
        self.timeout = timeout
        self.maxTrialLaunches = max(1, maxTrialLaunches)
    }

    /// No trial: a version is confirmed by its first finished load (HybridKit before boot health).
    public static let firstLoad = BootHealthPolicy(signal: .firstLoad)

    /// Whether versions go on trial at all.
    public var hasTrial: Bool { signal != .firstLoad }
}

/// Why a version on trial was rolled back.
public enum BootFailure: Codable, Sendable, Equatable {
    /// The page's content process terminated (crashed, killed for memory) before the version was healthy.
    case crashed
    /// No health signal within `timeout` seconds of the launch's load.
    case notReady(timeout: TimeInterval)
    /// The version used all its trial launches without a health signal (each was killed or ended
    /// before it could time out); rolled back before the next launch loaded it.
    case launchesExhausted(launches: Int)
    /// The container's white-screen recovery gave up and showed its error page.
    case whiteScreen
    /// An uncaught exception thrown by a script of the package's own origin before the version was
    /// healthy (WebKit only: see docs/offline-packages.md).
    case scriptError(message: String, source: String, line: Int)
    /// The version's page failed to load (an error status or a failed load of the active version).
    case loadFailed

    /// A stable name for logs and analytics: `crashed`, `not_ready`, `launches_exhausted`,
    /// `white_screen`, `script_error`, `load_failed`.
    public var code: String {
        switch self {
        case .crashed: "crashed"
        case .notReady: "not_ready"
        case .launchesExhausted: "launches_exhausted"
        case .whiteScreen: "white_screen"
        case .scriptError: "script_error"
        case .loadFailed: "load_failed"
        }
    }

    /// One sentence for a person reading a log or a terminal.
    public var sentence: String {
        switch self {
        case .crashed: "its page's content process terminated before it was healthy"
        case .notReady(let timeout): "its page gave no health signal within \(String(format: "%g", timeout)) s"
        case .launchesExhausted(let launches): "it used its \(launches) trial launches without a health signal"
        case .whiteScreen: "its page stayed white after recovery"
        case .scriptError(let message, let source, let line): "its script threw before it was healthy: \(message) (\(source):\(line))"
        case .loadFailed: "its page failed to load"
        }
    }
}

/// A package version rolled back by boot health: it is blocked and `to` serves again.
public struct PackageRollback: Sendable, Equatable {
    /// The package's identifier.
    public var id: String
    /// The version that failed; it is blocked and never activated again (a newer one is).
    public var from: Int
    /// The last confirmed version, which serves now.
    public var to: Int
    /// Why `from` failed.
    public var reason: BootFailure

    /// A rollback of `id` from `from` to `to` because of `reason`.
    public init(id: String, from: Int, to: Int, reason: BootFailure) {
        self.id = id
        self.from = from
        self.to = to
        self.reason = reason
    }
}
