import Foundation
import HybridBridge
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
/// Each aspect of the view (progress, recovery, dialogs, new windows, navigation, package launches,
/// health, page capture, prefetch delivery, the proxy's documents) is a feature component that
/// owns its state (``makeFeatures(_:)``); the view keeps only what all of them read: the engine,
/// the bridge, its page and its warmth.
///
/// ```swift
/// let view = try HybridWebView(provider: provider, configuration: configuration)
/// view.delegate = self
/// let token = view.observe { state in progressBar.value = state.progress.fraction }
/// view.load(URL(string: "https://m.example.com/")!)
/// ```
@MainActor
public final class HybridWebView {
    /// The engine view this container drives.
    public let engine: any WebEngine
    /// The bridge between the page's `hybrid` runtime and the native modules.
    public let bridge: BridgeHost
    /// What the view was created with.
    public let configuration: HybridWebViewConfiguration
    /// Receives lifecycle events and decides what the container leaves to the app; held weakly.
    public weak var delegate: (any HybridWebViewDelegate)?
    /// The state now; ``observe(_:)`` reports each change.
    public internal(set) var state: State = .initial
    /// Whether the view is on screen (``setVisible(_:)``).
    public internal(set) var isVisible = true
    /// Set while the app animates the container in or out: dialogs get their safe default
    /// instead of appearing over a moving screen.
    public var isInTransition = false {
        didSet { if isInTransition { report(.visibilityChanged(false)) } }
    }
    /// ``close()`` was called; the view does nothing afterwards.
    public private(set) var isClosed = false
    /// The view showed (or was asked to show) a page; a pool cannot make it traceless again
    /// unless the engine clears history.
    public var hasNavigated: Bool { poolRecord.hasNavigated }

    /// The view's features, in the order they hear events and decide navigations.
    private(set) var features: [any ViewFeature] = []
    /// Warm-up and pool bookkeeping: warmth, uses, the warm-up document's events.
    var poolRecord = PoolRecord()
    /// What the view knows of its page beyond the engine's state.
    var page = PageRecord()
    var observers = StateObservers()
    private var engineObservation: ObservationToken?
    let start = Date()

    /// Creates the engine view with the bridge, package scheme, injections and every feature the
    /// configuration asks for installed.
    /// - Throws: what the provider throws when it cannot make a view.
    public init(provider: any WebEngineProvider, configuration: HybridWebViewConfiguration = HybridWebViewConfiguration()) throws {
        self.configuration = configuration
        let features = Self.makeFeatures(configuration)
        var setup = ViewFeatureSetup(modules: configuration.modules)
        for feature in features { feature.prepare(&setup) }
        bridge = BridgeHost(capabilities: provider.capabilities, modules: setup.modules,
                            limits: configuration.bridgeLimits, options: configuration.bridgeOptions,
                            byteChannelOrigin: provider.byteChannelOrigin)
        var engineConfiguration = configuration.engineConfiguration(bridge: bridge)
        engineConfiguration.userScripts += setup.userScripts
        engineConfiguration.messageHandlers += setup.messageHandlers
        engine = try provider.makeEngine(engineConfiguration)
        self.features = features
        engine.delegate = self
        bridge.attach(engine)
        // Features observe the engine before the view does (health records a termination before
        // the white screen it causes).
        for feature in features { feature.attach(to: self) }
        engineObservation = engine.observe { [weak self] event in self?.engineDidReport(event) }
    }

    isolated deinit { close() }

    /// Seconds since the view was made (the clock of the progress and white-screen policies).
    var now: Double { Date().timeIntervalSince(start) }

    /// The view's feature of type `type`, if the configuration installed one.
    func feature<Feature: ViewFeature>(_ type: Feature.Type) -> Feature? {
        for case let feature as Feature in features { return feature }
        return nil
    }

    /// Tells every feature, in order.
    func report(_ event: ViewEvent) {
        for feature in features { feature.viewDidReport(event) }
    }

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
        report(.appLoading(request.url, .request))
        engine.load(request)
    }

    /// Loads HTML as if it came from `baseURL`.
    public func loadHTML(_ html: String, baseURL: URL?) {
        guard beginNavigation() else { return }
        report(.appLoading(baseURL, .html))
        engine.loadHTML(html, baseURL: baseURL)
    }

    /// Loads `url` with its HTML fetched in parallel (``PagePreloader/start(_:)``, started
    /// before this view was made or dequeued): meanwhile the engine starts its content process;
    /// then the fetched bytes are shown as the response for the URL, so history, origin and
    /// relative URLs are those of a normal load. Falls back to a normal load when the fetch gave
    /// nothing usable.
    public func load(_ url: URL, preloaded: Task<PreloadedPage?, Never>) async {
        guard beginNavigation() else { return }
        report(.appLoading(url, .preloaded))
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
        report(.appLoading(engine.url ?? page.lastURL, .request))
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
        report(.navigationBegan)
        return true
    }

    // MARK: Engine events

    private func engineDidReport(_ event: EngineEvent) {
        guard !isClosed else { return }
        switch event {
        case .loadStarted(let url), .loadFailed(let url, _, _), .loadCommitted(let url):
            if poolRecord.isPlaceholder(url) { return }
        case .loadFinished(let url) where poolRecord.isPlaceholder(url):
            warmBridgeThenFinish()
            return
        case .progressChanged where poolRecord.isWarmingUp:
            return
        default:
            break
        }
        switch event {
        case .loadStarted: poolRecord.navigationBegan()
        case .loadFinished: poolRecord.pageLoaded()
        case .loadCommitted: page.committed(showingErrorPage: errorPage != nil)   // its title arrives as titleChanged
        case .titleChanged(let title): page.titleChanged(title, showingErrorPage: errorPage != nil, hasNavigated: hasNavigated)
        case .contentProcessTerminated: poolRecord.processEnded()
        default: break
        }
        report(.engine(event))
        switch event {
        case .loadFinished(let url): pageDidFinish(url)
        case .loadFailed(let url, let message, let cancelled) where !cancelled: pageDidFail(url, message: message)
        default: break
        }
        refreshState()
    }

    // MARK: Visibility and closing

    /// Shows or hides the view. Hiding answers open dialogs with their safe defaults. Showing it
    /// again probes for a white screen (liveness, blank page) and recovers, then emits
    /// `resume` to the page (`hybrid.on('resume', …)`).
    public func setVisible(_ visible: Bool) {
        guard !isClosed, visible != isVisible else { return }
        isVisible = visible
        engine.setVisible(visible)
        report(.visibilityChanged(visible))
    }

    /// Tears the view down: open dialogs get their safe defaults, pending bridge calls fail,
    /// media stops with the page, nothing reaches the delegate afterwards. Idempotent.
    public func close() {
        guard !isClosed else { return }
        report(.closing)
        isClosed = true
        engineObservation?.cancel()
        observers.removeAll()
        finishWarmUp()
        bridge.detach()
        engine.setVisible(false)
        engine.close()
    }
}
