import Foundation
import HybridBase
import HybridEngine
import HybridPackages

/// The view is its engine's delegate: navigation decisions are chained (container, bridge,
/// new windows, app) and dialogs go through the view's exactly-once guard.
extension HybridWebView: WebEngineDelegate {
    /// Decides a navigation in order: the container's retry URL, the bridge's `hybrid://` URLs, the
    /// configured ``NavigationPolicy``, new-window requests (``HybridWebViewDelegate/webView(_:requestsNewWindow:)``),
    /// then the app's delegate (allow when there is none). An allowed main-frame http(s) load waits
    /// for the cookie jar to reach the engine first.
    public func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        guard !isClosed else { return .cancel }
        let url = action.request.url
        if url.scheme == ContainerScripts.retryURL.scheme {
            if url == ContainerScripts.retryURL, action.isMainFrame, errorPage != nil { retry() }
            return .cancel
        }
        if bridge.handleNavigation(action) { return .cancel }
        if let navigation = configuration.navigation, let policy = applyNavigationPolicy(navigation, to: action) {
            return policy
        }
        if action.targetsNewWindow {
            newWindowRequested(action)
            return .cancel
        }
        let policy = await delegate?.webView(self, decidePolicyFor: action) ?? .allow
        guard !isClosed else { return .cancel }
        if case .allow = policy, action.isMainFrame {
            if action.type == .backForward { page.backNavigationBegan() }
            // The first request of the load must carry the jar's cookies.
            if let sync = configuration.cookieSync, url.scheme == "http" || url.scheme == "https" {
                await sync.prepareNavigation(to: url)
            }
        }
        return policy
    }

    /// Notes a failing package page (status 400 or above) for rollback, then asks the app's delegate;
    /// without one, ``EngineDefaults`` (show what the engine can show, download the rest).
    public func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        guard !isClosed else { return .cancel }
        // The document's Content Security Policy, for the requests the proxy carries for it.
        for case let proxy as ProxyModule in configuration.modules { proxy.documents.mainResponseArrived(response) }
        if response.isMainFrame, response.statusCode >= 400, configuration.package?.serves(response.url) == true {
            page.packagePageFailed()
        }
        if let delegate { return await delegate.webView(self, decidePolicyFor: response) }
        return EngineDefaults.policy(for: response)
    }

    /// Presents the dialog through the delegate, or answers it with its safe default when the view
    /// is hidden, in a transition or has no delegate.
    public func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
        presentDialog(completion)
    }

    /// The page's `window.close()`: the delegate closes the container, as for the bridge's
    /// `navigation.close` (``HybridWebViewDelegate/webViewRequestsClose(_:)``).
    public func engineRequestsClose(_ engine: any WebEngine) {
        guard !isClosed else { return }
        delegate?.webViewRequestsClose(self)
    }

    // MARK: Load outcomes

    func pageDidFinish(_ url: URL?) {
        let finish = page.finished(url, title: engine.title, showingErrorPage: errorPage != nil)
        if finish.endedBackNavigation, configuration.resetsTextSizeAfterBack { resetTextSize() }
        guard let package = configuration.package, package.serves(url) else { return }
        if finish.packageFailed {
            rollBackPackage(package, url: url)
        } else if !finish.isErrorPage {
            bootPackagePageLoaded(package)
        }
    }

    func pageDidFail(_ url: URL?, message: String) {
        page.failed(url)
        delegate?.webView(self, didFailLoad: LoadFailure(url: url, message: message, statusCode: nil))
        if let package = configuration.package, package.serves(url) {
            rollBackPackage(package, url: url)
        }
    }

    /// The active package version failed to load: go back to the previous one and reload once.
    private func rollBackPackage(_ package: PackageBinding, url: URL?) {
        page.rolledBack()
        Task { [weak self] in
            let rollback = await Task.detached { () -> PackageRollback? in
                guard let from = package.installer.store.activeVersion(package.id),
                      let to = try? package.installer.rollback(package.id) else { return nil }
                return PackageRollback(id: package.id, from: from, to: to, reason: .loadFailed)
            }.value
            guard let rollback, let self, !self.isClosed else { return }
            self.reportRollback(rollback)
            // Load the page itself, not `reload()`, and only once WebKit's own error page for the
            // failed URL has finished loading: a load started before that is cancelled by it.
            for _ in 0..<100 where self.engine.isLoading {
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
            guard !self.isClosed else { return }
            if let url { self.engine.load(EngineRequest(url: url)) } else { self.engine.reload() }
        }
    }

    /// Resets text size after a back navigation: the page comes back from the page cache with
    /// the size it had, which a pinch or a page script may have changed.
    func resetTextSize() {
        let engine = self.engine
        Task { _ = try? await engine.evaluate(ContainerScripts.resetTextSize) }
    }
}
