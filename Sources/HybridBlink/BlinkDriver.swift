#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// A Chromium page target under the engine contract: `ContractEngine` over ``BlinkDriver``.
public typealias BlinkWebEngine = ContractEngine<BlinkDriver>

/// The ``EngineDriver`` of a Chromium page target driven through the DevTools protocol:
/// translation only.
///
/// The view exists at once; its target is created and attached asynchronously, and every
/// command issued before that is queued and sent in order (or failed, if the target never comes).
@MainActor
public final class BlinkDriver: EngineDriver {
    /// What Blink can do here. Custom schemes cannot be navigated to (Chromium hands unknown
    /// schemes to the OS); they are served for http(s) URLs instead (`interceptsHTTP`).
    public static let capabilities: EngineCapabilities = [
        .scriptWorlds, .messageReplies, .schemeRequestBodies, .interceptsHTTP, .clearsHistory, .consoleMessages,
        .requestBodyLoads, .secureCookiesOnLoopbackHTTP, .amendsNavigationRequests, .downloads, .fileChoosers, .byteChannel,
    ]

    /// Why Blink lacks what it lacks (``WebEngineProvider/limitations``).
    public static let limitations: [EngineCapabilities: String] = [
        .customSchemeNavigation: "Chromium hands unknown schemes to the OS, so nothing reaches Fetch: serve the handler at an https origin (interceptsHTTP)",
        .streamedSchemeResponses: "Fetch.fulfillRequest takes the whole body: a streamed response is collected, then fulfilled at once",
        .userOriginStyleSheets: "DevTools cannot add user-origin sheets: a user style sheet is a `<style>` the page can see",
        .documentElementAtDocumentStart: "addScriptToEvaluateOnNewDocument runs before `<html>` exists: touch the DOM from DOMContentLoaded",
        .windowOpenReturnsNull: "Chromium has made the window before Page.windowOpen arrives: window.open returns a window that is closed at once",
        .perViewMediaPolicy: "autoplay is a browser-wide Chromium flag, not a per-target setting",
        .permissionPrompts: "DevTools has no permission-prompt event: the policy's allow rules (and remembered grants) are granted up front per origin with Browser.grantPermissions, browser-wide, and headless Chromium refuses every other request itself; an ask rule never reaches the delegate",
        .crossSiteCookiesWithoutSameSite: "Chromium treats a cookie without SameSite as SameSite=Lax: cross-site iframes and images do not get it",
        .backForwardCache: "the adapter turns Chromium's back/forward cache off, so every history navigation is a load with its events",
        .cookieChangeEvents: "the protocol has no cookie event: the store is polled every 100 ms, so changes within one poll are one notification",
        .windowCloseRequests: "no DevTools event asks first: Chromium ignores window.close() in a view it did not open by script unless its history has one entry, and then destroys the target itself (Target.targetDestroyed), which the adapter reports as a close request and the page's loss (contentProcessTerminated, closedByPage: no crash, no boot-health failure): the next load or reload opens a new target",
        .scriptErrorsInContainerWorld: "Chromium dispatches a page's error events only in the page's world; the driver reports errors from "
            + "Runtime.exceptionThrown, which is not sent for an error the page cancelled (onerror returning true, preventDefault) "
            + "nor for a cross-origin iframe (a target of its own)",
        .binaryMessages: "a Runtime.addBinding payload is a string and everything on the DevTools pipe is JSON: small byte values "
            + "cross as base64 and large ones take the byte channel (byteChannel: a loopback HTTP endpoint, BlinkByteServer)",
    ]

    /// `blink`.
    public let engineName = "blink"
    /// ``capabilities``.
    public var capabilities: EngineCapabilities { Self.capabilities }
    /// The contract this driver reports to.
    public weak var host: (any EngineDriverHost)?

    let configuration: EngineConfiguration
    private(set) weak var provider: BlinkEngineProvider?
    private(set) var browser: BlinkBrowser
    /// Frame `id` is this view's main frame or one of its iframes.
    func hasFrame(_ id: String) -> Bool { id == targetID || knownFrames.contains(id) }
    /// The page target; its id is also the main frame's id.
    private(set) var targetID: String?
    private(set) var sessionID: String?
    /// Work waiting for the session (nil once attached or given up): each gets the session, or
    /// `nil` when there will be none.
    private var attachQueue: [(String?) -> Void]? = []
    /// ``tearDown()`` ran.
    private(set) var isTornDown = false
    /// `terminateContentProcess()` was asked for: the crash that follows is ours.
    var crashRequested = false
    /// Chromium destroyed the page's target (the page closed its window): the next load or reload
    /// creates a new one (BlinkDriver+Close.swift).
    private(set) var targetClosed = false

    // Page state, as the last events reported it.
    var currentURL: URL?
    var currentTitle: String?
    var loading = false
    var progress = 0.0
    var history = BackForwardList()
    var historyEntryIDs: (back: [Int], forward: [Int]) = ([], [])
    /// Only documents loaded from a string without a base URL (a pool's warm-up) have been shown:
    /// the next real page removes their history entries, as WebKit keeps none for them.
    var showsOnlyBaselessDocuments = false
    /// Isolated worlds' execution contexts in the main frame, by world name.
    var worldContexts: [String: Int] = [:]
    /// Each frame's origin as it last navigated, by frame id (BlinkDriver+Data.swift).
    var frameOrigins: [String: BridgeOrigin] = [:]
    /// The ids of this view's iframes, in its process or out of it (their origin may be unknown).
    var knownFrames: Set<String> = []
    /// Every frame's page-world execution context's origin, by context id (script errors name it).
    var contextOrigins: [Int: String] = [:]
    /// A load whose first document request gets its method, headers and body (Fetch.continueRequest).
    var pendingLoad: EngineRequest?
    /// Documents to serve at a URL when it is requested (loadHTML, simulated responses).
    var pendingDocuments: [String: (body: Data, contentType: String)] = [:]
    /// Why each upcoming navigation was requested (Page.frameRequestedNavigation), by URL.
    var navigationReasons: [String: String] = [:]
    /// Whether a user gesture started each upcoming document request (Network.requestWillBeSent), by URL.
    var documentGestures: [String: Bool] = [:]
    var historyNavigationPending = false
    /// Main-frame document requests in flight (Network requestId → URL), for load failures.
    var documentRequests: [String: URL] = [:]
    /// What holds the view's own navigations back, and those held (BlinkDriver+HeldNavigations.swift):
    /// a page's navigation Chromium will abandon, and replies to page messages not yet delivered.
    var doomedNavigation: String?
    var repliesInFlight: Set<Int> = []
    var holdingReplies: Set<Int> = []
    var nextReplyToken = 0
    var heldNavigations: [(method: String, params: [String: JSONValue])] = []
    var holdGeneration = 0
    var doomedGeneration = 0
    /// The byte channel's route at the byte server, while the view lives (BlinkDriver+ByteChannel.swift).
    var byteRoute: (baseURL: String, key: String, storeID: String)?

    init(provider: BlinkEngineProvider, browser: BlinkBrowser, configuration: EngineConfiguration) {
        self.provider = provider
        self.browser = browser
        self.configuration = configuration
        openByteRoute()
        start()
    }

    isolated deinit {
        tearDown()
    }

    // MARK: Loading

    /// Navigates to the request's URL (`Page.navigate`); a request with another method, headers or
    /// a body has them put on its document request by Fetch interception. Revives a view whose
    /// browser died.
    public func load(_ request: EngineRequest) {
        reviveBrowser()
        pendingLoad = request.method == "GET" && request.headers.isEmpty && request.body == nil ? nil : request
        navigate(request.url)
    }

    /// Shows `html` as the document at `baseURL` (served by Fetch interception when `baseURL` is
    /// http or https); without such a base it is shown from a `data:` URL with an opaque origin,
    /// or is `about:blank` when `html` is empty.
    public func loadHTML(_ html: String, baseURL: URL?) {
        loadDocument(Data(html.utf8), contentType: "text/html; charset=utf-8", at: baseURL)
    }

    /// Shows `data` as `url`'s response, served by Fetch interception when the view requests `url`.
    public func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {
        loadDocument(data, contentType: encoding.map { "\(mimeType); charset=\($0)" } ?? mimeType, at: url)
    }

    /// Serves `body` when the view requests `url` (Fetch interception); a URL that cannot be
    /// intercepted (none, or not http/https) is shown from a `data:` URL with an opaque origin.
    private func loadDocument(_ body: Data, contentType: String, at url: URL?) {
        reviveBrowser()
        pendingLoad = nil
        if let url, ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            pendingDocuments[url.absoluteString] = (body, contentType)
            navigate(url)
        } else {
            if showsOnlyBaselessDocuments || history.back.isEmpty && ["about", "data", nil].contains(currentURL?.scheme) {
                showsOnlyBaselessDocuments = true
            }
            // An empty document is about:blank, as WebKit shows one: Chromium keeps a tab's
            // about:blank in a renderer no site owns yet, which the next page of any site then
            // uses, while a data: URL document's renderer is its own and the next page starts
            // another (a pool's warm-up: pooled opens 64-69 ms against 42, docs/lifecycle.md).
            navigate(body.isEmpty ? URL(string: "about:blank")!
                : URL(string: "data:\(contentType.replacingOccurrences(of: " ", with: ""));base64,\(body.base64EncodedString())")!)
        }
    }

    private func navigate(_ url: URL) {
        startNavigation("Page.navigate", ["url": .string(url.absoluteString)])
    }

    /// Schemes Chromium loads itself (anything else never reaches Fetch).
    static let loadableSchemes = EngineCapabilities.webSchemes

    /// A view whose browser died gets a new browser (and a new target in it); a view whose target
    /// Chromium destroyed gets a new target. Returns whether it did (the new target shows about:blank).
    @discardableResult
    private func reviveBrowser() -> Bool {
        if browser.hasExited, let provider, let fresh = try? provider.runningBrowser() {
            browser = fresh
        } else if !targetClosed {
            return false
        }
        targetClosed = false
        start()
        return true
    }

    /// Forgets the target Chromium destroyed: commands fail until the next load or reload
    /// creates a new one.
    func forgetClosedTarget() {
        browser.forget(session: sessionID, target: targetID)
        targetID = nil
        sessionID = nil
        knownFrames.removeAll()
        targetClosed = true
    }

    /// Stops the current load (`Page.stopLoading`).
    public func stopLoading() { fire("Page.stopLoading") }

    /// Reloads the page (`Page.reload`); a view whose browser died or whose target was destroyed
    /// loads its last URL in the new target instead (a reload there would show about:blank).
    public func reload() {
        if reviveBrowser(), let currentURL {
            pendingLoad = nil
            navigate(currentURL)
        } else {
            startNavigation("Page.reload")
        }
    }

    /// Goes to the previous history entry (`Page.navigateToHistoryEntry`), if there is one.
    public func goBack() { goToHistoryEntry(historyEntryIDs.back.last) }
    /// Goes to the next history entry, if there is one.
    public func goForward() { goToHistoryEntry(historyEntryIDs.forward.first) }

    private func goToHistoryEntry(_ id: Int?) {
        guard let id else { return }
        historyNavigationPending = true
        startNavigation("Page.navigateToHistoryEntry", ["entryId": .number(Double(id))])
    }

    /// Empties the back-forward list for real (Page.resetNavigationHistory); the current page stays.
    public func clearHistory() {
        fire("Page.resetNavigationHistory")
        refreshHistory()
    }

    // MARK: State

    /// The main frame's URL as the last navigation reported it.
    public var url: URL? { currentURL }
    /// The page's title as the last event reported it.
    public var title: String? { currentTitle }
    /// A main-frame load is in progress.
    public var isLoading: Bool { loading }
    /// The driver's own progress estimate (0...1), moved on by load events.
    public var estimatedProgress: Double { progress }
    /// There is an entry to go back to.
    public var canGoBack: Bool { !history.back.isEmpty }
    /// There is an entry to go forward to.
    public var canGoForward: Bool { !history.forward.isEmpty }
    /// The target's navigation history as last read (`Page.getNavigationHistory`).
    public var backForwardList: BackForwardList { history }

    // MARK: Cookies, snapshot, process

    /// The provider's shared cookie store.
    public var cookieStore: any EngineCookieStore {
        provider?.cookieStore ?? BlinkCookieStore(browser: browser)
    }

    /// PNG data of the page (`Page.captureScreenshot`); `snapshotFailed` when Chromium returns no image.
    public func snapshot(completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void) {
        send("Page.captureScreenshot", ["format": "png"]) { result in
            completion(result.flatMap { value in
                guard let base64 = value.string("data"), let png = Data(base64Encoded: base64) else {
                    return .failure(HybridError.engine(.snapshotFailed("no image data")))
                }
                return .success(png)
            })
        }
    }

    /// Crashes the renderer (`Page.crash`); the crash is reported as `terminatedByClient`.
    public func terminateContentProcess() {
        crashRequested = true
        fire("Page.crash")
    }

    /// Restores (`normal`) or minimises the target's window (`Browser.setWindowBounds`).
    public func setVisible(_ visible: Bool) {
        guard let targetID else { return }
        browser.send("Browser.getWindowForTarget", ["targetId": .string(targetID)]) { [weak self] result in
            guard let self, case .success(let window) = result, let id = window.int("windowId") else { return }
            self.browser.send("Browser.setWindowBounds", [
                "windowId": .number(Double(id)), "bounds": ["windowState": visible ? "normal" : "minimized"],
            ])
        }
    }

    /// Closes the target and forgets the session; queued work is given up. Idempotent.
    public func tearDown() {
        guard !isTornDown else { return }
        isTornDown = true
        host = nil
        closeByteRoute()
        giveUpAttaching()
        if let targetID { browser.send("Target.closeTarget", ["targetId": .string(targetID)]) }
        browser.forget(session: sessionID, target: targetID)
    }

    // MARK: Target and commands

    /// Creates and attaches the page target, enables the domains, installs the user content,
    /// then runs the queued work in order.
    private func start() {
        attachQueue = attachQueue ?? []
        let browser = browser
        // The viewport is set by device-metrics emulation once attached (size only applies to new windows).
        browser.send("Target.createTarget", ["url": "about:blank", "newWindow": true]) { [weak self] result in
            guard case .success(let created) = result, let target = created.string("targetId") else {
                self?.attachFailed()
                return
            }
            guard let self, !self.isTornDown, self.browser === browser else {
                browser.send("Target.closeTarget", ["targetId": .string(target)])
                return
            }
            browser.send("Target.attachToTarget", ["targetId": .string(target), "flatten": true]) { [weak self] result in
                guard let self, case .success(let attached) = result, let session = attached.string("sessionId") else {
                    self?.attachFailed()
                    return
                }
                self.targetID = target
                self.sessionID = session
                browser.register(session: session, target: target, for: self)
                self.configureSession(session) { [weak self] in self?.attached(session) }
            }
        }
    }

    private func attached(_ session: String) {
        let queue = attachQueue ?? []
        attachQueue = nil
        for work in queue { work(session) }
    }

    private func giveUpAttaching() {
        let queue = attachQueue ?? []
        attachQueue = nil
        for work in queue { work(nil) }
    }

    private func attachFailed() {
        guard !isTornDown else { return }
        giveUpAttaching()
        contentProcessDidTerminate(.crashed)
    }

    /// Runs `work` with the session once attached (at once if attached); with `nil` when the
    /// view goes before it attaches, or at once when it has gone.
    func whenAttached(_ work: @escaping (String?) -> Void) {
        guard !isTornDown else { return work(nil) }
        if let sessionID, attachQueue == nil { work(sessionID) } else if attachQueue != nil { attachQueue?.append(work) } else { work(nil) }
    }

    /// Sends a command on this view's session without waiting for its answer (`then` runs once
    /// it is answered, whether it succeeded or not, or the command could not be sent).
    func fire(_ method: String, _ params: [String: JSONValue] = [:], then: (@MainActor () -> Void)? = nil) {
        whenAttached { [browser] session in
            guard let session else { then?(); return }
            browser.send(method, params, session: session) { _ in then?() }
        }
    }

    /// Sends a command on this view's session; `reply` gets its result exactly once (the
    /// browser's error, or `closed` when the view went before it could be sent).
    func send(_ method: String, _ params: [String: JSONValue] = [:], reply: @escaping @MainActor (Result<JSONValue, any Error>) -> Void) {
        whenAttached { [browser] session in
            guard let session else { return reply(.failure(HybridError.engine(.closed))) }
            browser.send(method, params, session: session) { result in reply(result.mapError { $0.hybridError }) }
        }
    }

    /// Sends a command and awaits its result.
    func command(_ method: String, _ params: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            send(method, params) { continuation.resume(with: $0) }
        }
    }
}

extension ContractEngine where Driver == BlinkDriver {
    /// ``BlinkDriver/capabilities``.
    public static var blinkCapabilities: EngineCapabilities { BlinkDriver.capabilities }
    /// ``BlinkDriver/limitations``.
    public static var blinkLimitations: [EngineCapabilities: String] { BlinkDriver.limitations }
    /// Empties the back-forward list for real (the current page stays). Nothing once closed.
    public func clearHistory() { if !isClosed { driver.clearHistory() } }
}
#endif
