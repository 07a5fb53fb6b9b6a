#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// `WebEngine` on a Chromium page target driven through the DevTools protocol: translation
/// only, no policy.
///
/// The view exists at once; its target is created and attached asynchronously, and every verb
/// issued before that is queued and sent in order. Script calls and snapshots are tracked so a
/// renderer crash or ``close()`` fails each of them exactly once.
@MainActor
public final class BlinkWebEngine: WebEngine {
    /// What Blink can do here. Custom schemes cannot be navigated to (Chromium hands unknown
    /// schemes to the OS); they are served for http(s) URLs instead (`interceptsHTTP`).
    public static let blinkCapabilities: EngineCapabilities = [
        .scriptWorlds, .messageReplies, .schemeRequestBodies, .interceptsHTTP, .clearsHistory, .consoleMessages,
        .requestBodyLoads, .secureCookiesOnLoopbackHTTP, .amendsNavigationRequests,
    ]

    /// Why Blink lacks what it lacks (``WebEngineProvider/limitations``).
    public static let blinkLimitations: [EngineCapabilities: String] = [
        .customSchemeNavigation: "Chromium hands unknown schemes to the OS, so nothing reaches Fetch: serve the handler at an https origin (interceptsHTTP)",
        .streamedSchemeResponses: "Fetch.fulfillRequest takes the whole body: a streamed response is collected, then fulfilled at once",
        .userOriginStyleSheets: "DevTools cannot add user-origin sheets: a user style sheet is a `<style>` the page can see",
        .documentElementAtDocumentStart: "addScriptToEvaluateOnNewDocument runs before `<html>` exists: touch the DOM from DOMContentLoaded",
        .windowOpenReturnsNull: "Chromium has made the window before Page.windowOpen arrives: window.open returns a window that is closed at once",
        .perViewMediaPolicy: "autoplay is a browser-wide Chromium flag, not a per-target setting",
        .downloads: "no download manager over DevTools: a .download response policy cancels the response",
        .crossSiteCookiesWithoutSameSite: "Chromium treats a cookie without SameSite as SameSite=Lax: cross-site iframes and images do not get it",
        .backForwardCache: "the adapter turns Chromium's back/forward cache off, so every history navigation is a load with its events",
        .cookieChangeEvents: "the protocol has no cookie event: the store is polled every 100 ms, so changes within one poll are one notification",
    ]

    /// `blink`.
    public let engineName = "blink"
    /// ``blinkCapabilities``.
    public var capabilities: EngineCapabilities { Self.blinkCapabilities }
    /// Decides navigations and answers dialogs; held weakly.
    public weak var delegate: (any WebEngineDelegate)?

    let configuration: EngineConfiguration
    private weak var provider: BlinkEngineProvider?
    private(set) var browser: BlinkBrowser
    /// The page target; its id is also the main frame's id.
    private(set) var targetID: String?
    private(set) var sessionID: String?
    /// Work waiting for the session (nil once attached).
    private var attachQueue: [(String) -> Void]? = []
    private let observers = EngineObservers()
    private var pendingCalls: [Int: PendingCall] = [:]
    private var nextCallID = 0
    var openDialogs: [Weak<ScriptDialogCompletion>] = []
    var terminatedReason: TerminationReason?
    /// `terminateContentProcess()` was asked for: the crash that follows is ours.
    var crashRequested = false
    /// ``close()`` was called.
    public private(set) var isClosed = false

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
    /// What holds the view's own navigations back, and those held (BlinkWebEngine+HeldNavigations.swift):
    /// a page's navigation Chromium will abandon, and replies to page messages not yet delivered.
    var doomedNavigation: String?
    var repliesInFlight: Set<Int> = []
    var holdingReplies: Set<Int> = []
    var nextReplyToken = 0
    var heldNavigations: [(method: String, params: [String: JSONValue])] = []
    var holdGeneration = 0
    var doomedGeneration = 0

    init(provider: BlinkEngineProvider, browser: BlinkBrowser, configuration: EngineConfiguration) {
        self.provider = provider
        self.browser = browser
        self.configuration = configuration
        start()
    }

    isolated deinit {
        close()
    }

    // MARK: Observation

    /// Calls `handler` for every event of this view, until the token is cancelled or the view closes.
    public func observe(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken {
        observers.add(handler)
    }

    func emit(_ event: EngineEvent) {
        guard !isClosed else { return }
        observers.emit(event)
    }

    // MARK: Loading

    /// Navigates to the request's URL (`Page.navigate`); a request with another method, headers or
    /// a body has them put on its document request by Fetch interception. Revives a view whose
    /// browser died.
    public func load(_ request: EngineRequest) {
        guard prepareToLoad() else { return }
        pendingLoad = request.method == "GET" && request.headers.isEmpty && request.body == nil ? nil : request
        navigate(request.url)
    }

    /// Shows `html` as the document at `baseURL` (served by Fetch interception when `baseURL` is
    /// http or https); without such a base it is shown from a `data:` URL with an opaque origin.
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
        guard prepareToLoad() else { return }
        pendingLoad = nil
        if let url, ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            pendingDocuments[url.absoluteString] = (body, contentType)
            navigate(url)
        } else {
            if showsOnlyBaselessDocuments || history.back.isEmpty && ["about", "data", nil].contains(currentURL?.scheme) {
                showsOnlyBaselessDocuments = true
            }
            navigate(URL(string: "data:\(contentType.replacingOccurrences(of: " ", with: ""));base64,\(body.base64EncodedString())")!)
        }
    }

    private func navigate(_ url: URL) {
        startNavigation("Page.navigate", ["url": .string(url.absoluteString)])
    }

    /// Schemes Chromium loads itself (anything else never reaches Fetch).
    static let loadableSchemes: Set<String> = ["http", "https", "data", "about", "blob", "file", "javascript"]

    /// Revives a view whose renderer or browser died; `false` once closed.
    private func prepareToLoad() -> Bool {
        guard !isClosed else { return false }
        terminatedReason = nil
        if browser.hasExited, let provider, let fresh = try? provider.runningBrowser() {
            browser = fresh
            start()
        }
        return true
    }

    /// Stops the current load (`Page.stopLoading`).
    public func stopLoading() { fire("Page.stopLoading") }

    /// Reloads the page (`Page.reload`), reviving a view whose browser died.
    public func reload() {
        guard prepareToLoad() else { return }
        startNavigation("Page.reload")
    }

    /// Goes to the previous history entry (`Page.navigateToHistoryEntry`), if there is one.
    public func goBack() { goToHistoryEntry(historyEntryIDs.back.last) }
    /// Goes to the next history entry, if there is one.
    public func goForward() { goToHistoryEntry(historyEntryIDs.forward.first) }

    private func goToHistoryEntry(_ id: Int?) {
        guard let id, !isClosed else { return }
        historyNavigationPending = true
        startNavigation("Page.navigateToHistoryEntry", ["entryId": .number(Double(id))])
    }

    /// Empties the back-forward list for real (Page.resetNavigationHistory); the current page stays.
    public func clearHistory() {
        fire("Page.resetNavigationHistory")
        refreshHistory()
    }

    // MARK: State

    /// The main frame's URL as the last navigation reported it; `nil` once closed.
    public var url: URL? { isClosed ? nil : currentURL }
    /// The page's title as the last event reported it; `nil` once closed.
    public var title: String? { isClosed ? nil : currentTitle }
    /// A main-frame load is in progress.
    public var isLoading: Bool { !isClosed && loading }
    /// The adapter's own progress estimate (0...1), moved on by load events.
    public var estimatedProgress: Double { isClosed ? 0 : progress }
    /// There is an entry to go back to.
    public var canGoBack: Bool { !isClosed && !history.back.isEmpty }
    /// There is an entry to go forward to.
    public var canGoForward: Bool { !isClosed && !history.forward.isEmpty }
    /// The target's navigation history as last read (`Page.getNavigationHistory`).
    public var backForwardList: BackForwardList { isClosed ? BackForwardList() : history }
    /// Not closed, and the renderer has not died since the last load.
    public var isAlive: Bool { !isClosed && terminatedReason == nil }

    // MARK: Cookies, snapshot, process

    /// The provider's shared cookie store.
    public var cookieStore: any EngineCookieStore {
        provider?.cookieStore ?? BlinkCookieStore(browser: browser)
    }

    /// PNG data of the page (`Page.captureScreenshot`).
    /// - Throws: `HybridError.engine(.snapshotFailed)` when Chromium returns no image, or the
    ///   failure of a view that is closed or whose renderer died.
    public func snapshot() async throws -> Data {
        let result = try await command("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result.string("data"), let png = Data(base64Encoded: base64) else {
            throw HybridError.engine(.snapshotFailed("no image data"))
        }
        return png
    }

    /// Crashes the renderer (`Page.crash`); a ``EngineEvent/contentProcessTerminated(_:)`` with
    /// `terminatedByClient` follows.
    public func terminateContentProcess() {
        guard !isClosed, terminatedReason == nil else { return }
        crashRequested = true
        fire("Page.crash")
    }

    /// Restores (`normal`) or minimises the target's window (`Browser.setWindowBounds`).
    public func setVisible(_ visible: Bool) {
        guard !isClosed, let targetID else { return }
        browser.send("Browser.getWindowForTarget", ["targetId": .string(targetID)]) { [weak self] result in
            guard let self, case .success(let window) = result, let id = window.int("windowId") else { return }
            self.browser.send("Browser.setWindowBounds", [
                "windowId": .number(Double(id)), "bounds": ["windowState": visible ? "normal" : "minimized"],
            ])
        }
    }

    /// Fails pending calls with `.closed`, gives open dialogs their safe default and closes the
    /// target. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        observers.removeAll()
        failPending(.engine(.closed))
        for dialog in openDialogs { dialog.value?.completeWithSafeDefault() }
        openDialogs.removeAll()
        attachQueue = nil
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
            guard let self, !self.isClosed, self.browser === browser else {
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

    private func attachFailed() {
        guard !isClosed else { return }
        attachQueue = nil
        contentProcessDidTerminate(.crashed)
    }

    /// Runs `work` with the session once attached (at once if attached, never once closed).
    func whenAttached(_ work: @escaping (String) -> Void) {
        guard !isClosed else { return }
        if let sessionID, attachQueue == nil { work(sessionID) } else { attachQueue?.append(work) }
    }

    /// Sends a command on this view's session without waiting for its answer (`then` runs once
    /// it is answered, whether it succeeded or not).
    func fire(_ method: String, _ params: [String: JSONValue] = [:], then: (@MainActor () -> Void)? = nil) {
        whenAttached { [browser] session in browser.send(method, params, session: session) { _ in then?() } }
    }

    /// Sends a command and awaits its result; a crash or ``close()`` fails it exactly once.
    func command(_ method: String, _ params: [String: JSONValue] = [:]) async throws -> JSONValue {
        try checkUsable()
        nextCallID += 1
        let id = nextCallID
        let call = PendingCall()
        pendingCalls[id] = call
        return try await withCheckedThrowingContinuation { continuation in
            call.continuation = continuation
            whenAttached { [weak self] session in
                self?.browser.send(method, params, session: session) { [weak self] result in
                    self?.pendingCalls[id] = nil
                    call.finish(result.mapError { $0.hybridError })
                }
            }
        }
    }

    func checkUsable() throws {
        if isClosed { throw HybridError.engine(.closed) }
        if let terminatedReason { throw HybridError.engine(.contentProcessTerminated(terminatedReason)) }
    }

    func failPending(_ error: HybridError) {
        let calls = pendingCalls
        pendingCalls.removeAll()
        for id in calls.keys.sorted() { calls[id]?.finish(.failure(error)) }
    }
}

/// One awaited command; finished exactly once (answer, crash or close, whichever comes first).
@MainActor
final class PendingCall {
    var continuation: CheckedContinuation<JSONValue, any Error>?
    func finish(_ result: Result<JSONValue, HybridError>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(with: result.mapError { $0 as any Error })
    }
}
#endif
