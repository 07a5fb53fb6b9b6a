import Foundation
import HybridBase
import HybridEngine
import HybridPackages

/// The view is its engine's delegate: navigation decisions are chained (the bridge, then the
/// features in order — recovery's retry link, the navigation policy, new windows — then the app)
/// and dialogs go through the dialog feature's exactly-once guard.
extension HybridWebView: WebEngineDelegate {
    /// Decides a navigation in order: the bridge's `hybrid://` URLs, then the features (the
    /// container's retry URL, the configured ``NavigationPolicy``, new-window requests —
    /// ``HybridWebViewDelegate/webView(_:requestsNewWindow:)``), then the app's delegate (allow when
    /// there is none). An allowed main-frame http(s) load waits for the cookie jar to reach the engine first.
    public func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        guard !isClosed else { return .cancel }
        let url = action.request.url
        if bridge.handleNavigation(action) { return .cancel }
        for feature in features {
            if let policy = feature.decidePolicy(for: action) { return policy }
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

    /// Tells the features (a failing package page is rolled back, the proxy keeps the document's
    /// security policy), then asks the app's delegate; without one, ``EngineDefaults`` (show what
    /// the engine can show, download the rest).
    public func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        guard !isClosed else { return .cancel }
        report(.navigationResponse(response))
        if let delegate { return await delegate.webView(self, decidePolicyFor: response) }
        return EngineDefaults.policy(for: response)
    }

    /// Presents the dialog through the delegate, or answers it with its safe default when the view
    /// is hidden, in a transition or has no delegate.
    public func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
        if let dialogs = feature(DialogFeature.self) { dialogs.present(completion) } else { completion.completeWithSafeDefault() }
    }

    /// The page's `window.close()`: the delegate closes the container, as for the bridge's
    /// `navigation.close` (``HybridWebViewDelegate/webViewRequestsClose(_:)``).
    public func engineRequestsClose(_ engine: any WebEngine) {
        guard !isClosed else { return }
        delegate?.webViewRequestsClose(self)
    }

    // MARK: Load outcomes

    func pageDidFinish(_ url: URL?) {
        report(.pageFinished(url, page.finished(url, title: engine.title, showingErrorPage: errorPage != nil)))
    }

    func pageDidFail(_ url: URL?, message: String) {
        page.failed(url)
        delegate?.webView(self, didFailLoad: LoadFailure(url: url, message: message, statusCode: nil))
        report(.pageFailed(url, message: message))
    }
}
