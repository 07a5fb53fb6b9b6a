#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// The engine's `WKNavigationDelegate` (and `WKUIDelegate`, see `WKNavigationProxy+Dialogs`):
/// load events, policy questions and process termination, carried to ``WKDriver``'s host with the
/// handler that answers WebKit.
@MainActor
final class WKNavigationProxy: NSObject, WKNavigationDelegate {
    weak var driver: WKDriver?

    // MARK: Load events

    func webView(_ webView: WKWebView, didStartProvisionalNavigation navigation: WKNavigation!) {
        driver?.host?.report(.loadStarted(webView.url))
    }

    func webView(_ webView: WKWebView, didReceiveServerRedirectForProvisionalNavigation navigation: WKNavigation!) {
        driver?.host?.report(.loadRedirected(webView.url))
    }

    func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
        driver?.host?.report(.loadCommitted(webView.url))
    }

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        driver?.host?.report(.loadFinished(webView.url))
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
        driver?.host?.report(.loadFailed(failing, message: nsError.localizedDescription, cancelled: cancelled))
    }

    func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
        // WKWebView does not say why; a jetsam kill and a crash look the same here.
        driver?.host?.contentProcessTerminated(.crashed)
    }

    // MARK: Policies

    func webView(
        _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
    ) {
        guard let host = driver?.host, let action = NavigationAction(navigationAction) else {
            decisionHandler(.cancel)
            return
        }
        // An `<a download>` (or a blob:/data: link with it) becomes a WKDownload when allowed.
        let download = navigationAction.shouldPerformDownload
        host.navigationRequested(action) { decision in
            if decision == .ignore { return decisionHandler(.cancel) }
            if download { return decisionHandler(.download) }
            decisionHandler(.allow)
        }
    }

    func webView(
        _ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void
    ) {
        guard let host = driver?.host, let response = NavigationResponse(navigationResponse) else {
            decisionHandler(.allow)
            return
        }
        host.responseArrived(response) { policy in
            switch policy {
            case .allow: decisionHandler(.allow)
            case .cancel: decisionHandler(.cancel)
            case .download:
                // The download is handed over in `navigationResponse:didBecome:` (WKNavigationProxy+Data).
                decisionHandler(.download)
            }
        }
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
