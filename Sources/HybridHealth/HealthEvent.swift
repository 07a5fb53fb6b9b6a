import Foundation
import HybridBase

/// One thing the container saw happen to a page, as its users experienced it: how fast it
/// opened, whether it became ready, the script errors it threw, white screens and crashes, and
/// how updates went. ``HealthRecorder`` receives them and hands them to the app's sinks; nothing
/// leaves the device unless the app sends it.
public struct HealthEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A top-level page load started (one *launch* of the page's release).
        case launch(source: PageSource)
        /// The page's timing, once its first contentful paint (or its load) is known.
        case pageTiming(PageTiming)
        /// The page said it is ready (`hybrid.call('app', 'ready')`), this long after the launch.
        case ready(milliseconds: Double)
        /// An uncaught error or unhandled rejection in the page.
        case scriptError(ScriptErrorReport)
        /// The container found the page white; `recovery` is what it did (`reload`, `errorPage`).
        case whiteScreen(reason: String, recovery: String)
        /// The web content process ended under the page.
        case processTerminated(reason: String)
        /// A bridge call failed with `code` (`denied`, `timeout`, …) in `module`.
        case bridgeFailure(module: String, code: String)
        /// A proxied request failed with `code` (`timeout`, `network_error`, …).
        case proxyFailure(code: String)
        /// An offline-package update finished: how (`patch`, `full`, `files`, `none`), what it
        /// fetched, how long it took.
        case update(way: String, bytes: Int, milliseconds: Double)
        /// A version was rolled back, and why.
        case rollback(reason: String)
        /// `count` events were not recorded (rate limit, duplicates beyond the limit, a full buffer).
        case dropped(count: Int)
    }

    /// Where a launched page came from; part of every launch so first-screen figures can be
    /// compared per source.
    public enum PageSource: String, Sendable, Equatable, CaseIterable {
        /// A view made for this page.
        case network
        /// A warm view from the pool.
        case pooled
        /// A view that had loaded the page ahead of time.
        case preloaded
        /// A page served from an installed offline package.
        case package
        /// A pooled view serving an offline package.
        case pooledPackage = "pooled_package"
        /// A view that had loaded the page hidden before the user opened it (a pool's prerender):
        /// recorded when it is shown, its timings from then.
        case prerendered
    }

    /// What happened.
    public var kind: Kind
    /// When the container saw it.
    public var time: Date
    /// Which release, engine and rollout it happened under.
    public var context: HealthContext

    /// An event.
    public init(_ kind: Kind, time: Date = Date(), context: HealthContext) {
        self.kind = kind
        self.time = time
        self.context = context
    }

    /// A stable name per kind (`hybridkit.page.timing`, …), the OpenTelemetry event name.
    public var name: String {
        switch kind {
        case .launch: "hybridkit.page.launch"
        case .pageTiming: "hybridkit.page.timing"
        case .ready: "hybridkit.page.ready"
        case .scriptError: "hybridkit.script.error"
        case .whiteScreen: "hybridkit.page.white_screen"
        case .processTerminated: "hybridkit.process.terminated"
        case .bridgeFailure: "hybridkit.bridge.failure"
        case .proxyFailure: "hybridkit.proxy.failure"
        case .update: "hybridkit.package.update"
        case .rollback: "hybridkit.package.rollback"
        case .dropped: "hybridkit.health.dropped"
        }
    }
}

/// Who an event belongs to: every event carries the release (package id and version), the
/// engine and the remote-config rule and bucket that configured the container, so a staged
/// rollout can be judged per rule.
public struct HealthContext: Sendable, Equatable, Hashable {
    /// The offline package the page came from, if any.
    public var packageID: String?
    /// That package's version.
    public var packageVersion: Int?
    /// The engine (`webkit` or `blink`).
    public var engine: String
    /// The remote-config rule that applied, if one did.
    public var configRule: String?
    /// The install's rollout bucket for that rule (0–100), if one applied.
    public var rolloutBucket: Double?
    /// The page, without query or fragment unless the recorder's privacy allows them.
    public var url: String?
    /// One id per launch: every event of one page load shares it.
    public var launchID: String?

    /// A context.
    public init(packageID: String? = nil, packageVersion: Int? = nil, engine: String, configRule: String? = nil,
                rolloutBucket: Double? = nil, url: String? = nil, launchID: String? = nil) {
        self.packageID = packageID
        self.packageVersion = packageVersion
        self.engine = engine
        self.configRule = configRule
        self.rolloutBucket = rolloutBucket
        self.url = url
        self.launchID = launchID
    }

    /// The release this context belongs to: `id@version`, or `network` for a page from the network.
    public var release: String {
        guard let packageID else { return "network" }
        return packageVersion.map { "\(packageID)@\($0)" } ?? packageID
    }
}

/// A page's timing in milliseconds from its navigation start, as the engine's Performance
/// Timeline reports it (read in the container's own script world, not from page scripts).
public struct PageTiming: Sendable, Equatable, Codable {
    /// The response's first byte.
    public var responseStart: Double?
    /// `DOMContentLoaded` ended.
    public var domContentLoaded: Double?
    /// `load` ended.
    public var load: Double?
    /// The first paint.
    public var firstPaint: Double?
    /// The first contentful paint: what users perceive as "it opened".
    public var firstContentfulPaint: Double?

    /// A timing.
    public init(responseStart: Double? = nil, domContentLoaded: Double? = nil, load: Double? = nil,
                firstPaint: Double? = nil, firstContentfulPaint: Double? = nil) {
        self.responseStart = responseStart
        self.domContentLoaded = domContentLoaded
        self.load = load
        self.firstPaint = firstPaint
        self.firstContentfulPaint = firstContentfulPaint
    }
}

