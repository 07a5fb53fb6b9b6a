import Foundation
import HybridBase

/// White-screen recovery: reload with backoff, then an error page with a retry; the probes run
/// when the view becomes visible again, followed by the page's `resume` event.
extension HybridWebView {
    /// What the page's `hybrid.on('resume')` listeners receive.
    struct ResumeEvent: Encodable, Sendable {
        var reason: String
        var persisted: Bool
    }

    func handleWhiteScreen(_ reason: WhiteScreenReason) {
        guard !isClosed else { return }
        let failedURL = page.lastURL ?? engine.url
        let recovery = self.recovery.decide(at: now)
        if bootTrialFails(on: reason, recovery: recovery) { return }   // rolled back and reloaded instead
        switch recovery {
        case .reload(let delay):
            self.recovery.schedule(Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                guard !Task.isCancelled, let self, !self.isClosed else { return }
                self.recovery.scheduledReloadStarted()
                self.reloadAfterWhiteScreen(failedURL)
            })
        case .showErrorPage:
            engine.stopLoading()
            engine.loadHTML(ContainerScripts.errorPage(reason: reason, failedURL: failedURL), baseURL: nil)
        }
        let event = WhiteScreenEvent(reason: reason, recovery: recovery, url: failedURL)
        if case .showErrorPage = recovery { self.recovery.showErrorPage(event) }
        health?.whiteScreen(event)
        delegate?.webView(self, didDetectWhiteScreen: event)
    }

    private func reloadAfterWhiteScreen(_ url: URL?) {
        if let current = engine.url, current == url || url == nil {
            engine.reload()
        } else if let url {
            engine.load(EngineRequest(url: url))
        }
    }

    /// The error page's retry: the failure count starts afresh and the page loads again.
    public func retry() {
        guard !isClosed, let failed = recovery.retry() else { return }
        if let url = failed.url { load(url) }
    }

    func didBecomeVisible() async {
        guard !isClosed, isVisible, hasNavigated, errorPage == nil, !recovery.isPending else { return }
        if engine.isAlive, !engine.isLoading {
            let detector = WhiteScreenDetector(livenessTimeout: configuration.livenessTimeout)
            switch await detector.probe(engine, expectedTitle: page.lastGoodTitle) {
            case .unresponsive?:
                guard !isClosed else { return }
                // Ending the process is the only way out of a hung page; its termination event
                // then recovers the view as for a crash, reported as unresponsive.
                recovery.expectTermination(.unresponsive)
                engine.terminateContentProcess()
                return
            case let reason?:
                handleWhiteScreen(reason)
                return
            case nil:
                break
            }
        }
        guard !isClosed, isVisible else { return }
        _ = try? bridge.emit("resume", ResumeEvent(reason: "visible", persisted: false))
    }
}
