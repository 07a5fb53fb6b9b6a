import Foundation
import HybridEngine

/// Script dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) reach the app's delegate only
/// while the view can show them; whatever is open when the view is hidden, enters a transition,
/// is pooled, closed, or its content process dies gets its safe default. Each
/// ``ScriptDialogCompletion`` answers exactly once, so a late answer from the app is ignored.
@MainActor
final class DialogFeature: ViewFeature {
    /// The dialogs handed to the delegate and not seen answered, held weakly (a dropped one
    /// answers itself).
    private var open: [WeakDialog] = []
    private weak var view: HybridWebView?

    func attach(to view: HybridWebView) { self.view = view }

    /// Hands `completion` to the delegate, or answers it with its safe default when the view is
    /// closed, hidden, in a transition or has no delegate.
    func present(_ completion: ScriptDialogCompletion) {
        guard let view, !view.isClosed, view.isVisible, !view.isInTransition, let delegate = view.delegate else {
            completion.completeWithSafeDefault()
            return
        }
        open.removeAll { $0.value?.isCompleted ?? true }
        open.append(WeakDialog(completion))
        delegate.webView(view, runDialog: completion)
    }

    func viewDidReport(_ event: ViewEvent) {
        switch event {
        case .visibilityChanged(false), .closing, .engine(.contentProcessTerminated): dismissAll()
        default: break
        }
    }

    /// Answers every open dialog with its safe default.
    private func dismissAll() {
        let dialogs = open
        open.removeAll()
        for dialog in dialogs { dialog.value?.completeWithSafeDefault() }
    }
}

/// An open dialog, held weakly: if the delegate drops it, it answers itself.
private final class WeakDialog {
    weak var value: ScriptDialogCompletion?
    init(_ value: ScriptDialogCompletion) { self.value = value }
}

/// The page's requests for new windows (`window.open`, `target=_blank`), told to the delegate
/// once each (``HybridWebViewDelegate/webView(_:requestsNewWindow:)``): WebKit may ask twice for
/// one `window.open` (the policy and the create signal; ``EngineHeuristics/newWindowRepeatWindow``).
@MainActor
final class NewWindowFeature: ViewFeature {
    private var last: (url: URL, at: Double)?
    private weak var view: HybridWebView?

    func attach(to view: HybridWebView) { self.view = view }

    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy? {
        guard action.targetsNewWindow, let view else { return nil }
        let url = action.request.url, now = view.now
        if let last, last.url == url, now - last.at < EngineHeuristics.newWindowRepeatWindow { return .cancel }
        last = (url, now)
        view.delegate?.webView(view, requestsNewWindow: NewWindowRequest(
            url: url, openerURL: view.engine.url, isUserGesture: action.isUserGesture, opener: view))
        return .cancel
    }
}
