import Foundation

/// The answers an engine gives when nobody decides: the same for every engine, and the defaults
/// of ``WebEngineDelegate``'s methods.
public enum EngineDefaults {
    /// Every navigation is allowed (a request for a new window still opens none: see ``ContractEngine``).
    /// - Parameter action: The navigation nobody decided.
    /// - Returns: ``NavigationActionPolicy/allow``.
    public static func policy(for action: NavigationAction) -> NavigationActionPolicy { .allow }

    /// A response the engine can render is shown; any other is dropped (never downloaded unasked).
    /// - Parameter response: The response nobody decided.
    /// - Returns: `.allow` when ``NavigationResponse/canShowMIMEType``, else `.cancel`.
    public static func policy(for response: NavigationResponse) -> NavigationResponsePolicy {
        response.canShowMIMEType ? .allow : .cancel
    }

    /// A dialog nobody answers gets ``ScriptDialogResult/safeDefault(for:)``: alert dismissed,
    /// confirm false, prompt null, and `beforeunload` lets the page go.
    /// - Parameter dialog: The dialog nobody answered.
    /// - Returns: Its safe default.
    public static func answer(for dialog: ScriptDialog) -> ScriptDialogResult { .safeDefault(for: dialog.kind) }
}
