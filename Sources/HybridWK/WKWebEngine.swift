#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// `WebEngine` on a `WKWebView`: translation only, no policy.
///
/// WebKit's delegates are small `NSObject` proxies that hold this engine weakly (WebKit retains
/// message and scheme handlers strongly); nothing calls back into it after ``close()``.
@MainActor
public final class WKWebEngine: WebEngine {
    /// What WKWebView can do. It cannot clear history, forward console messages (without a
    /// script of our own), or take over http/https; downloads are not claimed (see
    /// ``webKitLimitations``).
    public static let webKitCapabilities: EngineCapabilities = [
        .scriptWorlds, .messageReplies, .schemeRequestBodies, .customSchemeNavigation, .streamedSchemeResponses,
        .userOriginStyleSheets, .documentElementAtDocumentStart, .windowOpenReturnsNull, .perViewMediaPolicy,
        .cookieChangeEvents, .crossSiteCookiesWithoutSameSite, .backForwardCache,
    ]

    /// Why WKWebView lacks what it lacks (``WebEngineProvider/limitations``).
    public static let webKitLimitations: [EngineCapabilities: String] = [
        .interceptsHTTP: "WKURLSchemeHandler cannot be registered for http/https",
        .clearsHistory: "WKWebView has no call that clears the back-forward list",
        .consoleMessages: "WKWebView forwards no console messages",
        .downloads: "not wired: a WKDownload needs a WKDownloadDelegate to choose its file, and the seam has no download "
            + "callback to hand it to: a .download response policy cancels the response",
        .requestBodyLoads: "not claimed: a loaded request's body is not verified to reach the server on every OS version",
        .secureCookiesOnLoopbackHTTP: "not claimed: unverified on WKWebView",
        .amendsNavigationRequests: "a WKNavigationActionPolicy only allows or cancels the request: a redirect is a cancel and a new load",
    ]

    /// `wkwebview`.
    public let engineName = "wkwebview"
    /// ``webKitCapabilities``.
    public var capabilities: EngineCapabilities { Self.webKitCapabilities }
    /// Receives navigation and response policy questions, script dialogs and close requests;
    /// held weakly.
    public weak var delegate: (any WebEngineDelegate)?

    /// The view to put on screen. Valid until ``close()``; afterwards it is detached and inert.
    public let webView: WKWebView
    let configuration: EngineConfiguration
    /// Kept here: `webView.configuration` is a copy, and this is the controller that holds the
    /// handlers to remove on close.
    private let contentController: WKUserContentController
    private weak var provider: WKEngineProvider?
    private let navigationProxy: WKNavigationProxy
    private let messageProxy: WKMessageProxy
    private let schemeProxy: WKSchemeProxy?
    private var keyValueObservations: [NSKeyValueObservation] = []
    private let observers = EngineObservers()
    var pendingCalls: [UInt64: @MainActor (any Error) -> Void] = [:]
    var nextCallID: UInt64 = 0
    private var openDialogs: [WeakDialog] = []
    private(set) var terminatedReason: TerminationReason?
    private(set) var closed = false

    init(provider: WKEngineProvider, configuration: EngineConfiguration) {
        self.provider = provider
        self.configuration = configuration
        navigationProxy = WKNavigationProxy()
        messageProxy = WKMessageProxy(handlers: configuration.messageHandlers)
        schemeProxy = configuration.schemeHandlers.isEmpty ? nil : WKSchemeProxy(handlers: configuration.schemeHandlers)

        // Everything below is read once, when the view is created: media policy and user
        // content cannot change afterwards (as on WebKitGTK).
        let viewConfiguration = WKWebViewConfiguration()
        viewConfiguration.websiteDataStore = provider.dataStore
        viewConfiguration.applicationNameForUserAgent = configuration.applicationNameForUserAgent
        viewConfiguration.mediaTypesRequiringUserActionForPlayback = configuration.media.autoplayWithoutGesture ? [] : .all
        #if !os(macOS)
        viewConfiguration.allowsInlineMediaPlayback = configuration.media.inlinePlayback
        #endif
        contentController = WKUserContentController()
        WKUserContent.install(configuration, into: contentController, messages: messageProxy)
        viewConfiguration.userContentController = contentController
        if let schemeProxy {
            for scheme in configuration.schemeHandlers.keys.sorted() {
                viewConfiguration.setURLSchemeHandler(schemeProxy, forURLScheme: scheme)
            }
        }
        let frame = CGRect(x: 0, y: 0, width: CGFloat(configuration.viewportSize.width),
                           height: CGFloat(configuration.viewportSize.height))
        webView = WKWebView(frame: frame, configuration: viewConfiguration)
        if configuration.developerExtras, #available(iOS 16.4, macOS 13.3, *) {
            webView.isInspectable = true
        }
        navigationProxy.engine = self
        messageProxy.engine = self
        schemeProxy?.engine = self
        webView.navigationDelegate = navigationProxy
        webView.uiDelegate = navigationProxy
        observeWebView()
    }

    isolated deinit {
        close()
    }

    // MARK: Observation

    /// Calls `handler` with every event in order: load events from `WKNavigationDelegate`, state
    /// changes from KVO on the view, process terminations. Nothing arrives after ``close()``.
    /// - Returns: a token that stops the calls when cancelled or released.
    public func observe(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken {
        observers.add(handler)
    }

    func emit(_ event: EngineEvent) {
        guard !closed else { return }
        observers.emit(event)
    }

    /// KVO is WKWebView's only report of these; WebKit changes them on the main thread.
    private func observeWebView() {
        func watch<Value>(_ keyPath: KeyPath<WKWebView, Value>, _ event: @escaping @MainActor (WKWebEngine) -> EngineEvent) {
            let observation = webView.observe(keyPath, options: [.new]) { [weak self] _, _ in
                MainActor.assumeIsolated {
                    guard let self else { return }
                    self.emit(event(self))
                }
            }
            keyValueObservations.append(observation)
        }
        watch(\.url) { .urlChanged($0.url) }
        watch(\.title) { .titleChanged($0.title) }
        watch(\.isLoading) { .loadingChanged($0.isLoading) }
        watch(\.estimatedProgress) { .progressChanged($0.estimatedProgress) }
        watch(\.canGoBack) { .backForwardChanged(canGoBack: $0.canGoBack, canGoForward: $0.canGoForward) }
        watch(\.canGoForward) { .backForwardChanged(canGoBack: $0.canGoBack, canGoForward: $0.canGoForward) }
    }

    // MARK: Loading

    /// Loads `request` as a `URLRequest` with its method, headers and body (that the body reaches
    /// the server is unverified: ``EngineCapabilities/requestBodyLoads`` is not claimed). Ignored
    /// after ``close()``.
    public func load(_ request: EngineRequest) {
        guard !closed else { return }
        terminatedReason = nil
        webView.load(URLRequest(request))
    }

    /// Shows `html` as if it came from `baseURL` (`loadHTMLString(_:baseURL:)`). Ignored after ``close()``.
    public func loadHTML(_ html: String, baseURL: URL?) {
        guard !closed else { return }
        terminatedReason = nil
        webView.loadHTMLString(html, baseURL: baseURL)
    }

    /// Shows `data` as the response for `url` (`loadSimulatedRequest(_:response:responseData:)`),
    /// with `url`'s history entry, origin and relative URLs. Ignored after ``close()``.
    public func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {
        guard !closed else { return }
        terminatedReason = nil
        // History, origin and relative URLs are those of `url`, exactly as for a network load.
        let response = URLResponse(url: url, mimeType: mimeType, expectedContentLength: data.count, textEncodingName: encoding)
        webView.loadSimulatedRequest(URLRequest(url: url), response: response, responseData: data)
    }

    /// Stops the current load. Ignored after ``close()``.
    public func stopLoading() { if !closed { webView.stopLoading() } }
    /// Reloads the page (also after the content process died). Ignored after ``close()``.
    public func reload() {
        guard !closed else { return }
        terminatedReason = nil
        webView.reload()
    }
    /// One step back in the view's history, when there is one. Ignored after ``close()``.
    public func goBack() { if !closed { webView.goBack() } }
    /// One step forward in the view's history, when there is one. Ignored after ``close()``.
    public func goForward() { if !closed { webView.goForward() } }

    // MARK: State

    /// The view's current URL; nil before the first load and after ``close()``.
    public var url: URL? { closed ? nil : webView.url }
    /// The document's title; nil when it has none (an empty title is none) or after ``close()``.
    public var title: String? {
        guard !closed, let title = webView.title, !title.isEmpty else { return nil }
        return title
    }
    /// Whether a load is in progress (`isLoading`); false after ``close()``.
    public var isLoading: Bool { !closed && webView.isLoading }
    /// WebKit's estimate of the current load, 0...1 (`estimatedProgress`); 0 after ``close()``.
    public var estimatedProgress: Double { closed ? 0 : webView.estimatedProgress }
    /// Whether there is a page to go back to; false after ``close()``.
    public var canGoBack: Bool { !closed && webView.canGoBack }
    /// Whether there is a page to go forward to; false after ``close()``.
    public var canGoForward: Bool { !closed && webView.canGoForward }
    /// False once the view was closed or its content process terminated (until the next load
    /// or reload starts a new one).
    public var isAlive: Bool { !closed && terminatedReason == nil }

    /// The view's history: back items oldest first, the current item, forward items. Empty after
    /// ``close()``.
    public var backForwardList: BackForwardList {
        guard !closed else { return BackForwardList() }
        let list = webView.backForwardList
        // WebKit lists the back items oldest first, as the seam does.
        return BackForwardList(
            back: list.backList.map(HistoryItem.init), current: list.currentItem.map(HistoryItem.init),
            forward: list.forwardList.map(HistoryItem.init))
    }

    // MARK: Cookies, process, visibility

    /// The cookie store of the view's data store: the provider's shared one while it lives.
    public var cookieStore: any EngineCookieStore {
        provider?.cookieStore ?? WKCookieStore(store: webView.configuration.websiteDataStore.httpCookieStore)
    }

    /// WKWebView has no public call that ends its content process. The engine reports the
    /// termination the seam promises (pending calls fail, dialogs close, the event follows) and
    /// stops the page, so the owner's recovery (a reload) starts from a clean state.
    public func terminateContentProcess() {
        guard !closed, terminatedReason == nil else { return }
        webView.stopLoading()
        contentProcessDidTerminate(.terminatedByClient)
    }

    /// Shows or hides the view (`isHidden`); WebKit may throttle a hidden page's timers and media.
    /// Ignored after ``close()``.
    public func setVisible(_ visible: Bool) {
        guard !closed else { return }
        webView.isHidden = !visible
    }

    /// Tears the view down: pending script calls fail with `.closed`, open dialogs get their safe
    /// default, delegates, observers, message handlers and user scripts are removed, and the view
    /// leaves its superview. Idempotent; nothing reaches the delegate or observers afterwards.
    public func close() {
        guard !closed else { return }
        failPending(.engine(.closed))
        for dialog in openDialogs { dialog.value?.completeWithSafeDefault() }
        openDialogs.removeAll()
        closed = true
        observers.removeAll()
        for observation in keyValueObservations { observation.invalidate() }
        keyValueObservations.removeAll()
        schemeProxy?.stopAll()
        webView.stopLoading()
        webView.navigationDelegate = nil
        webView.uiDelegate = nil
        // The content controller retains its handlers; removing them breaks that cycle.
        contentController.removeAllScriptMessageHandlers()
        contentController.removeAllUserScripts()
        webView.removeFromSuperview()
    }

    // MARK: Events from the proxies

    func contentProcessDidTerminate(_ reason: TerminationReason) {
        terminatedReason = reason
        failPending(.engine(.contentProcessTerminated(reason)))
        for dialog in openDialogs { dialog.value?.completeWithSafeDefault() }
        openDialogs.removeAll()
        emit(.contentProcessTerminated(reason))
    }

    func didOpen(_ dialog: ScriptDialogCompletion) {
        openDialogs.removeAll { $0.value == nil }
        openDialogs.append(WeakDialog(dialog))
    }

    func checkUsable() throws {
        if closed { throw HybridError.engine(.closed) }
        if let terminatedReason { throw HybridError.engine(.contentProcessTerminated(terminatedReason)) }
    }

    func failPending(_ error: HybridError) {
        let calls = pendingCalls
        pendingCalls.removeAll()
        for id in calls.keys.sorted() { calls[id]?(error) }
    }
}

/// An open dialog, held weakly: if its presenter drops it, it answers itself.
final class WeakDialog {
    weak var value: ScriptDialogCompletion?
    init(_ value: ScriptDialogCompletion) { self.value = value }
}
#endif
