import Foundation

/// What ``NavigationPolicy`` decided about one navigation; ``HybridWebView`` carries it out.
public enum NavigationDecision: Sendable, Equatable {
    /// Nothing to do: the rest of the chain (new windows, the app's delegate) decides.
    case allow
    /// A bridge call (`scheme://module/action?params`): routed to the module, never loaded.
    case intercept(URL)
    /// A system or payment link (`tel:`, `weixin://`, an app-store page): handed to the app
    /// (``HybridWebViewDelegate/webView(_:openExternal:)``), never loaded.
    case external(URL)
    /// An unknown scheme: not loaded, reported (``HybridWebViewDelegate/webView(_:didBlockNavigation:)``).
    case block(URL, reason: String)
    /// Load this URL with these headers instead (token parameters, a payment `Referer`).
    case redirect(to: URL, headers: [String: String])
}

/// A navigation the container handed to the app instead of loading it.
public struct ExternalNavigation: Sendable, Equatable {
    /// The URL handed to the app.
    public var url: URL
    /// The page that navigated.
    public var sourceURL: URL?
    /// The navigation targets the main frame (not an iframe).
    public var isMainFrame: Bool
    /// A user gesture (click, key) started it.
    public var isUserGesture: Bool
    /// The page asked for a new window (`window.open('tel:…')`, `target=_blank`).
    public var targetsNewWindow: Bool
}

/// A navigation the container refused, and why.
public struct BlockedNavigation: Sendable, Equatable {
    /// The URL that was not loaded.
    public var url: URL
    /// The page that navigated, if known.
    public var sourceURL: URL?
    /// Why it was refused (`unknown scheme 'foo'`, `no scheme`).
    public var reason: String
}
