#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// The engine's `WKNavigationDelegate` (and `WKUIDelegate`, see `WKNavigationProxy+Dialogs`):
/// load events, policy questions and process termination, carried to ``WKWebEngine`` and its
/// delegate. Decisions are the delegate's; this only carries questions and answers across.
@MainActor
final class WKNavigationProxy: NSObject, WKNavigationDelegate {
    weak var engine: WKWebEngine?

    // MARK: Load events

    func webView(_ webView: WKWebView, didStartProvisionalNavigation navigation: WKNavigation!) {
        engine?.emit(.loadStarted(webView.url))
    }

    func webView(_ webView: WKWebView, didReceiveServerRedirectForProvisionalNavigation navigation: WKNavigation!) {
        engine?.emit(.loadRedirected(webView.url))
    }

    func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
        engine?.emit(.loadCommitted(webView.url))
    }

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        engine?.emit(.loadFinished(webView.url))
    }

    func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error) {
        reportFailure(webView, error)
    }

    func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error) {
        reportFailure(webView, error)
    }

    private func reportFailure(_ webView: WKWebView, _ error: any Error) {
        let nsError = error as NSError
        let failing = nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL ?? webView.url
        // A load superseded by another, or stopped, is "cancelled"; WebKit's own code 102 is a
        // load the policy turned into something else (a download, a cancel).
        let cancelled = (nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorCancelled)
            || (nsError.domain == "WebKitErrorDomain" && nsError.code == 102)
        engine?.emit(.loadFailed(failing, message: nsError.localizedDescription, cancelled: cancelled))
    }

    func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
        // WKWebView does not say why; a jetsam kill and a crash look the same here.
        engine?.contentProcessDidTerminate(.crashed)
    }

    // MARK: Policies

    func webView(
        _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
    ) {
        guard let engine, let action = NavigationAction(navigationAction) else {
            decisionHandler(.cancel)
            return
        }
        Task { @MainActor [weak engine] in
            guard let engine else { return decisionHandler(.cancel) }
            let policy = await engine.askDelegate(action)
            switch policy {
            case .allow where !action.targetsNewWindow:
                decisionHandler(.allow)
            case .allow, .cancel:
                // A new window is never created by the engine: the delegate opens a new container.
                decisionHandler(.cancel)
            case .redirect(let url, let headers):
                decisionHandler(.cancel)
                engine.load(EngineRequest(url: url, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
            }
        }
    }

    func webView(
        _ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void
    ) {
        guard let engine, let response = NavigationResponse(navigationResponse) else {
            decisionHandler(.allow)
            return
        }
        Task { @MainActor [weak engine] in
            let policy: NavigationResponsePolicy
            if let engine, let delegate = engine.delegate {
                policy = await delegate.engine(engine, decidePolicyFor: response)
            } else {
                policy = response.canShowMIMEType ? .allow : .cancel
            }
            switch policy {
            case .allow: decisionHandler(.allow)
            // No WKDownloadDelegate is wired (the seam has no download callback), so a download
            // would go nowhere: the response is cancelled, as `.downloads` is not claimed.
            case .cancel, .download: decisionHandler(.cancel)
            }
        }
    }
}

extension WKWebEngine {
    /// The delegate's answer for `action` (allow when nobody asks).
    func askDelegate(_ action: NavigationAction) async -> NavigationActionPolicy {
        guard let delegate else { return .allow }
        return await delegate.engine(self, decidePolicyFor: action)
    }
}

extension NavigationAction {
    /// WKWebView says nothing public about redirects or gestures beyond the navigation type:
    /// `isRedirect` is false and a gesture is a link click or a form submission.
    @MainActor init?(_ action: WKNavigationAction) {
        guard let request = EngineRequest(action.request) else { return nil }
        let type = NavigationType(action.navigationType)
        let newWindow = action.targetFrame == nil
        self.init(
            request: request, type: type, isMainFrame: newWindow || action.targetFrame?.isMainFrame == true,
            targetsNewWindow: newWindow, isUserGesture: type == .linkActivated || type == .formSubmitted)
    }
}

extension NavigationResponse {
    @MainActor init?(_ navigationResponse: WKNavigationResponse) {
        let response = navigationResponse.response
        guard let url = response.url else { return nil }
        let http = response as? HTTPURLResponse
        let headers = (http?.allHeaderFields ?? [:]).compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name: name, value: "\(value)")
        }.sorted { $0.name < $1.name }
        self.init(
            url: url, statusCode: http?.statusCode ?? 200, mimeType: response.mimeType, headers: headers,
            isMainFrame: navigationResponse.isForMainFrame, canShowMIMEType: navigationResponse.canShowMIMEType)
    }
}
#endif
