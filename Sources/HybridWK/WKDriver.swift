#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// A WKWebView under the engine contract: `ContractEngine` over ``WKDriver``.
public typealias WKWebEngine = ContractEngine<WKDriver>

/// The ``EngineDriver`` of a `WKWebView`: translation only.
///
/// WebKit's delegates are small `NSObject` proxies that hold this driver weakly (WebKit retains
/// message and scheme handlers strongly); nothing reaches the host after ``tearDown()``.
@MainActor
public final class WKDriver: EngineDriver {
    /// What WKWebView can do. It cannot clear history, forward console messages (without a
    /// script of our own), take over http/https, or let the app answer iOS's file picker (see ``limitations``).
    public static let capabilities: EngineCapabilities = [
        .scriptWorlds, .messageReplies, .schemeRequestBodies, .customSchemeNavigation, .streamedSchemeResponses,
        .userOriginStyleSheets, .documentElementAtDocumentStart, .windowOpenReturnsNull, .perViewMediaPolicy,
        .cookieChangeEvents, .crossSiteCookiesWithoutSameSite, .backForwardCache, .downloads, .permissionPrompts,
        .windowCloseRequests, .scriptErrorsInContainerWorld,
    ]

    /// Why WKWebView lacks what it lacks (``WebEngineProvider/limitations``).
    public static let limitations: [EngineCapabilities: String] = [
        .interceptsHTTP: "WKURLSchemeHandler cannot be registered for http/https",
        .clearsHistory: "WKWebView has no call that clears the back-forward list",
        .consoleMessages: "WKWebView forwards no console messages",
        .fileChoosers: "iOS has no open-panel delegate method: WKWebView shows its own picker (photos, camera, files); "
            + "on macOS runOpenPanelWith reaches the delegate",
        .requestBodyLoads: "not claimed: a loaded request's body is not verified to reach the server on every OS version",
        .secureCookiesOnLoopbackHTTP: "not claimed: unverified on WKWebView",
        .amendsNavigationRequests: "a WKNavigationActionPolicy only allows or cancels the request: a redirect is a cancel and a new load",
        .binaryMessages: "not claimed: WKScriptMessage bodies are documented as NSNumber, NSString, NSDate, NSArray, NSDictionary "
            + "and NSNull only, so bytes cross as base64",
        .byteChannel: "not claimed: WKURLSchemeTask offers request.httpBody and didReceive(_:) for a custom scheme, but the "
            + "channel (a CORS fetch from the page's origin) is not measured on a device, so bytes cross as base64",
    ]

    /// `webkit` (the WebKit engine, as WebKitGTK is on Linux).
    public let engineName = "webkit"
    /// ``capabilities``.
    public var capabilities: EngineCapabilities { Self.capabilities }
    /// The contract this driver reports to.
    public weak var host: (any EngineDriverHost)?

    /// The view to put on screen. Valid until ``tearDown()``; afterwards it is detached and inert.
    public let webView: WKWebView
    let configuration: EngineConfiguration
    /// Kept here: `webView.configuration` is a copy, and this is the controller that holds the
    /// handlers to remove on tear-down.
    private let contentController: WKUserContentController
    private weak var provider: WKEngineProvider?
    private let navigationProxy: WKNavigationProxy
    private let messageProxy: WKMessageProxy
    private let schemeProxy: WKSchemeProxy?
    private var keyValueObservations: [NSKeyValueObservation] = []
    /// The delegate of the downloads this view's navigations become (WKDownloadProxy.swift).
    let downloads = WKDownloadProxy()
    private var tornDown = false

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
        navigationProxy.driver = self
        downloads.driver = self
        messageProxy.driver = self
        webView.navigationDelegate = navigationProxy
        webView.uiDelegate = navigationProxy
        observeWebView()
    }

    isolated deinit {
        tearDown()
    }

    /// KVO is WKWebView's only report of these; WebKit changes them on the main thread.
    private func observeWebView() {
        func watch<Value>(_ keyPath: KeyPath<WKWebView, Value>, _ event: @escaping @MainActor (WKDriver) -> EngineEvent) {
            let observation = webView.observe(keyPath, options: [.new]) { [weak self] _, _ in
                MainActor.assumeIsolated {
                    guard let self else { return }
                    self.host?.report(event(self))
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
    /// the server is unverified: ``EngineCapabilities/requestBodyLoads`` is not claimed).
    public func load(_ request: EngineRequest) { webView.load(URLRequest(request)) }

    /// Shows `html` as if it came from `baseURL` (`loadHTMLString(_:baseURL:)`).
    public func loadHTML(_ html: String, baseURL: URL?) { webView.loadHTMLString(html, baseURL: baseURL) }

    /// Shows `data` as the response for `url` (`loadSimulatedRequest(_:response:responseData:)`),
    /// with `url`'s history entry, origin and relative URLs.
    public func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {
        let response = URLResponse(url: url, mimeType: mimeType, expectedContentLength: data.count, textEncodingName: encoding)
        webView.loadSimulatedRequest(URLRequest(url: url), response: response, responseData: data)
    }

    /// Stops the current load.
    public func stopLoading() { webView.stopLoading() }
    /// Reloads the page (also after the content process died).
    public func reload() { webView.reload() }
    /// One step back in the view's history, when there is one.
    public func goBack() { webView.goBack() }
    /// One step forward in the view's history, when there is one.
    public func goForward() { webView.goForward() }

    // MARK: State

    /// The view's current URL; nil before the first load.
    public var url: URL? { webView.url }
    /// The document's title (the contract treats an empty one as none).
    public var title: String? { webView.title }
    /// Whether a load is in progress (`isLoading`).
    public var isLoading: Bool { webView.isLoading }
    /// WebKit's estimate of the current load, 0...1 (`estimatedProgress`).
    public var estimatedProgress: Double { webView.estimatedProgress }
    /// Whether there is a page to go back to.
    public var canGoBack: Bool { webView.canGoBack }
    /// Whether there is a page to go forward to.
    public var canGoForward: Bool { webView.canGoForward }

    /// The view's history: back items oldest first (as WebKit lists them), the current item, forward items.
    public var backForwardList: BackForwardList {
        let list = webView.backForwardList
        return BackForwardList(
            back: list.backList.map(HistoryItem.init), current: list.currentItem.map(HistoryItem.init),
            forward: list.forwardList.map(HistoryItem.init))
    }

    // MARK: Cookies, process, visibility

    /// The cookie store of the view's data store: the provider's shared one while it lives.
    public var cookieStore: any EngineCookieStore {
        provider?.cookieStore ?? WKCookieStore(store: webView.configuration.websiteDataStore.httpCookieStore)
    }

    /// WKWebView has no public call that ends its content process: the page is stopped and the
    /// termination reported as `terminatedByClient`, so the owner's recovery (a reload) starts
    /// from a clean state.
    public func terminateContentProcess() {
        webView.stopLoading()
        host?.contentProcessTerminated(.terminatedByClient)
    }

    /// Shows or hides the view (`isHidden`); WebKit may throttle a hidden page's timers and media.
    public func setVisible(_ visible: Bool) { webView.isHidden = !visible }

    /// Removes delegates, observers, message handlers and user scripts, and takes the view out of
    /// its superview. Idempotent.
    public func tearDown() {
        guard !tornDown else { return }
        tornDown = true
        host = nil
        for observation in keyValueObservations { observation.invalidate() }
        keyValueObservations.removeAll()
        schemeProxy?.stopAll()
        downloads.stopAll()
        webView.stopLoading()
        webView.navigationDelegate = nil
        webView.uiDelegate = nil
        // The content controller retains its handlers; removing them breaks that cycle.
        contentController.removeAllScriptMessageHandlers()
        contentController.removeAllUserScripts()
        webView.removeFromSuperview()
    }
}

extension ContractEngine where Driver == WKDriver {
    /// ``WKDriver/capabilities``.
    public static var webKitCapabilities: EngineCapabilities { WKDriver.capabilities }
    /// ``WKDriver/limitations``.
    public static var webKitLimitations: [EngineCapabilities: String] { WKDriver.limitations }
    /// The `WKWebView` to put on screen (detached and inert once the view closes).
    public var webView: WKWebView { driver.webView }
}
#endif
