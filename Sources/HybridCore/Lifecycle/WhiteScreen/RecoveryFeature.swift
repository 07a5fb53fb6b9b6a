import Foundation
import HybridBase
import HybridEngine

/// White-screen recovery (``HybridWebViewConfiguration/whiteScreen``): a dead content process or a
/// page found blank or hung when the view is shown again is reloaded with backoff, then replaced
/// by an error page with a retry; the probes run when the view becomes visible, followed by the
/// page's `resume` event. A feature that answers the white screen itself (a package version on
/// trial rolls back, ``ViewFeature/handlesWhiteScreen(_:recovery:)``) is asked first.
@MainActor
final class RecoveryFeature: ViewFeature {
    /// What the page's `hybrid.on('resume')` listeners receive.
    struct ResumeEvent: Encodable, Sendable {
        var reason: String
        var persisted: Bool
    }

    private var recovery: PageRecovery
    private let livenessTimeout: Double
    private weak var view: HybridWebView?

    init(policy: WhiteScreenPolicy, livenessTimeout: Double) {
        recovery = PageRecovery(policy: policy)
        self.livenessTimeout = livenessTimeout
    }

    /// The error page is showing after recovery gave up.
    var errorPage: WhiteScreenEvent? { recovery.errorPage }

    func attach(to view: HybridWebView) { self.view = view }

    /// The error page's retry link: any other URL of the container's retry scheme goes nowhere.
    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy? {
        let url = action.request.url
        guard url.scheme == ContainerScripts.retryURL.scheme else { return nil }
        if url == ContainerScripts.retryURL, action.isMainFrame, errorPage != nil { retry() }
        return .cancel
    }

    func viewDidReport(_ event: ViewEvent) {
        switch event {
        case .navigationBegan: recovery.navigationBegan()
        case .engine(.contentProcessTerminated(let reason)):
            let cause = recovery.cause(of: reason)
            if view?.hasNavigated == true { handleWhiteScreen(cause) }
        case .visibilityChanged(true): Task { [weak self] in await self?.didBecomeVisible() }
        case .enqueued, .closing: recovery.cancelScheduled()
        default: break
        }
    }

    /// The error page's retry: the failure count starts afresh and the page loads again.
    func retry() {
        guard let view, !view.isClosed, let failed = recovery.retry() else { return }
        if let url = failed.url { view.load(url) }
    }

    private func handleWhiteScreen(_ reason: WhiteScreenReason) {
        guard let view, !view.isClosed else { return }
        let failedURL = view.page.lastURL ?? view.engine.url
        let decision = recovery.decide(at: view.now)
        if view.features.contains(where: { $0.handlesWhiteScreen(reason, recovery: decision) }) { return }
        switch decision {
        case .reload(let delay):
            recovery.schedule(Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                guard !Task.isCancelled, let self, let view = self.view, !view.isClosed else { return }
                self.recovery.scheduledReloadStarted()
                Self.reload(view.engine, failedURL)
            })
        case .showErrorPage:
            view.engine.stopLoading()
            view.engine.loadHTML(ContainerScripts.errorPage(reason: reason, failedURL: failedURL), baseURL: nil)
        }
        let event = WhiteScreenEvent(reason: reason, recovery: decision, url: failedURL)
        if case .showErrorPage = decision { recovery.showErrorPage(event) }
        view.report(.whiteScreen(event))
        view.delegate?.webView(view, didDetectWhiteScreen: event)
    }

    /// Reloads the engine's current entry when it is of the failed page's origin (a page that moved
    /// with `history.pushState` keeps its history that way; WebKit forgets the view's URL when the
    /// process dies, not its back-forward list), else loads the failed URL.
    private static func reload(_ engine: any WebEngine, _ url: URL?) {
        if let current = engine.url ?? engine.backForwardList.current?.url, url == nil || current == url || sameOrigin(current, url) {
            engine.reload()
        } else if let url {
            engine.load(EngineRequest(url: url))
        }
    }

    private static func sameOrigin(_ a: URL, _ b: URL?) -> Bool {
        guard let origin = BridgeOrigin(url: a) else { return false }
        return b.flatMap(BridgeOrigin.init(url:)) == origin
    }

    private func didBecomeVisible() async {
        guard let view, !view.isClosed, view.isVisible, view.hasNavigated, errorPage == nil, !recovery.isPending else { return }
        if view.engine.isAlive, !view.engine.isLoading {
            let detector = WhiteScreenDetector(livenessTimeout: livenessTimeout)
            switch await detector.probe(view.engine, expectedTitle: view.page.lastGoodTitle) {
            case .unresponsive?:
                guard !view.isClosed else { return }
                // Ending the process is the only way out of a hung page; its termination event
                // then recovers the view as for a crash, reported as unresponsive.
                recovery.expectTermination(.unresponsive)
                view.engine.terminateContentProcess()
                return
            case let reason?:
                handleWhiteScreen(reason)
                return
            case nil:
                break
            }
        }
        guard !view.isClosed, view.isVisible else { return }
        _ = try? view.bridge.emit("resume", ResumeEvent(reason: "visible", persisted: false))
    }
}

extension HybridWebView {
    /// The error page is showing after recovery gave up.
    public var errorPage: WhiteScreenEvent? { feature(RecoveryFeature.self)?.errorPage }

    /// The error page's retry: the failure count starts afresh and the page loads again.
    public func retry() { feature(RecoveryFeature.self)?.retry() }
}
