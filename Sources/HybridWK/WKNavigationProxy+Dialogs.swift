#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// `WKUIDelegate`: the JavaScript panels go to the host with the handler that answers them (the
/// contract answers each exactly once), new windows are announced, and `window.close()` is a
/// close request.
extension WKNavigationProxy: WKUIDelegate {
    func webView(
        _ webView: WKWebView, runJavaScriptAlertPanelWithMessage message: String, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping @MainActor @Sendable () -> Void
    ) {
        present(.alert, message: message, defaultText: nil) { _ in completionHandler() }
    }

    func webView(
        _ webView: WKWebView, runJavaScriptConfirmPanelWithMessage message: String, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping @MainActor @Sendable (Bool) -> Void
    ) {
        present(.confirm, message: message, defaultText: nil) { result in completionHandler(result != .cancelled) }
    }

    func webView(
        _ webView: WKWebView, runJavaScriptTextInputPanelWithPrompt prompt: String, defaultText: String?,
        initiatedByFrame frame: WKFrameInfo, completionHandler: @escaping @MainActor @Sendable (String?) -> Void
    ) {
        present(.prompt, message: prompt, defaultText: defaultText) { result in
            switch result {
            case .accepted(let text): completionHandler(text ?? "")
            case .cancelled: completionHandler(nil)  // an unanswered prompt returns null
            }
        }
    }

    /// `window.open` (and `target=_blank` when the policy allowed it): the delegate hears of the
    /// request and WebKit never gets a view (a container opens windows as new containers).
    func webView(
        _ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration, for navigationAction: WKNavigationAction,
        windowFeatures: WKWindowFeatures
    ) -> WKWebView? {
        guard let host = driver?.host, var action = NavigationAction(navigationAction) else { return nil }
        action.targetsNewWindow = true
        action.isMainFrame = true
        host.navigationAnnounced(action)
        return nil
    }

    /// The page called `window.close()` (and WebKit let it): the owner hears a close request; the
    /// view stays open until the owner closes it.
    func webViewDidClose(_ webView: WKWebView) {
        driver?.host?.closeRequested()
    }

    private func present(
        _ kind: ScriptDialog.Kind, message: String, defaultText: String?,
        answer: @escaping @MainActor (ScriptDialogResult) -> Void
    ) {
        guard let host = driver?.host else {
            answer(.safeDefault(for: kind))
            return
        }
        host.dialogOpened(ScriptDialog(kind: kind, message: message, defaultText: defaultText), answer: answer)
    }
}
#endif
