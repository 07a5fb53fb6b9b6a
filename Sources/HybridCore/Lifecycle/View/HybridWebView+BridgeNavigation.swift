import Foundation
import HybridBase

/// The container serves the bridge's `navigation` module for its own page
/// (``HybridWebViewConfiguration/navigationModuleOrigins``): the page asks, the app's delegate
/// decides, exactly as for the same gestures in native UI.
extension HybridWebView: BridgeNavigationDelegate {
    /// `navigation.open`: a new container, through the delegate's new-window request.
    public func bridgeOpen(_ url: URL, title: String?) async throws {
        guard !isClosed else { throw BridgeFailure.unavailable("the container is closed") }
        delegate?.webView(self, requestsNewWindow: NewWindowRequest(url: url, openerURL: engine.url, isUserGesture: true))
    }

    /// `navigation.close`: the delegate closes the container.
    public func bridgeClose() async throws {
        guard !isClosed else { return }
        delegate?.webViewRequestsClose(self)
    }

    /// `navigation.setTitle`: the container's title until the page's next document.
    public func bridgeSetTitle(_ title: String) async throws {
        page.setTitle(title)
        refreshState()
    }

    /// `navigation.back`: back in the page when the back policy allows; `false` otherwise (the
    /// page decides what to do then — closing is `navigation.close`).
    public func bridgeGoBack() async throws -> Bool {
        guard !isClosed, configuration.back.decide(engine.backForwardList) == .goBack else { return false }
        goBack()
        return true
    }
}
