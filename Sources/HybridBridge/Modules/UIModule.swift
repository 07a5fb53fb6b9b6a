import Foundation
import HybridBase

/// The `ui` module: native toasts and dialogs, routed to a ``BridgeUIDelegate``.
///
/// - `toast {message, duration?}` → `null` (duration in seconds, 0.5–10, default 2)
/// - `alert {message, title?}` → `null` once dismissed
/// - `confirm {message, title?}` → `true`/`false`
///
/// Without a delegate every action fails with `unavailable`. A call aborted by the page stops
/// waiting for its dialog; the delegate's dialog is the app's to dismiss.
public struct UIModule: BridgeModule {
    /// The name pages call the module by (`hybrid.call('ui', …)`).
    public let name = "ui"
    /// The origins whose pages may show toasts and dialogs.
    public let allowedOrigins: [OriginPattern]
    /// Set ``BridgeDelegateSlot/delegate`` to the app's UI.
    public let slot: BridgeDelegateSlot<any BridgeUIDelegate>

    /// A UI module for `allowedOrigins`; set `slot.delegate` to the app's UI.
    public init(allowedOrigins: [OriginPattern], slot: BridgeDelegateSlot<any BridgeUIDelegate> = .init()) {
        self.allowedOrigins = allowedOrigins
        self.slot = slot
    }

    struct ToastParams: Codable, Sendable {
        var message: String
        var duration: Double?
    }

    struct DialogParams: Codable, Sendable {
        var message: String
        var title: String?
    }

    /// Longer texts are cut: a page must not be able to build a dialog the user cannot read to the end.
    static let maxTextLength = 4096

    /// `toast`, `alert` and `confirm`; texts are cut at 4096 characters.
    public var actions: [BridgeAction] {
        let slot = slot
        return [
            Action("toast") { (params: ToastParams, _) in
                let duration = min(max(params.duration ?? 2, 0.5), 10)
                try await slot.require("ui").bridgeToast(String(params.message.prefix(Self.maxTextLength)), duration: duration)
                return BridgeEmpty()
            },
            Action("alert") { (params: DialogParams, _) in
                try await slot.require("ui").bridgeAlert(title: params.title.map { String($0.prefix(Self.maxTextLength)) },
                                                         message: String(params.message.prefix(Self.maxTextLength)))
                return BridgeEmpty()
            },
            Action("confirm") { (params: DialogParams, _) in
                try await slot.require("ui").bridgeConfirm(title: params.title.map { String($0.prefix(Self.maxTextLength)) },
                                                           message: String(params.message.prefix(Self.maxTextLength)))
            },
        ]
    }
}
