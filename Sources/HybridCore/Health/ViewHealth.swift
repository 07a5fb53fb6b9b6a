import Foundation
import HybridNetwork
import HybridBridge
import HybridEngine
import HybridHealth
import HybridBase

/// One view's health recording (``HybridWebViewConfiguration/health``): the launch in progress,
/// the page's own reports (timing, errors, drops) from the container's capture
/// (``PageCaptureFeature``), and what the
/// view itself sees (white screens, terminations, the ready mark, rollbacks), each recorded with
/// the launch's context: release, engine, remote-config rule and bucket, page, launch id.
///
/// A prerendered page (``WebViewPool/prerender(_:)``) is no launch until the user opens it, as
/// the standard defers a prerendered page's analytics: what its hidden load would record is held,
/// and recorded at activation (``ViewEvent/prerenderActivated``) as a `prerendered` launch, its
/// timings and ready mark measured from the activation; a prerender never shown records nothing.
@MainActor
final class ViewHealth: ViewFeature {
    /// A top-level page load being recorded.
    struct Launch {
        var context: HealthContext
        var started: Date
        /// The app asked for this load and its document has not committed yet.
        var awaitingCommit: Bool
        var timingRecorded = false
        var readyRecorded = false
    }

    let recorder: HealthRecorder
    private(set) var launch: Launch?
    private weak var view: HybridWebView?
    private var observation: ObservationToken?
    /// Launch ids are this view's random prefix and a count: a UUID per launch was on the open's
    /// critical path (40 µs measured in a debug build); the prefix is made with the view (a pool's
    /// warm-up), not when a page opens.
    private let launchPrefix = UUID().uuidString
    private var launchCount = 0
    /// While the view's prerendered page is not shown yet: what it would have recorded, in order
    /// (its launch first), with the count of what did not fit (``maxHeld``); `nil` in any other view.
    private var held: (kinds: [HealthEvent.Kind], overflow: Int)?
    /// The most a prerender holds: the page side sends at most 25 distinct errors, its timing and
    /// a dropped count a second; what is beyond is recorded as dropped.
    static let maxHeld = 100

    init(recorder: HealthRecorder, prerendered: Bool = false) {
        self.recorder = recorder
        if prerendered { held = ([], 0) }
    }

    /// Starts watching `view`'s engine (before the view's own observer, so a termination is
    /// recorded before the white screen it causes).
    func attach(to view: HybridWebView) {
        self.view = view
        observation = view.engine.observe { [weak self] event in self?.engineReported(event) }
        // Chained: a completion handler set before the view was made keeps being called. A failed
        // call of the request proxy's module is a proxied request that failed: a proxy failure.
        let router = view.bridge.router
        let previous = router.onCompletion
        let proxies = Set(view.configuration.modules.compactMap { ($0 as? ProxyModule)?.name })
        router.onCompletion = { [weak self] completion in
            previous?(completion)
            guard let code = completion.code else { return }
            self?.record(proxies.contains(completion.module) ? .proxyFailure(code: code)
                                                              : .bridgeFailure(module: completion.module, code: code))
        }
    }

    func viewDidReport(_ event: ViewEvent) {
        switch event {
        case .appLoading(let url, let navigation): appLoading(url, preloaded: navigation == .preloaded)
        case .pageCaptured(let message): pagePosted(message)
        case .ready(nil): ready()
        case .ready(let origin?): ready(from: origin)
        case .whiteScreen(let event): whiteScreen(event)
        case .rolledBack(let rollback): record(.rollback(reason: rollback.reason.code))
        case .prerenderActivated: activated()
        case .closing: close()
        default: break
        }
    }

    // MARK: Launches

    /// The app asked `view` to load `url`: a launch begins now, its source from how the view got
    /// the page (a warm pooled view, a preload, the offline package).
    private func appLoading(_ url: URL?, preloaded: Bool) {
        guard let view else { return }
        let pooled = view.poolRecord.uses > 0 && view.poolRecord.isWarm
        let source: HealthEvent.PageSource = switch (preloaded, isPackage(url), pooled) {
        case (true, _, _): .preloaded
        case (false, true, true): .pooledPackage
        case (false, true, false): .package
        case (false, false, true): .pooled
        case (false, false, false): .network
        }
        begin(url, source: source, awaitingCommit: true)
    }

    private func begin(_ url: URL?, source: HealthEvent.PageSource, awaitingCommit: Bool) {
        end()
        launchCount += 1
        let context = context(for: url, launchID: "\(launchPrefix)-\(launchCount)")
        launch = Launch(context: context, started: Date(), awaitingCommit: awaitingCommit)
        record(.launch(source: source))
    }

    /// Ends the launch in progress: its dropped count, if any, is recorded (a prerender's hidden
    /// launch was never recorded: what it held goes).
    private func end() {
        guard let id = launch?.context.launchID else { return }
        launch = nil
        if held != nil { held = ([], 0) } else { recorder.endLaunch(id) }
    }

    /// The prerendered page is shown: its launch is recorded now, as `prerendered`, then what it
    /// held, its timing and ready mark measured from now.
    private func activated() {
        guard let (kinds, overflow) = held else { return }
        held = nil
        launch?.started = Date()
        for kind in kinds {
            switch kind {
            case .launch: record(.launch(source: .prerendered))
            case .ready: record(.ready(milliseconds: 0))   // ready before it was shown
            case .pageTiming(let timing): record(.pageTiming(sinceActivation(timing)))
            default: record(kind)
            }
        }
        if overflow > 0 { record(.dropped(count: overflow)) }
    }

    /// `timing` (ms from navigation start) measured from the prerendered page's activation, as
    /// the standard measures a prerendered page (a time before the activation is 0); as it is
    /// in any other view, or while the activation's time is not known.
    private func sinceActivation(_ timing: PageTiming) -> PageTiming {
        guard let start = view?.feature(PrerenderFeature.self)?.activationStart else { return timing }
        func shifted(_ value: Double?) -> Double? { value.map { max(0, $0 - start) } }
        return PageTiming(responseStart: shifted(timing.responseStart), domContentLoaded: shifted(timing.domContentLoaded),
                          load: shifted(timing.load), firstPaint: shifted(timing.firstPaint),
                          firstContentfulPaint: shifted(timing.firstContentfulPaint))
    }

    private func committed(_ url: URL?) {
        guard let url, url.scheme != "about", url.scheme != "data" else { return }   // warm-up, error page
        if launch?.awaitingCommit == true {
            launch?.awaitingCommit = false
            launch?.context.url = url.absoluteString
        } else {
            // The page navigated by itself (a link, a script, back or forward): a launch of its own.
            begin(url, source: isPackage(url) ? .package : .network, awaitingCommit: false)
        }
    }

    /// Whether `url` is a page of the bound package: its origin is the package's (the scheme alone
    /// is not enough: on Blink a package is served at an https origin).
    private func isPackage(_ url: URL?) -> Bool {
        view?.configuration.package?.serves(url) ?? false
    }

    private func context(for url: URL?, launchID: String) -> HealthContext {
        var context = HealthContext(engine: view?.engine.engineName ?? "unknown", url: url?.absoluteString, launchID: launchID)
        if isPackage(url), let package = view?.configuration.package {
            context.packageID = package.id
            context.packageVersion = package.installer.store.activeRecord(package.id)?.current
        }
        if let decision = view?.configuration.decision {
            context.configRule = decision.ruleID
            for case .applied(let bucket) in decision.trace.map(\.outcome) {
                context.rolloutBucket = Double(bucket.value) * 100 / Double(RolloutBucket.count)
            }
        }
        return context
    }

    // MARK: Events

    /// Records `kind` in the launch in progress (or with the view's context when there is none);
    /// holds it while the view's page is a prerender not shown yet.
    private func record(_ kind: HealthEvent.Kind) {
        if var holding = held {
            if holding.kinds.count < Self.maxHeld { holding.kinds.append(kind) } else { holding.overflow += 1 }
            held = holding
            return
        }
        let context = launch?.context ?? context(for: view?.engine.url, launchID: "")
        var event = HealthEvent(kind, context: context)
        if event.context.launchID == "" { event.context.launchID = nil }
        recorder.record(event)
    }

    private func engineReported(_ event: EngineEvent) {
        switch event {
        case .loadCommitted(let url): committed(url)
        case .scriptError(let report): record(.scriptError(report))
        case .contentProcessTerminated(let reason) where reason != .closedByPage:   // a page closing itself is no crash
            record(.processTerminated(reason: reason.description))
        default: break
        }
    }

    /// What the page's capture script posted.
    private func pagePosted(_ message: HealthCapture.Message) {
        guard launch != nil else { return }
        switch message {
        case .timing(let timing, let page):
            // One per launch, and only the launch's own document's.
            guard launch?.timingRecorded == false, Self.samePage(page, launch?.context.url) else { return }
            launch?.timingRecorded = true
            record(.pageTiming(held == nil ? sinceActivation(timing) : timing))
        case .error(let report): record(.scriptError(report))
        case .dropped(let count): record(.dropped(count: count))
        }
    }

    /// Whether two URLs name the same document (fragments aside).
    static func samePage(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        return a.split(separator: "#", maxSplits: 1).first == b.split(separator: "#", maxSplits: 1).first
    }

    /// The page said it is ready (`hybrid.call('app', 'ready')`): once per launch.
    private func ready() {
        guard let launch, !launch.readyRecorded else { return }
        self.launch?.readyRecorded = true
        record(.ready(milliseconds: Date().timeIntervalSince(launch.started) * 1000))
    }

    /// A network page of `origin` said it is ready: recorded as ``ready()`` when the launch in
    /// progress shows a page of that origin (a frame of an admitted origin inside another page
    /// does not mark that page ready).
    private func ready(from origin: BridgeOrigin?) {
        guard let origin, let page = launch?.context.url.flatMap(URL.init(string:)),
              BridgeOrigin(url: page) == origin else { return }
        ready()
    }

    /// The view found the page white and recovers it as `recovery` says.
    private func whiteScreen(_ event: WhiteScreenEvent) {
        let recovery = switch event.recovery {
        case .reload: "reload"
        case .showErrorPage: "error_page"
        }
        record(.whiteScreen(reason: event.reason.code, recovery: recovery))
    }

    /// The view closed: the launch ends and nothing more is recorded.
    private func close() {
        end()
        observation?.cancel()
        observation = nil
    }
}
