import Foundation
import HybridEngine

/// Dialogs reach the app's delegate only while the view can show them; whatever is open when
/// it is hidden, enters a transition, is pooled, closed or destroyed gets its safe default.
/// Each ``ScriptDialogCompletion`` answers exactly once, so a late answer from the app is ignored.
extension HybridWebView {
    func presentDialog(_ completion: ScriptDialogCompletion) {
        guard !isClosed, isVisible, !isInTransition, let delegate else {
            completion.completeWithSafeDefault()
            return
        }
        dialogs.track(completion)
        delegate.webView(self, runDialog: completion)
    }

    /// Answers every open dialog with its safe default (hidden, closed, in transition, pooled).
    func dismissDialogs() { dialogs.dismissAll() }

    func newWindowRequested(_ action: NavigationAction) {
        guard newWindows.isNew(action.request.url, at: now) else { return }
        delegate?.webView(self, requestsNewWindow: NewWindowRequest(
            url: action.request.url, openerURL: engine.url, isUserGesture: action.isUserGesture, opener: self))
    }
}
