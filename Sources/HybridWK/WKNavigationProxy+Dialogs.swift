#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// `WKUIDelegate`: the JavaScript panels become ``ScriptDialogCompletion``s (answered exactly
/// once: by the delegate, or with the safe default when it drops them, the view closes or the
/// process dies), new windows become questions to the delegate, and `window.close()` a close
/// request.
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
        guard let engine, var action = NavigationAction(navigationAction) else { return nil }
        action.targetsNewWindow = true
        action.isMainFrame = true
        Task { @MainActor [weak engine] in _ = await engine?.askDelegate(action) }
        return nil
    }

    /// The page called `window.close()` (and WebKit let it): the owner hears a close request; the
    /// view stays open until the owner closes it.
    func webViewDidClose(_ webView: WKWebView) {
        guard let engine, !engine.closed else { return }
        engine.delegate?.engineRequestsClose(engine)
    }

    private func present(
        _ kind: ScriptDialog.Kind, message: String, defaultText: String?,
        answer: @escaping @MainActor (ScriptDialogResult) -> Void
    ) {
        guard let engine else {
            answer(.safeDefault(for: kind))
            return
        }
        let dialog = ScriptDialog(kind: kind, message: message, defaultText: defaultText, pageURL: engine.url, pageTitle: engine.title)
        let completion = ScriptDialogCompletion(dialog: dialog, answer: answer)
        engine.didOpen(completion)
        if let delegate = engine.delegate {
            delegate.engine(engine, runScriptDialog: completion)
        } else {
            completion.completeWithSafeDefault()
        }
    }
}
#endif
