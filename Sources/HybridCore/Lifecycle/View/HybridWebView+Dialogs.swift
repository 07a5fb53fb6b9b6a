import Foundation

/// Dialogs reach the app's delegate only while the view can show them; whatever is open when
/// it is hidden, enters a transition, is pooled, closed or destroyed gets its safe default.
/// Each ``ScriptDialogCompletion`` answers exactly once, so a late answer from the app is ignored.
extension HybridWebView {
    func presentDialog(_ completion: ScriptDialogCompletion) {
        guard !isClosed, isVisible, !isInTransition, let delegate else {
            completion.completeWithSafeDefault()
            return
        }
        openDialogs.removeAll { $0.value?.isCompleted ?? true }
        openDialogs.append(WeakDialog(completion))
        delegate.webView(self, runDialog: completion)
    }

    /// Answers every open dialog with its safe default (hidden, closed, in transition, pooled).
    func dismissDialogs() {
        let dialogs = openDialogs
        openDialogs.removeAll()
        for dialog in dialogs { dialog.value?.completeWithSafeDefault() }
    }

    func newWindowRequested(_ action: NavigationAction) {
        // WebKit may ask twice for one window.open (policy and create); the app hears of it once.
        if let last = lastNewWindow, last.url == action.request.url, now - last.at < EngineHeuristics.newWindowRepeatWindow { return }
        lastNewWindow = (action.request.url, now)
        delegate?.webView(self, requestsNewWindow: NewWindowRequest(
            url: action.request.url, openerURL: engine.url, isUserGesture: action.isUserGesture, opener: self))
    }
}

/// An open dialog, held weakly: if the delegate drops it, it answers itself.
final class WeakDialog {
    weak var value: ScriptDialogCompletion?
    init(_ value: ScriptDialogCompletion) { self.value = value }
}
