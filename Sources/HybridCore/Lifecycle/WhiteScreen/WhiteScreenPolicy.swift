import Foundation
import HybridBase

/// Why a container showed (or was about to show) a white screen.
public enum WhiteScreenReason: Sendable, Equatable, CustomStringConvertible {
    /// The web content process ended (crash, memory limit, killed).
    case contentProcessTerminated(TerminationReason)
    /// The page did not answer a liveness probe in time; its process was ended.
    case unresponsive
    /// The page went blank: it had a title and content, and now has neither.
    case blankPage

    /// A stable code for logs.
    public var code: String {
        switch self {
        case .contentProcessTerminated(let reason): "terminated_\(reason.rawValue)"
        case .unresponsive: "unresponsive"
        case .blankPage: "blank_page"
        }
    }

    /// A short phrase for people (`page unresponsive`, `content process terminated (crashed)`).
    public var description: String {
        switch self {
        case .contentProcessTerminated(let reason): "content process terminated (\(reason))"
        case .unresponsive: "page unresponsive"
        case .blankPage: "blank page"
        }
    }
}

/// What the container does about a white screen.
public enum WhiteScreenRecovery: Sendable, Equatable {
    /// Reload the same URL after this many seconds.
    case reload(after: Double)
    /// Show the error page with a retry button; no automatic reload.
    case showErrorPage
}

/// Decides how to recover from white screens: reload automatically, with exponential backoff,
/// until ``maximumReloads`` have happened within ``window``; the next one shows an error page
/// instead, so a page that kills its process every time never reloads forever.
///
/// Pure policy: every input carries `now` (seconds on a monotonic scale).
public struct WhiteScreenPolicy: Sendable, Equatable {
    /// Automatic reloads allowed within ``window`` (the next white screen shows the error page).
    public var maximumReloads: Int
    /// How long a white screen counts against ``maximumReloads``.
    public var window: Double
    /// The first reload's delay; each further one within the window doubles it.
    public var baseDelay: Double
    /// The longest delay.
    public var maximumDelay: Double

    private var recent: [Double] = []

    /// A policy; by default one automatic reload (after 0.1 s) per 30 seconds, delays capped at 5 s.
    public init(maximumReloads: Int = 1, window: Double = 30, baseDelay: Double = 0.1, maximumDelay: Double = 5) {
        self.maximumReloads = max(0, maximumReloads)
        self.window = max(0, window)
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(self.baseDelay, maximumDelay)
    }

    /// Records a white screen at `now` and decides what to do.
    public mutating func decide(at now: Double) -> WhiteScreenRecovery {
        recent.removeAll { now - $0 > window }
        recent.append(now)
        let count = recent.count
        guard count <= maximumReloads else { return .showErrorPage }
        let delay = baseDelay * pow(2, Double(count - 1))
        return .reload(after: min(delay, maximumDelay))
    }

    /// The user asked to try again (error page): the count starts afresh, so a retry that works
    /// is not punished by the failures before it.
    public mutating func reset() { recent.removeAll() }

    /// White screens that count against the next decision at `now`.
    public func recentCount(at now: Double) -> Int { recent.filter { now - $0 <= window }.count }
}
