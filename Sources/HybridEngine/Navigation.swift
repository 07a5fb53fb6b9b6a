import Foundation
import HybridBase

/// What started a navigation.
public enum NavigationType: String, Sendable, Hashable {
    /// The engines' navigation types (`WKNavigationType`, `WebKitNavigationType`, Blink's
    /// transition types), under one set of names; `other` covers loads the app started.
    case linkActivated, formSubmitted, backForward, reload, formResubmitted, other
}

/// A navigation about to happen, for the app to allow or cancel.
public struct NavigationAction: Sendable {
    /// The request the navigation will make.
    public var request: EngineRequest
    /// What started it (a link, a form, back-forward, a reload, ...).
    public var type: NavigationType
    /// The navigation targets the main frame (not an iframe).
    public var isMainFrame: Bool
    /// The page asked for a new window (`target=_blank`, `window.open`).
    public var targetsNewWindow: Bool
    /// A user gesture (click, key) started it.
    public var isUserGesture: Bool
    /// Same-document navigation is never asked about; a redirect is (`isRedirect`).
    public var isRedirect: Bool

    /// Describes a navigation; engine adapters make one for each navigation they are asked about.
    public init(request: EngineRequest, type: NavigationType, isMainFrame: Bool, targetsNewWindow: Bool = false,
                isUserGesture: Bool = false, isRedirect: Bool = false) {
        self.request = request
        self.type = type
        self.isMainFrame = isMainFrame
        self.targetsNewWindow = targetsNewWindow
        self.isUserGesture = isUserGesture
        self.isRedirect = isRedirect
    }
}

/// The delegate's answer to a ``NavigationAction``.
public enum NavigationActionPolicy: Sendable, Equatable {
    /// Let the navigation go ahead.
    case allow
    /// Stop it; nothing loads and the current page stays.
    case cancel
    /// Cancel this navigation and load this request instead (adds headers, tokens).
    case redirect(to: URL, headers: [String: String])
}

/// A response about to be shown, for the app to allow, cancel or download.
public struct NavigationResponse: Sendable {
    /// The URL the response is for.
    public var url: URL
    /// The HTTP status code.
    public var statusCode: Int
    /// The response's MIME type (without parameters such as `charset`), when the engine knows it.
    public var mimeType: String?
    /// The response's header fields in order.
    public var headers: [(name: String, value: String)]
    /// The response is for the main frame (not an iframe).
    public var isMainFrame: Bool
    /// The engine can render this MIME type.
    public var canShowMIMEType: Bool

    /// Describes a response; engine adapters make one for each response they are asked about.
    public init(url: URL, statusCode: Int, mimeType: String?, headers: [(name: String, value: String)],
                isMainFrame: Bool, canShowMIMEType: Bool) {
        self.url = url
        self.statusCode = statusCode
        self.mimeType = mimeType
        self.headers = headers
        self.isMainFrame = isMainFrame
        self.canShowMIMEType = canShowMIMEType
    }
}

/// The delegate's answer to a ``NavigationResponse``.
public enum NavigationResponsePolicy: Sendable, Equatable {
    /// Show the response, drop it (nothing is shown), or hand it to the engine's downloads (only
    /// where the engine has ``EngineCapabilities/downloads``).
    case allow, cancel, download
}

/// One entry of the back-forward list.
public struct HistoryItem: Sendable, Hashable {
    /// The entry's URL.
    public var url: URL
    /// The page title recorded for the entry, if it had one.
    public var title: String?
    /// An entry for `url` with the title recorded for it.
    public init(url: URL, title: String?) {
        self.url = url
        self.title = title
    }
}

/// The back-forward list as the engine has it.
public struct BackForwardList: Sendable, Hashable {
    /// Oldest first.
    public var back: [HistoryItem]
    /// The entry shown now; `nil` before anything was loaded.
    public var current: HistoryItem?
    /// Nearest first.
    public var forward: [HistoryItem]
    /// A list from its three parts; an empty list by default.
    public init(back: [HistoryItem] = [], current: HistoryItem? = nil, forward: [HistoryItem] = []) {
        self.back = back
        self.current = current
        self.forward = forward
    }
}

/// What an engine view reports as it works.
public enum EngineEvent: Sendable, Equatable {
    /// A load began; the URL is the one requested, if known yet.
    case loadStarted(URL?)
    /// The load was redirected; the URL is the new one.
    case loadRedirected(URL?)
    /// The first bytes of the new document arrived and it replaced the old one: the URL is final.
    case loadCommitted(URL?)
    /// The document and its subresources finished loading.
    case loadFinished(URL?)
    /// The load failed. `cancelled` is `true` when it was stopped or superseded (a new load, a
    /// cancelled policy decision) rather than failing on its own.
    case loadFailed(URL?, message: String, cancelled: Bool)
    /// The view's URL changed (a load, or a same-document `pushState` or fragment navigation).
    case urlChanged(URL?)
    /// The page's title changed.
    case titleChanged(String?)
    /// The view started (`true`) or stopped (`false`) loading.
    case loadingChanged(Bool)
    /// The engine's load progress estimate changed (0...1).
    case progressChanged(Double)
    /// Whether back and forward are possible changed.
    case backForwardChanged(canGoBack: Bool, canGoForward: Bool)
    /// The web content process ended: the page and its state are gone until the view loads again.
    case contentProcessTerminated(TerminationReason)
    /// A message the page logged (`console.*`), when the engine can forward it.
    case consoleMessage(level: String, text: String)
    /// An uncaught error or unhandled rejection the engine itself reported (Blink, from DevTools,
    /// whose isolated worlds never hear the page's `error` events); the frame's origin included.
    case scriptError(ScriptErrorReport)
}
