import Foundation
import HybridBridge
import HybridBase
import HybridEngine
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

/// The launches of the view's offline package (``HybridWebViewConfiguration/package``) and the
/// bridge's `app` module. Boot health: a newly activated package version is on trial until its page
/// signals it is healthy; a crash, an unrecovered white screen, a fatal script error or no signal in
/// time rolls it back, blocks it and tells the delegate (``HybridWebViewDelegate/webView(_:didRollBack:)``).
/// A package page that fails to load (an error status, a failed load) rolls back to the previous
/// version and loads again. Network pages of ``HybridWebViewConfiguration/readyOrigins`` may mark
/// their launch ready for health recording; they never confirm or roll back a version.
@MainActor
final class PackageLaunchFeature: ViewFeature, BridgeAppHealthDelegate {
    private let package: PackageBinding?
    private let readyOrigins: [OriginPattern]
    /// The launch of a package version on trial, until it is healthy or rolled back.
    private(set) var trial: BootTrialSession?
    /// The package page being loaded answered with an error status: roll back when it finishes.
    private var packagePageFailed = false
    private weak var view: HybridWebView?

    init(_ configuration: HybridWebViewConfiguration) {
        package = configuration.package
        // The ready mark of network pages is recorded by health, never part of a boot trial.
        readyOrigins = configuration.health == nil ? [] : configuration.readyOrigins
    }

    func prepare(_ setup: inout ViewFeatureSetup) {
        guard package != nil || !readyOrigins.isEmpty else { return }
        setup.modules.append(AppModule(package: package, readyOrigins: readyOrigins, slot: BridgeDelegateSlot<any BridgeAppHealthDelegate>(self)))
    }

    func attach(to view: HybridWebView) { self.view = view }

    func viewDidReport(_ event: ViewEvent) {
        switch event {
        case .navigationBegan:
            packagePageFailed = false
        case .appLoading(let url, let navigation) where navigation != .html:
            beginLaunch(url)
        case .navigationResponse(let response):
            if response.isMainFrame, response.statusCode >= 400, package?.serves(response.url) == true { packagePageFailed = true }
        case .pageFinished(let url, let finish):
            guard let package, package.serves(url) else { return }
            if packagePageFailed {
                rollBack(package, url: url)
            } else if !finish.isErrorPage {
                packagePageLoaded(package)
            }
        case .pageFailed(let url, _):
            if let package, package.serves(url) { rollBack(package, url: url) }
        case .engine(.scriptError(let report)):
            // An engine whose container world hears no page errors (Blink) reports them itself;
            // an error without a script URL counts by the origin of the frame that threw it.
            scriptError(report, page: report.origin ?? view?.engine.url?.absoluteString ?? "")
        case .pageCaptured(.error(let report)) where report.type == "error":
            // Only an error of a frame whose world says where it is (an opaque frame says nothing);
            // not rejections: an unhandled rejection does not fail a version on trial.
            if let origin = report.origin { scriptError(report, page: origin) }
        case .closing:
            trial?.cancel()
        default:
            break
        }
    }

    // MARK: Launch

    /// Called before the app's load of `url`: a package page starts a launch, counted in the store
    /// before anything loads. A version that already failed or used its launches is rolled back
    /// here, so the page loads the last confirmed version.
    private func beginLaunch(_ url: URL?) {
        trial?.cancel()
        trial = nil
        guard let package, package.bootHealth.hasTrial, let url,
              let origin = BridgeOrigin(url: url), origin == AppModule.origin(of: package) else { return }
        let boot = BootTrial(installer: package.installer, policy: package.bootHealth)
        // Synchronous on purpose: the count must be on disk before the page can run (a few ms).
        switch try? boot.beginLaunch(package.id) {
        case .trial(let version, _)?:
            var session = BootTrialSession(version: version, url: url)
            let timeout = package.bootHealth.timeout
            session.timeout = Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                guard !Task.isCancelled, let self, self.trial?.version == version else { return }
                _ = self.trialFailed(.notReady(timeout: timeout))
            }
            trial = session
        case .rolledBack(let rollback)?:
            Task { [weak self] in self?.report(rollback) }
        default:
            break
        }
    }

    /// The page called `hybrid.call('app', 'ready')`: the version on trial is confirmed.
    func bridgeAppReady() async {
        view?.report(.ready(nil))
        trialHealthy()
    }

    /// A network page of an admitted origin called `hybrid.call('app', 'ready')`: its launch's
    /// ready mark is recorded when the launch's page is of that origin (once per launch).
    func bridgePageReady(origin: BridgeOrigin?) async {
        view?.report(.ready(origin))
    }

    /// A package page finished loading: confirms it on a policy without trial, else watches for
    /// its first contentful paint when that is the signal.
    private func packagePageLoaded(_ package: PackageBinding) {
        guard package.bootHealth.hasTrial else {
            // The version loaded once: the previous one can go (file work off the main thread).
            Task.detached { try? package.installer.markLoaded(package.id) }
            return
        }
        guard package.bootHealth.signal == .firstContentfulPaint, let session = trial, session.paintWatch == nil,
              let engine = view?.engine else { return }
        trial?.paintWatch = Task { [weak self] in
            while !Task.isCancelled {
                let painted = try? await engine.evaluate(Self.firstContentfulPaintProbe)
                guard !Task.isCancelled, let self, self.trial?.version == session.version else { return }
                if painted == .bool(true) {
                    self.trialHealthy()
                    return
                }
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
        }
    }

    static let firstContentfulPaintProbe = "performance.getEntriesByName('first-contentful-paint').length > 0"

    private func trialHealthy() {
        guard let session = trial, let package else { return }
        session.cancel()
        trial = nil
        let boot = BootTrial(installer: package.installer, policy: package.bootHealth)
        Task.detached { try? boot.confirm(package.id, version: session.version) }
    }

    // MARK: Failures

    /// A white screen during a trial: a terminated content process fails it as ``BootFailure/crashed``,
    /// recovery giving up as ``BootFailure/whiteScreen``; the version is then rolled back instead of recovered.
    func handlesWhiteScreen(_ reason: WhiteScreenReason, recovery: WhiteScreenRecovery) -> Bool {
        switch (reason, recovery) {
        case (.contentProcessTerminated(.closedByPage), _): false   // the page's own choice, not a crash
        case (.contentProcessTerminated, _), (.unresponsive, _): trialFailed(.crashed)
        case (_, .showErrorPage): trialFailed(.whiteScreen)
        default: false
        }
    }

    /// An uncaught exception during a trial, from a script of the package's own origin (others —
    /// a third-party script, an opaque "Script error." — are not the version's fault). When the
    /// engine hides the script's URL from the container's world, the error counts if the document
    /// (`page`) is the package's, and its URL is reported as the source. Measured on WebKitGTK 2.50
    /// with a package on a custom scheme: the container's world gets the message's first part but
    /// an empty `filename` and line 0.
    private func scriptError(_ report: ScriptErrorReport, page: String) {
        guard let package, trial != nil, report.message != "Script error." else { return }
        let packageOrigin = AppModule.origin(of: package)
        // The frame that threw must be the package's own: a foreign iframe can dispatch an
        // ErrorEvent naming the package's scripts, but not change the origin its world reports.
        if let origin = report.origin, URL(string: origin).flatMap(BridgeOrigin.init(url:)) != packageOrigin { return }
        let source = report.source.flatMap { $0.isEmpty ? nil : $0 } ?? page
        guard let url = URL(string: source), BridgeOrigin(url: url) == packageOrigin else { return }
        _ = trialFailed(.scriptError(message: report.message, source: source, line: report.line ?? 0))
    }

    /// Rolls the version on trial back, reloads the page on the last confirmed version and tells
    /// the delegate. `false` when nothing is on trial or there is nothing to roll back to.
    private func trialFailed(_ reason: BootFailure) -> Bool {
        guard let session = trial, let package,
              let record = package.installer.store.activeRecord(package.id),
              record.current == session.version, !record.confirmed, record.previous != nil else { return false }
        session.cancel()
        trial = nil
        let boot = BootTrial(installer: package.installer, policy: package.bootHealth)
        Task { [weak self] in
            let rollback = await Task.detached { try? boot.fail(package.id, version: session.version, reason: reason) }.value
            guard let rollback, let self, let view = self.view, !view.isClosed else { return }
            view.report(.navigationBegan)   // a scheduled reload and the error page are over
            await self.reload(session.url)
            self.report(rollback)
        }
        return true
    }

    /// The active package version failed to load: go back to the previous one and reload once.
    private func rollBack(_ package: PackageBinding, url: URL?) {
        packagePageFailed = false
        Task { [weak self] in
            let rollback = await Task.detached { () -> PackageRollback? in
                guard let from = package.installer.store.activeVersion(package.id),
                      let to = try? package.installer.rollback(package.id) else { return nil }
                return PackageRollback(id: package.id, from: from, to: to, reason: .loadFailed)
            }.value
            guard let rollback, let self, self.view?.isClosed == false else { return }
            self.report(rollback)
            await self.reload(url)
        }
    }

    /// Loads `url` (the page itself, not `reload()`, unless there is none) once whatever the engine
    /// shows now has finished loading: a load started before WebKit's own error page for a failed
    /// URL has finished is cancelled by it.
    private func reload(_ url: URL?) async {
        for _ in 0..<100 where view?.engine.isLoading == true {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        guard let view, !view.isClosed else { return }
        if let url { view.engine.load(EngineRequest(url: url)) } else { view.engine.reload() }
    }

    private func report(_ rollback: PackageRollback) {
        guard let view, !view.isClosed else { return }
        view.report(.rolledBack(rollback))
        view.delegate?.webView(view, didRollBack: rollback)
    }
}

extension HybridWebView {
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
    public var packageVersionOnTrial: Int? { feature(PackageLaunchFeature.self)?.trial?.version }
}
