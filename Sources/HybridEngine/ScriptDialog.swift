import Foundation

/// A JavaScript dialog the page opened: `alert`, `confirm`, `prompt` or the `beforeunload` question.
public struct ScriptDialog: Sendable, Equatable {
    /// Which JavaScript function opened the dialog (`beforeUnload`: the page's `beforeunload` handler
    /// asked to confirm leaving).
    public enum Kind: String, Sendable, Equatable { case alert, confirm, prompt, beforeUnload }
    /// Which dialog this is; it decides the buttons and the safe default answer.
    public var kind: Kind
    /// The text the page passed to the dialog.
    public var message: String
    /// The `prompt` default text.
    public var defaultText: String?
    /// The page that opened it (for the delegate's UI).
    public var pageURL: URL?
    /// The title of the page that opened it, when the engine knows it (for the delegate's UI).
    public var pageTitle: String?

    /// Describes a dialog; engine adapters make one for each dialog the page opens.
    public init(kind: Kind, message: String, defaultText: String? = nil, pageURL: URL? = nil, pageTitle: String? = nil) {
        self.kind = kind
        self.message = message
        self.defaultText = defaultText
        self.pageURL = pageURL
        self.pageTitle = pageTitle
    }
}

/// How the user closed a dialog.
public enum ScriptDialogResult: Sendable, Equatable {
    /// OK / Leave. For `prompt`, the text entered.
    case accepted(text: String? = nil)
    /// Cancel / Stay.
    case cancelled

    /// The answer used when nobody answers: alert dismissed, confirm false, prompt null,
    /// beforeunload lets the page go (a container must never be trapped on a page).
    public static func safeDefault(for kind: ScriptDialog.Kind) -> ScriptDialogResult {
        switch kind {
        case .alert, .beforeUnload: .accepted()
        case .confirm, .prompt: .cancelled
        }
    }
}

/// The completion of one script dialog: runs its answer **exactly once**.
///
/// Call ``complete(_:)`` once. A second call is ignored. If the last reference goes away
/// without a call (the delegate dropped it), or the view is destroyed first
/// (``completeWithSafeDefault()``), the safe default for the dialog's kind is applied.
@MainActor
public final class ScriptDialogCompletion {
    /// The dialog being answered.
    public let dialog: ScriptDialog
    private var answer: (@MainActor (ScriptDialogResult) -> Void)?

    /// Wraps the engine's answer callback so that it runs exactly once.
    /// - Parameters:
    ///   - dialog: The dialog the page opened.
    ///   - answer: Hands the user's choice back to the engine; called at most once.
    public init(dialog: ScriptDialog, answer: @escaping @MainActor (ScriptDialogResult) -> Void) {
        self.dialog = dialog
        self.answer = answer
    }

    /// Whether the dialog has been answered.
    public var isCompleted: Bool { answer == nil }

    /// Answers the dialog. Only the first call has an effect.
    /// - Returns: `true` when this call answered it.
    @discardableResult
    public func complete(_ result: ScriptDialogResult) -> Bool {
        guard let answer else { return false }
        self.answer = nil
        answer(result)
        return true
    }

    /// Answers with ``ScriptDialogResult/safeDefault(for:)`` unless already answered.
    @discardableResult
    public func completeWithSafeDefault() -> Bool {
        complete(.safeDefault(for: dialog.kind))
    }

    isolated deinit {
        completeWithSafeDefault()
    }
}
