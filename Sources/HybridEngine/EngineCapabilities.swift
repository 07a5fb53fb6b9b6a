import Foundation

/// What an engine can do, declared by its provider (``WebEngineProvider/capabilities``).
///
/// HybridCore's policies read it (the bridge transport, engine choice, the pool's history
/// reset); the end-to-end suite runs on every engine and skips a test of a capability the
/// engine lacks, printing the provider's reason (``WebEngineProvider/limitations``).
public struct EngineCapabilities: OptionSet, Sendable, Hashable {
    /// The capability bits (see ``named`` for what each one is called).
    public let rawValue: UInt32
    /// A set from its bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Named, isolated script worlds (bridge isolation).
    public static let scriptWorlds = EngineCapabilities(rawValue: 1 << 0)
    /// Script message handlers that reply with a value.
    public static let messageReplies = EngineCapabilities(rawValue: 1 << 1)
    /// The request body of scheme-handler requests is visible.
    public static let schemeRequestBodies = EngineCapabilities(rawValue: 1 << 2)
    /// Scheme handlers can serve http/https URLs (Blink's `Fetch` domain can; WebKit cannot).
    public static let interceptsHTTP = EngineCapabilities(rawValue: 1 << 3)
    /// The back-forward list can be cleared for real.
    public static let clearsHistory = EngineCapabilities(rawValue: 1 << 4)
    /// The engine forwards console messages as events.
    public static let consoleMessages = EngineCapabilities(rawValue: 1 << 5)
    /// Documents and subresources load from a custom scheme (`hybrid-app://…`).
    public static let customSchemeNavigation = EngineCapabilities(rawValue: 1 << 6)
    /// The schemes every engine navigates to; without ``customSchemeNavigation``, the only ones.
    public static let webSchemes: Set<String> = ["http", "https", "data", "about", "blob", "file", "javascript"]

    /// Why an engine with these capabilities cannot navigate to `url`, or `nil` when it can.
    public func cannotNavigate(to url: URL) -> String? {
        guard !contains(.customSchemeNavigation), let scheme = url.scheme?.lowercased(), !Self.webSchemes.contains(scheme) else { return nil }
        return "this engine cannot navigate to \(scheme): URLs (no customSchemeNavigation); serve the page at an https origin"
    }
    /// A scheme handler's streamed body reaches the page while it is produced.
    public static let streamedSchemeResponses = EngineCapabilities(rawValue: 1 << 7)
    /// ``WebEngine/load(_:)`` sends the request's method and body (POST), not only GET.
    public static let requestBodyLoads = EngineCapabilities(rawValue: 1 << 8)
    /// User style sheets apply at user origin, invisible to the page's DOM.
    public static let userOriginStyleSheets = EngineCapabilities(rawValue: 1 << 9)
    /// A document-start user script already sees `document.documentElement`.
    public static let documentElementAtDocumentStart = EngineCapabilities(rawValue: 1 << 10)
    /// `window.open` returns `null` once the delegate was told of the new window (otherwise the
    /// page gets a window object that is closed at once).
    public static let windowOpenReturnsNull = EngineCapabilities(rawValue: 1 << 11)
    /// The media policy (autoplay without a gesture) applies per view.
    public static let perViewMediaPolicy = EngineCapabilities(rawValue: 1 << 12)
    /// A ``NavigationResponsePolicy/download`` response policy starts a download.
    public static let downloads = EngineCapabilities(rawValue: 1 << 13)
    /// Each cookie change is its own notification (an engine that polls may merge changes).
    public static let cookieChangeEvents = EngineCapabilities(rawValue: 1 << 14)
    /// `http://127.0.0.1` and `http://localhost` count as secure origins for cookies: a Secure
    /// cookie is stored from them and sent to them (Chromium's "potentially trustworthy" loopback).
    public static let secureCookiesOnLoopbackHTTP = EngineCapabilities(rawValue: 1 << 15)
    /// A cookie without a SameSite attribute goes with cross-site subresource requests (iframes,
    /// images); an engine without this treats it as `SameSite=Lax`.
    public static let crossSiteCookiesWithoutSameSite = EngineCapabilities(rawValue: 1 << 16)
    /// Back and forward restore pages from a page cache (no new load; `pageshow` persisted).
    public static let backForwardCache = EngineCapabilities(rawValue: 1 << 17)
    /// A navigation can go ahead with header fields added: a ``NavigationActionPolicy/redirect(to:headers:)``
    /// to the navigation's own URL amends the request in flight instead of cancelling it and
    /// loading anew (an engine that aborts a navigation cannot load the same URL at once).
    public static let amendsNavigationRequests = EngineCapabilities(rawValue: 1 << 18)
    /// A page's `window.close()` reaches the contract as a request
    /// (``EngineDriverHost/closeRequested()``, then ``WebEngineDelegate/engineRequestsClose(_:)``)
    /// and the view stays open until the app closes it.
    public static let windowCloseRequests = EngineCapabilities(rawValue: 1 << 22)
    /// A page's permission request (camera, microphone, position, notifications) is asked of the
    /// host when it happens, so a ``PermissionRule/ask`` rule reaches the delegate; an engine
    /// without it is told the policy's grants up front (``EngineConfiguration/permissionGrants``).
    public static let permissionPrompts = EngineCapabilities(rawValue: 1 << 19)
    /// `<input type=file>` opens a picker the host answers with files.
    public static let fileChoosers = EngineCapabilities(rawValue: 1 << 20)
    /// The container's own script world hears every frame's `error` and `unhandledrejection`
    /// events, so a page that cancels them (`onerror` returning true, `preventDefault()`) or a
    /// foreign iframe cannot keep its errors from health recording (docs/health.md).
    public static let scriptErrorsInContainerWorld = EngineCapabilities(rawValue: 1 << 21)
    /// Script messages carry bytes as bytes: a typed array or `ArrayBuffer` posted to a message
    /// handler, or returned in a reply, crosses between page and app without base64. Without it
    /// the bridge carries bytes as `{"$bytes": base64}` (``BridgeBytes``), or large ones through
    /// the ``byteChannel`` where the engine has that.
    public static let binaryMessages = EngineCapabilities(rawValue: 1 << 23)
    /// The page can `fetch` a byte channel the view serves, with a byte request body and a byte
    /// response body that never become base64, each request reaching its own view's handler only:
    /// a custom scheme registered secure and CORS-enabled (WebKitGTK), or a loopback HTTP endpoint
    /// the provider names (``WebEngineProvider/byteChannelOrigin``, Blink). The bridge's byte
    /// channel (``BridgeByteChannel``) carries large byte values that way instead of as base64, and
    /// a body that arrives over time (``BridgeByteFeed``) as one streamed response.
    public static let byteChannel = EngineCapabilities(rawValue: 1 << 24)

    /// Every capability with its name, in declaration order (reports, docs, skip messages).
    public static let named: [(name: String, capability: EngineCapabilities)] = [
        ("scriptWorlds", .scriptWorlds), ("messageReplies", .messageReplies),
        ("schemeRequestBodies", .schemeRequestBodies), ("interceptsHTTP", .interceptsHTTP),
        ("clearsHistory", .clearsHistory), ("consoleMessages", .consoleMessages),
        ("customSchemeNavigation", .customSchemeNavigation), ("streamedSchemeResponses", .streamedSchemeResponses),
        ("requestBodyLoads", .requestBodyLoads), ("userOriginStyleSheets", .userOriginStyleSheets),
        ("documentElementAtDocumentStart", .documentElementAtDocumentStart),
        ("windowOpenReturnsNull", .windowOpenReturnsNull), ("perViewMediaPolicy", .perViewMediaPolicy),
        ("downloads", .downloads), ("cookieChangeEvents", .cookieChangeEvents),
        ("secureCookiesOnLoopbackHTTP", .secureCookiesOnLoopbackHTTP),
        ("crossSiteCookiesWithoutSameSite", .crossSiteCookiesWithoutSameSite),
        ("backForwardCache", .backForwardCache), ("amendsNavigationRequests", .amendsNavigationRequests),
        ("windowCloseRequests", .windowCloseRequests),
        ("permissionPrompts", .permissionPrompts), ("fileChoosers", .fileChoosers),
        ("scriptErrorsInContainerWorld", .scriptErrorsInContainerWorld),
        ("binaryMessages", .binaryMessages), ("byteChannel", .byteChannel),
    ]

    /// The single capabilities in this set, in declaration order.
    public var elements: [EngineCapabilities] { Self.named.map(\.capability).filter { contains($0) } }

    /// The names of the capabilities in this set, in declaration order.
    public var names: [String] { Self.named.filter { contains($0.capability) }.map(\.name) }
}
