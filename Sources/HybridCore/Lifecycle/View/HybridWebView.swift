import Foundation
import HybridBase
import HybridEngine

/// The container app developers use: one engine view with the bridge, cookie sync, an optional
/// offline package, injected content and the lifecycle handled — progress, dialogs, white
/// screens, back navigation, snapshots and media.
///
/// Engine-neutral: it is made from a ``WebEngineProvider`` and talks to the engine only through
/// the ``WebEngine`` seam. It is the engine's delegate and chains navigation decisions: the
/// container's own URLs, then the bridge's `hybrid://` URLs, then new-window requests, then
/// the app's ``delegate``.
///
/// ```swift
/// let view = try HybridWebView(provider: provider, configuration: configuration)
/// view.delegate = self
/// let token = view.observe { state in progressBar.value = state.progress.fraction }
/// view.load(URL(string: "https://m.example.com/")!)
/// ```
@MainActor
public final class HybridWebView {
    /// What the app shows about the page: one value, observed with ``observe(_:)``.
    public struct State: Sendable, Equatable {
        /// The page's URL; `nil` until the view is first asked to show a page (a pooled view's warm-up
        /// document does not count).
        public var url: URL?
        /// The page's title: the one it set through the bridge (`navigation.setTitle`), else the document's.
        public var title: String?
        /// A page is loading.
        public var isLoading: Bool
        /// The progress bar's value (see ``ProgressModel``).
        public var progress: LoadProgress
        /// The back button can go back in the page.
        public var canGoBack: Bool
        /// There is a page to go forward to.
        public var canGoForward: Bool

        /// The state of a view that has shown nothing yet.
        public static let initial = State(url: nil, title: nil, isLoading: false, progress: .initial,
                                          canGoBack: false, canGoForward: false)
    }

    /// The engine view this container drives.
    public let engine: any WebEngine
    /// The bridge between the page's `hybrid` runtime and the native modules.
    public let bridge: BridgeHost
    /// What the view was created with.
    public let configuration: HybridWebViewConfiguration
    /// Receives lifecycle events and decides what the container leaves to the app; held weakly.
    public weak var delegate: (any HybridWebViewDelegate)?
    /// The state now; ``observe(_:)`` reports each change.
    public private(set) var state: State = .initial
    /// Whether the view is on screen (``setVisible(_:)``).
    public private(set) var isVisible = true
    /// Set while the app animates the container in or out: dialogs get their safe default
    /// instead of appearing over a moving screen.
    public var isInTransition = false {
        didSet { if isInTransition { dismissDialogs() } }
    }
    /// ``close()`` was called; the view does nothing afterwards.
    public private(set) var isClosed = false
    /// The view showed (or was asked to show) a page; a pool cannot make it traceless again
    /// unless the engine clears history.
    public var hasNavigated: Bool { poolRecord.hasNavigated }
    /// The error page is showing after recovery gave up.
    public var errorPage: WhiteScreenEvent? { recovery.errorPage }

    /// Warm-up and pool bookkeeping: warmth, uses, the warm-up document's events.
    var poolRecord = PoolRecord()
    private var observers: [UInt64: @MainActor (State) -> Void] = [:]
    private var nextObserver: UInt64 = 0
    private var engineObservation: ObservationToken?
    var progressModel: ProgressModel
    private var progressTicker: Task<Void, Never>?
    /// White-screen recovery: the policy, a scheduled reload, the error page.
    var recovery: PageRecovery
    /// What the view knows of its page beyond the engine's state.
    var page = PageRecord()
    /// Dialogs handed to the delegate and not answered yet.
    var dialogs = OpenDialogs()
    /// The page's requests for new windows, told to the delegate once each.
    var newWindows = NewWindowRequests()
    /// The launch of a package version on trial, until it is healthy or rolled back.
    var bootTrial: BootTrialSession?
    /// The URL the navigation policy last redirected to (its load is let through as is).
    var navigationRedirect: URL?
    /// Health recording, when the configuration has a recorder (``HybridWebViewConfiguration/health``).
    var health: ViewHealth?
    let start = Date()

    /// Creates the engine view with the bridge, package scheme and injections installed.
    /// - Throws: what the provider throws when it cannot make a view.
    public init(provider: any WebEngineProvider, configuration: HybridWebViewConfiguration = HybridWebViewConfiguration()) throws {
        self.configuration = configuration
        let navigationSlot = BridgeDelegateSlot<any BridgeNavigationDelegate>()
        var modules = configuration.modules
        if let origins = configuration.navigationModuleOrigins {
            modules.append(NavigationModule(allowedOrigins: origins, slot: navigationSlot))
        }
        let bootSlot = BridgeDelegateSlot<any BridgeAppHealthDelegate>()
        let readyOrigins = configuration.health == nil ? [] : configuration.readyOrigins
        let boot = configuration.package.map { Self.bootHealthModule($0, readyOrigins: readyOrigins, slot: bootSlot) }
        if let module = boot ?? Self.readyModule(readyOrigins, slot: bootSlot) { modules.append(module) }
        bridge = BridgeHost(capabilities: provider.capabilities, modules: modules,
                            limits: configuration.bridgeLimits, options: configuration.bridgeOptions,
                            byteChannelOrigin: provider.byteChannelOrigin)
        var engineConfiguration = configuration.engineConfiguration(bridge: bridge)
        // One script-error capture for health recording and boot health (`hybrid-health.js`).
        let health = configuration.health.map { ViewHealth(recorder: $0) }
        if let capture = Self.pageCapture(recording: health != nil, package: configuration.package != nil,
                                          world: .named(configuration.bridgeOptions.worldName), slot: bootSlot) {
            engineConfiguration.userScripts.append(capture.script)
            engineConfiguration.messageHandlers.append(capture.handler)
        }
        engine = try provider.makeEngine(engineConfiguration)
        progressModel = ProgressModel(options: configuration.progress)
        recovery = PageRecovery(policy: configuration.whiteScreen)
        engine.delegate = self
        navigationSlot.delegate = self
        bootSlot.delegate = self
        bridge.attach(engine)
        // A proxied form POST's response is shown in this view.
        for case let proxy as ProxyModule in configuration.modules { proxy.documents.engine = engine }
        self.health = health
        health?.attach(self)
        engineObservation = engine.observe { [weak self] event in self?.engineDidReport(event) }
    }

    isolated deinit { close() }

    /// Seconds since the view was made (the clock of the progress and white-screen policies).
    var now: Double { Date().timeIntervalSince(start) }

    // MARK: Loading

    /// Loads `url`.
    public func load(_ url: URL) { load(EngineRequest(url: url)) }

    /// Loads a request (method, headers and body where the engine allows). A URL the engine
    /// cannot navigate to (a custom scheme on Blink) fails at once, through
    /// ``HybridWebViewDelegate/webView(_:didFailLoad:)``, instead of going nowhere.
    public func load(_ request: EngineRequest) {
        guard beginNavigation() else { return }
        if let reason = engine.capabilities.cannotNavigate(to: request.url) {
            pageDidFail(request.url, message: reason)
            return
        }
        health?.appLoading(request.url, preloaded: false)
        beginBootLaunch(request.url)
        engine.load(request)
    }

    /// Loads HTML as if it came from `baseURL`.
    public func loadHTML(_ html: String, baseURL: URL?) {
        guard beginNavigation() else { return }
        health?.appLoading(baseURL, preloaded: false)
        engine.loadHTML(html, baseURL: baseURL)
    }

    /// Loads `url` with its HTML fetched in parallel (``PagePreloader/start(_:)``, started
    /// before this view was made or dequeued): meanwhile the engine starts its content process;
    /// then the fetched bytes are shown as the response for the URL, so history, origin and
    /// relative URLs are those of a normal load. Falls back to a normal load when the fetch gave
    /// nothing usable.
    public func load(_ url: URL, preloaded: Task<PreloadedPage?, Never>) async {
        guard beginNavigation() else { return }
        health?.appLoading(url, preloaded: true)
        beginBootLaunch(url)
        if !poolRecord.isWarm { warmUp() }
        let page = await preloaded.value
        guard !isClosed else { return }
        if let page {
            // Shown at once, whether or not the warm-up document finished: the content process
            // it started is kept, and waiting for it would add a navigation (measured slower).
            await configuration.cookieSync?.prepareNavigation(to: page.url)
            engine.loadSimulatedResponse(page.data, mimeType: page.mimeType, encoding: page.encoding, for: page.url)
        } else {
            engine.load(url)
        }
    }

    /// Reloads the page.
    public func reload() {
        guard beginNavigation() else { return }
        health?.appLoading(engine.url ?? page.lastURL, preloaded: false)
        beginBootLaunch(engine.url ?? page.lastURL)
        engine.reload()
    }

    /// Stops the current load.
    public func stopLoading() { engine.stopLoading() }
    /// Goes forward one entry, if there is one.
    public func goForward() { engine.goForward() }

    /// Goes back one entry (the page comes back from the page cache without `onload`; the
    /// runtime emits `hybrid.on('resume')`).
    public func goBack() {
        guard engine.canGoBack else { return }
        page.backNavigationBegan()
        engine.goBack()
    }

    /// What the app's back button should do, done: go back in the page, or ask the delegate to
    /// close the container (``HybridWebViewDelegate/webViewRequestsClose(_:)``).
    @discardableResult
    public func handleBackButton() -> BackPolicy.Decision {
        let decision = configuration.back.decide(engine.backForwardList)
        switch decision {
        case .goBack: goBack()
        case .close: delegate?.webViewRequestsClose(self)
        }
        return decision
    }

    /// Starts a navigation the app asked for. `false` when the view is closed.
    private func beginNavigation() -> Bool {
        guard !isClosed else { return false }
        poolRecord.navigationBegan()
        recovery.navigationBegan()
        page.navigationBegan()
        return true
    }

    /// Starts the content process with an empty document that leaves no history entry, so the
    /// first real load is fast (a pooled view) or overlaps the network (a preload).
    public func warmUp() {
        guard !isClosed, poolRecord.beginWarmUp() else { return }
        engine.loadHTML("", baseURL: nil)
    }

    /// Returns once the warm-up document has loaded (or at once if the view is warm or in use).
    public func waitUntilWarm(timeout: Double = 10) async {
        await waitUntilWarm(timeout: timeout, whileNavigating: false)
    }

    func waitUntilWarm(timeout: Double = 10, whileNavigating: Bool) async {
        guard poolRecord.needsWaiting(whileNavigating: whileNavigating, closed: isClosed) else { return }
        await withCheckedContinuation { continuation in
            poolRecord.waitForWarmth(continuation)
            Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                self?.finishWarmUp()
            }
        }
    }

    private func finishWarmUp() {
        for waiter in poolRecord.warmedUp() { waiter.resume() }
    }

    // MARK: State

    /// Calls `handler` with the state now and on every change, until the token is cancelled.
    public func observe(_ handler: @escaping @MainActor (State) -> Void) -> ObservationToken {
        nextObserver += 1
        let id = nextObserver
        observers[id] = handler
        handler(state)
        return ObservationToken { [weak self] in self?.observers[id] = nil }
    }

    func refreshState() {
        guard !isClosed else { return }
        var next = state
        next.url = hasNavigated ? engine.url : nil
        next.title = hasNavigated ? (page.titleOverride ?? engine.title) : nil
        next.isLoading = hasNavigated && engine.isLoading
        next.progress = progressModel.value
        next.canGoBack = engine.canGoBack
        next.canGoForward = engine.canGoForward
        guard next != state else { return }
        state = next
        for id in observers.keys.sorted() { observers[id]?(next) }
    }

    // MARK: Engine events

    private func engineDidReport(_ event: EngineEvent) {
        guard !isClosed else { return }
        switch event {
        case .loadStarted(let url):
            if poolRecord.isPlaceholder(url) { return }
            poolRecord.navigationBegan()
            advanceProgress(progressModel.start(at: now))
        case .loadFinished(let url):
            if poolRecord.isPlaceholder(url) {
                finishWarmUp()
                return
            }
            poolRecord.pageLoaded()
            advanceProgress(progressModel.finish(at: now))
            pageDidFinish(url)
        case .loadFailed(let url, let message, let cancelled):
            if poolRecord.isPlaceholder(url) { return }
            advanceProgress(progressModel.fail(cancelled: cancelled, at: now))
            if !cancelled { pageDidFail(url, message: message) }
        case .progressChanged(let fraction):
            if poolRecord.isWarmingUp { return }
            advanceProgress(progressModel.engineProgress(fraction, at: now))
        case .loadCommitted(let url):
            if poolRecord.isPlaceholder(url) { return }
            // A new document: its title arrives (often after load-finished) as titleChanged.
            page.committed(showingErrorPage: errorPage != nil)
        case .titleChanged(let title):
            page.titleChanged(title, showingErrorPage: errorPage != nil, hasNavigated: hasNavigated)
        case .contentProcessTerminated(let reason):
            poolRecord.processEnded()
            let cause = recovery.cause(of: reason)
            dismissDialogs()
            if hasNavigated { handleWhiteScreen(cause) }
        case .scriptError(let report):
            // An engine whose container world hears no page errors (Blink) reports them itself;
            // an error without a script URL counts by the origin of the frame that threw it.
            bootScriptError(report, page: report.origin ?? engine.url?.absoluteString ?? "")
        default:
            break
        }
        refreshState()
    }

    private func advanceProgress(_ value: LoadProgress?) {
        guard value != nil else { return }
        refreshState()
        guard progressModel.needsTicks, progressTicker == nil else { return }
        progressTicker = Task { [weak self] in
            while let self, !self.isClosed, self.progressModel.needsTicks {
                try? await Task.sleep(nanoseconds: 16_000_000)
                if self.progressModel.tick(at: self.now) != nil { self.refreshState() }
            }
            self?.progressTicker = nil
        }
    }

    // MARK: Visibility and closing

    /// Shows or hides the view. Hiding answers open dialogs with their safe defaults. Showing it
    /// again probes for a white screen (liveness, blank page) and recovers, then emits
    /// `resume` to the page (`hybrid.on('resume', …)`).
    public func setVisible(_ visible: Bool) {
        guard !isClosed, visible != isVisible else { return }
        isVisible = visible
        engine.setVisible(visible)
        if !visible {
            dismissDialogs()
        } else {
            Task { [weak self] in await self?.didBecomeVisible() }
        }
    }

    /// Hides the view as ``setVisible(_:)`` with `false` does (dialogs get their safe defaults),
    /// but asks the engine to keep it mapped out of sight (``WebEngine/setParked(_:)``): a warm
    /// pooled view is shown again without being mapped and realised anew.
    func park() {
        guard !isClosed else { return }
        isVisible = false
        engine.setParked(true)
        dismissDialogs()
    }

    /// Tears the view down: open dialogs get their safe defaults, pending bridge calls fail,
    /// media stops with the page, nothing reaches the delegate afterwards. Idempotent.
    public func close() {
        guard !isClosed else { return }
        dismissDialogs()
        isClosed = true
        recovery.cancelScheduled()
        bootTrial?.cancel()
        health?.close()
        progressTicker?.cancel()
        engineObservation?.cancel()
        observers.removeAll()
        finishWarmUp()
        bridge.detach()
        engine.setVisible(false)
        engine.close()
    }
}
