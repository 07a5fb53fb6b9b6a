import Foundation
import HybridBase

/// The `navigation` module: the container's navigation, routed to a ``BridgeNavigationDelegate``.
///
/// - `open {url, title?}` → `null` (http/https only; other schemes get `bad_params`)
/// - `close` → `null`
/// - `setTitle {title}` → `null`
/// - `back` → `true` when it went back
///
/// Without a delegate every action fails with `unavailable`.
public struct NavigationModule: BridgeModule {
    /// The name pages call the module by (`hybrid.call('navigation', …)`).
    public let name = "navigation"
    /// The origins whose pages may drive the container's navigation.
    public let allowedOrigins: [OriginPattern]
    /// Set ``BridgeDelegateSlot/delegate`` to the container that handles these.
    public let slot: BridgeDelegateSlot<any BridgeNavigationDelegate>

    /// A navigation module for `allowedOrigins`; set `slot.delegate` to the container.
    public init(allowedOrigins: [OriginPattern], slot: BridgeDelegateSlot<any BridgeNavigationDelegate> = .init()) {
        self.allowedOrigins = allowedOrigins
        self.slot = slot
    }

    struct OpenParams: Codable, Sendable {
        var url: String
        var title: String?
    }

    struct TitleParams: Codable, Sendable {
        var title: String
    }

    /// Titles longer than this are cut (a page must not fill the navigation bar with a novel).
    static let maxTitleLength = 256

    /// `open`, `close`, `setTitle` and `back`; titles are cut at 256 characters.
    public var actions: [BridgeAction] {
        let slot = slot
        return [
            Action("open") { (params: OpenParams, context) in
                guard let url = URL(string: params.url), let scheme = url.scheme?.lowercased(),
                      scheme == "https" || scheme == "http", url.host?.isEmpty == false
                else {
                    throw BridgeFailure.badParams(module: context.module, action: context.action,
                                                  reason: "params.url: expected an http(s) URL")
                }
                try await slot.require("navigation").bridgeOpen(url, title: params.title.map { String($0.prefix(Self.maxTitleLength)) })
                return BridgeEmpty()
            },
            Action("close") { (_: Empty, _) in
                try await slot.require("navigation").bridgeClose()
                return BridgeEmpty()
            },
            Action("setTitle") { (params: TitleParams, _) in
                try await slot.require("navigation").bridgeSetTitle(String(params.title.prefix(Self.maxTitleLength)))
                return BridgeEmpty()
            },
            Action("back") { (_: Empty, _) in try await slot.require("navigation").bridgeGoBack() },
        ]
    }
}
