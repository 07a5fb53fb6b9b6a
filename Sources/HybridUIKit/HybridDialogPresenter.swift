#if canImport(UIKit) && canImport(WebKit)
import Foundation
import HybridCore
import UIKit

/// Shows a page's `alert`/`confirm`/`prompt` as a `UIAlertController` and answers it exactly once.
///
/// The answer is the ``ScriptDialogCompletion``'s, which runs only its first call; the alert's
/// buttons hold it, so an alert dismissed by anything else (the screen leaving, another
/// presentation) answers with the safe default when the alert goes away. A dialog that arrives
/// during a transition waits for it to end and is shown only if the screen is still there.
@MainActor
final class HybridDialogPresenter {
    private weak var alert: UIAlertController?
    private weak var completion: ScriptDialogCompletion?

    func present(_ completion: ScriptDialogCompletion, from host: UIViewController) {
        guard canPresent(from: host) else {
            completion.completeWithSafeDefault()
            return
        }
        if let coordinator = host.transitionCoordinator {
            // Presenting mid-transition is refused by UIKit (and the alert never shows): wait.
            coordinator.animate(alongsideTransition: nil) { [weak self, weak host] _ in
                MainActor.assumeIsolated {
                    guard let self, let host, !completion.isCompleted, self.canPresent(from: host) else {
                        completion.completeWithSafeDefault()
                        return
                    }
                    self.show(completion, from: host)
                }
            }
            return
        }
        show(completion, from: host)
    }

    /// Answers the open dialog with its safe default and takes its alert down.
    func dismissAll() {
        completion?.completeWithSafeDefault()
        completion = nil
        if let alert, alert.presentingViewController != nil {
            alert.dismiss(animated: false)
        }
        alert = nil
    }

    private func canPresent(from host: UIViewController) -> Bool {
        host.viewIfLoaded?.window != nil && !host.isBeingDismissed && !host.isMovingFromParent
            && host.presentedViewController == nil
    }

    private func show(_ completion: ScriptDialogCompletion, from host: UIViewController) {
        let dialog = completion.dialog
        let alert = UIAlertController(title: dialog.pageURL?.host ?? dialog.pageTitle, message: dialog.message, preferredStyle: .alert)
        // Button handlers may be called outside the main actor's static view (UIKit does not annotate
        // them everywhere); they always run on the main thread.
        let answer: @Sendable (ScriptDialogResult) -> Void = { result in
            MainActor.assumeIsolated { _ = completion.complete(result) }
        }
        switch dialog.kind {
        case .alert:
            alert.addAction(UIAlertAction(title: "OK", style: .default) { _ in answer(.accepted()) })
        case .confirm:
            alert.addAction(UIAlertAction(title: "Cancel", style: .cancel) { _ in answer(.cancelled) })
            alert.addAction(UIAlertAction(title: "OK", style: .default) { _ in answer(.accepted()) })
        case .prompt:
            alert.addTextField { field in MainActor.assumeIsolated { field.text = dialog.defaultText } }
            alert.addAction(UIAlertAction(title: "Cancel", style: .cancel) { _ in answer(.cancelled) })
            alert.addAction(UIAlertAction(title: "OK", style: .default) { [weak alert] _ in
                let text = MainActor.assumeIsolated { alert?.textFields?.first?.text }
                answer(.accepted(text: text ?? ""))
            })
        case .beforeUnload:
            alert.addAction(UIAlertAction(title: "Stay", style: .cancel) { _ in answer(.cancelled) })
            alert.addAction(UIAlertAction(title: "Leave", style: .destructive) { _ in answer(.accepted()) })
        }
        self.alert = alert
        self.completion = completion
        host.present(alert, animated: true)
    }
}
#endif
