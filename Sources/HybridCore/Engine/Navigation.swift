import Foundation

/// A request to load: URL, method, headers, body.
public struct EngineRequest: Sendable {
    public var url: URL
    public var method: String
    public var headers: [(name: String, value: String)]
    public var body: Data?

    public init(url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// What started a navigation.
public enum NavigationType: String, Sendable, Hashable {
    case linkActivated, formSubmitted, backForward, reload, formResubmitted, other
}

/// A navigation about to happen, for the app to allow or cancel.
public struct NavigationAction: Sendable {
    public var request: EngineRequest
    public var type: NavigationType
    /// The navigation targets the main frame (not an iframe).
    public var isMainFrame: Bool
    /// The page asked for a new window (`target=_blank`, `window.open`).
    public var targetsNewWindow: Bool
    /// A user gesture (click, key) started it.
    public var isUserGesture: Bool
    /// Same-document navigation is never asked about; a redirect is (`isRedirect`).
    public var isRedirect: Bool

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

public enum NavigationActionPolicy: Sendable, Equatable {
    case allow
    case cancel
    /// Cancel this navigation and load this request instead (adds headers, tokens).
    case redirect(to: URL, headers: [String: String])
}

/// A response about to be shown, for the app to allow, cancel or download.
public struct NavigationResponse: Sendable {
    public var url: URL
    public var statusCode: Int
    public var mimeType: String?
    public var headers: [(name: String, value: String)]
    public var isMainFrame: Bool
    /// The engine can render this MIME type.
    public var canShowMIMEType: Bool

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

public enum NavigationResponsePolicy: Sendable, Equatable {
    case allow, cancel, download
}

/// One entry of the back-forward list.
public struct HistoryItem: Sendable, Hashable {
    public var url: URL
    public var title: String?
    public init(url: URL, title: String?) {
        self.url = url
        self.title = title
    }
}

/// The back-forward list as the engine has it.
public struct BackForwardList: Sendable, Hashable {
    /// Oldest first.
    public var back: [HistoryItem]
    public var current: HistoryItem?
    /// Nearest first.
    public var forward: [HistoryItem]
    public init(back: [HistoryItem] = [], current: HistoryItem? = nil, forward: [HistoryItem] = []) {
        self.back = back
        self.current = current
        self.forward = forward
    }
}

/// Why the web content process ended.
public enum TerminationReason: String, Sendable, Hashable, CustomStringConvertible {
    case crashed
    case exceededMemoryLimit = "exceeded_memory_limit"
    /// Ended on purpose (`terminateContentProcess()`).
    case terminatedByClient = "terminated_by_client"
    public var description: String { rawValue }
}

/// What an engine view reports as it works.
public enum EngineEvent: Sendable, Equatable {
    case loadStarted(URL?)
    case loadRedirected(URL?)
    case loadCommitted(URL?)
    case loadFinished(URL?)
    case loadFailed(URL?, message: String, cancelled: Bool)
    case urlChanged(URL?)
    case titleChanged(String?)
    case loadingChanged(Bool)
    case progressChanged(Double)
    case backForwardChanged(canGoBack: Bool, canGoForward: Bool)
    case contentProcessTerminated(TerminationReason)
    /// A message the page logged (`console.*`), when the engine can forward it.
    case consoleMessage(level: String, text: String)
}
