import Foundation
import HybridBase
import HybridPackages

/// A launch of a package version on trial in one view (``BootHealthPolicy``).
struct BootTrialSession {
    /// The version on trial.
    var version: Int
    /// The page the launch loads; loaded again after a rollback.
    var url: URL
    /// Fires ``BootFailure/notReady(timeout:)``.
    var timeout: Task<Void, Never>?
    /// Watches for the first contentful paint (``BootHealthPolicy/Signal/firstContentfulPaint``).
    var paintWatch: Task<Void, Never>?

    func cancel() {
        timeout?.cancel()
        paintWatch?.cancel()
    }
}

/// Boot health: a newly activated package version is on trial until its page signals it is
/// healthy; a crash, an unrecovered white screen, a fatal script error or no signal in time rolls
/// it back, blocks it and tells the delegate (``HybridWebViewDelegate/webView(_:didRollBack:)``).
extension HybridWebView: BridgeAppHealthDelegate {
    /// The `app` module for `package`, routed to the view in `slot`. The page's script errors reach
    /// the trial through the container's one capture (``pageCaptured(_:)``, `hybrid-health.js`).
    static func bootHealthModule(_ package: PackageBinding, readyOrigins: [OriginPattern] = [],
                                 slot: BridgeDelegateSlot<any BridgeAppHealthDelegate>) -> AppModule {
        AppModule(package: package, readyOrigins: readyOrigins, slot: slot)
    }

    // MARK: Launch

    /// Called before the app's load of `url`: a package page starts a launch, counted in the store
    /// before anything loads. A version that already failed or used its launches is rolled back
    /// here, so the page loads the last confirmed version.
    func beginBootLaunch(_ url: URL?) {
        bootTrial?.cancel()
        bootTrial = nil
        guard let package = configuration.package, package.bootHealth.hasTrial, let url,
              let origin = BridgeOrigin(url: url), origin == AppModule.origin(of: package) else { return }
        let trial = BootTrial(installer: package.installer, policy: package.bootHealth)
        // Synchronous on purpose: the count must be on disk before the page can run (a few ms).
        switch try? trial.beginLaunch(package.id) {
        case .trial(let version, _)?:
            var session = BootTrialSession(version: version, url: url)
            let timeout = package.bootHealth.timeout
            session.timeout = Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                guard !Task.isCancelled, let self, self.bootTrial?.version == version else { return }
                _ = self.bootTrialFailed(.notReady(timeout: timeout))
            }
            bootTrial = session
        case .rolledBack(let rollback)?:
            Task { [weak self] in self?.reportRollback(rollback) }
        default:
            break
        }
    }

    /// Launches the package's page at `url` as an app does at startup: first checks the active
    /// version's files (``PackageIntegrity/checkAtLaunch(_:repairFrom:)``, repairing from `updater`
    /// when given, off the main thread), then opens `url` as ``open(_:)`` does (its configured
    /// prefetches start, the page loads), where boot health counts the launch.
    /// - Returns: the integrity report, or `nil` when no package is bound or installed, or the check failed.
    @discardableResult
    public func launchPackage(_ url: URL, repairingFrom updater: PackageUpdater? = nil) async -> PackageIntegrity.Report? {
        var report: PackageIntegrity.Report?
        if let package = configuration.package, package.installer.store.activeRecord(package.id) != nil {
            let integrity = PackageIntegrity(installer: package.installer)
            report = await Task.detached { try? await integrity.checkAtLaunch(package.id, repairFrom: updater) }.value
        }
        guard !isClosed else { return report }
        open(url)
        return report
    }

    /// The package version this view's launch has on trial (``BootHealthPolicy``): set when the
    /// app loads a package page whose version is not confirmed yet, `nil` once its page signalled
    /// it is healthy, after a rollback, and for a confirmed version (a reload after a crash starts
    /// no trial for it, so nothing can roll it back).
    public var packageVersionOnTrial: Int? { bootTrial?.version }

    /// The page called `hybrid.call('app', 'ready')`: the version on trial is confirmed.
    public func bridgeAppReady() async {
        health?.ready()
        bootTrialHealthy()
    }

    /// A package page finished loading: confirms it on a policy without trial, else watches for
    /// its first contentful paint when that is the signal.
    func bootPackagePageLoaded(_ package: PackageBinding) {
        guard package.bootHealth.hasTrial else {
            // The version loaded once: the previous one can go (file work off the main thread).
            Task.detached { try? package.installer.markLoaded(package.id) }
            return
        }
        guard package.bootHealth.signal == .firstContentfulPaint, let session = bootTrial, session.paintWatch == nil else { return }
        let engine = self.engine
        bootTrial?.paintWatch = Task { [weak self] in
            while !Task.isCancelled {
                let painted = try? await engine.evaluate(Self.firstContentfulPaintProbe)
                guard !Task.isCancelled, let self, self.bootTrial?.version == session.version else { return }
                if painted == .bool(true) {
                    self.bootTrialHealthy()
                    return
                }
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
        }
    }

    static let firstContentfulPaintProbe = "performance.getEntriesByName('first-contentful-paint').length > 0"

    private func bootTrialHealthy() {
        guard let session = bootTrial, let package = configuration.package else { return }
        session.cancel()
        bootTrial = nil
        let trial = BootTrial(installer: package.installer, policy: package.bootHealth)
        Task.detached { try? trial.confirm(package.id, version: session.version) }
    }

    // MARK: Failures

    /// A white screen during a trial: a terminated content process fails it as ``BootFailure/crashed``,
    /// recovery giving up as ``BootFailure/whiteScreen``.
    /// - Returns: `true` when the version is rolled back instead of recovered.
    func bootTrialFails(on reason: WhiteScreenReason, recovery: WhiteScreenRecovery) -> Bool {
        switch (reason, recovery) {
        case (.contentProcessTerminated(.closedByPage), _): false   // the page's own choice, not a crash
        case (.contentProcessTerminated, _), (.unresponsive, _): bootTrialFailed(.crashed)
        case (_, .showErrorPage): bootTrialFailed(.whiteScreen)
        default: false
        }
    }

    /// An uncaught exception during a trial, from a script of the package's own origin (others —
    /// a third-party script, an opaque "Script error." — are not the version's fault). When the
    /// engine hides the script's URL from the container's world, the error counts if the document
    /// (`page`) is the package's, and its URL is reported as the source. Measured on WebKitGTK 2.50
    /// with a package on a custom scheme: the container's world gets the message's first part but
    /// an empty `filename` and line 0.
    func bootScriptError(_ report: ScriptErrorReport, page: String) {
        guard let package = configuration.package, bootTrial != nil, report.message != "Script error." else { return }
        let packageOrigin = AppModule.origin(of: package)
        // The frame that threw must be the package's own: a foreign iframe can dispatch an
        // ErrorEvent naming the package's scripts, but not change the origin its world reports.
        if let origin = report.origin, URL(string: origin).flatMap(BridgeOrigin.init(url:)) != packageOrigin { return }
        let source = report.source.flatMap { $0.isEmpty ? nil : $0 } ?? page
        guard let url = URL(string: source), BridgeOrigin(url: url) == packageOrigin else { return }
        _ = bootTrialFailed(.scriptError(message: report.message, source: source, line: report.line ?? 0))
    }

    /// Rolls the version on trial back, reloads the page on the last confirmed version and tells
    /// the delegate. `false` when nothing is on trial or there is nothing to roll back to.
    @discardableResult
    func bootTrialFailed(_ reason: BootFailure) -> Bool {
        guard let session = bootTrial, let package = configuration.package,
              let record = package.installer.store.activeRecord(package.id),
              record.current == session.version, !record.confirmed, record.previous != nil else { return false }
        session.cancel()
        bootTrial = nil
        let trial = BootTrial(installer: package.installer, policy: package.bootHealth)
        Task { [weak self] in
            let rollback = await Task.detached { try? trial.fail(package.id, version: session.version, reason: reason) }.value
            guard let rollback, let self, !self.isClosed else { return }
            self.recovery.navigationBegan()   // a scheduled reload and the error page are over
            // As for a failed load: load the page only once whatever the engine shows now has finished.
            for _ in 0..<100 where self.engine.isLoading {
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
            guard !self.isClosed else { return }
            self.engine.load(EngineRequest(url: session.url))
            self.reportRollback(rollback)
        }
        return true
    }

    func reportRollback(_ rollback: PackageRollback) {
        guard !isClosed else { return }
        health?.record(.rollback(reason: rollback.reason.code))
        delegate?.webView(self, didRollBack: rollback)
    }
}
