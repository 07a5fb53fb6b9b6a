import Foundation

/// The answers an engine gives when nobody decides: the same for every engine, and the defaults
/// of ``WebEngineDelegate``'s methods.
public enum EngineDefaults {
    /// Every navigation is allowed (a request for a new window still opens none: see ``ContractEngine``).
    /// - Parameter action: The navigation nobody decided.
    /// - Returns: ``NavigationActionPolicy/allow``.
    public static func policy(for action: NavigationAction) -> NavigationActionPolicy { .allow }

    /// A response the engine can render is shown; an attachment or one it cannot render becomes a
    /// download, which the delegate places or cancels (``download``: cancel), so nothing is
    /// written unasked.
    /// - Parameter response: The response nobody decided.
    /// - Returns: `.allow` when ``NavigationResponse/canShowMIMEType`` and not an attachment, else `.download`.
    public static func policy(for response: NavigationResponse) -> NavigationResponsePolicy {
        response.canShowMIMEType && !response.isAttachment ? .allow : .download
    }

    /// A dialog nobody answers gets ``ScriptDialogResult/safeDefault(for:)``: alert dismissed,
    /// confirm false, prompt null, and `beforeunload` lets the page go.
    /// - Parameter dialog: The dialog nobody answered.
    /// - Returns: Its safe default.
    public static func answer(for dialog: ScriptDialog) -> ScriptDialogResult { .safeDefault(for: dialog.kind) }

    /// A permission nobody grants is denied.
    public static let permission = PermissionDecision.deny
    /// A download nobody places is cancelled (nothing is written).
    public static let download = DownloadDecision.cancel
}
