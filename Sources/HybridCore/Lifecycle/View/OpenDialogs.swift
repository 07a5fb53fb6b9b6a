import Foundation
import HybridEngine

/// The script dialogs a view has handed to its delegate and not seen answered, held weakly (a
/// dropped one answers itself), so that hiding, pooling or closing the view answers them all.
@MainActor
struct OpenDialogs {
    private var dialogs: [WeakDialog] = []

    /// Keeps `completion` until it is answered or ``dismissAll()`` answers it.
    mutating func track(_ completion: ScriptDialogCompletion) {
        dialogs.removeAll { $0.value?.isCompleted ?? true }
        dialogs.append(WeakDialog(completion))
    }

    /// Answers every open dialog with its safe default.
    mutating func dismissAll() {
        let open = dialogs
        dialogs.removeAll()
        for dialog in open { dialog.value?.completeWithSafeDefault() }
    }
}

/// A page's requests for new windows, as the delegate hears them: WebKit may ask twice for one
/// `window.open` (the policy and the create signal), and the delegate is told once
/// (``EngineHeuristics/newWindowRepeatWindow``).
struct NewWindowRequests {
    private var last: (url: URL, at: Double)?

    /// Records a request for `url` at `now`; `false` when it repeats the one just made.
    mutating func isNew(_ url: URL, at now: Double) -> Bool {
        if let last, last.url == url, now - last.at < EngineHeuristics.newWindowRepeatWindow { return false }
        last = (url, now)
        return true
    }
}

/// An open dialog, held weakly: if the delegate drops it, it answers itself.
final class WeakDialog {
    weak var value: ScriptDialogCompletion?
    init(_ value: ScriptDialogCompletion) { self.value = value }
}
