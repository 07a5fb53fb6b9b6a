import Foundation
import HybridEngine

/// Warm ``HybridWebView``s ready to show a page at once.
///
/// ``prewarm()`` fills the pool when the app is idle; ``dequeue()`` hands out a warm view
/// (creating one only when the pool is empty) and ``enqueue(_:)`` takes one back. A view handed
/// out shows no trace of an earlier page: history of one entry, empty sessionStorage, no
/// title, scroll or handlers, `canGoBack` false, no flash of an old page. An engine that cannot
/// clear its history (WebKitGTK, WKWebView) cannot make a used view traceless, so a view that
/// showed a page is retired and a fresh one warmed in its place; a view given back unused
/// returns to the pool.
///
/// Never handed out: a view whose content process died, one that fails a liveness probe (or, never
/// handed out before, that its engine reports unresponsive: ``WebViewPoolPolicy/livenessCheck(for:engineReport:)``),
/// one that reached ``WebViewPoolPolicy/maximumReuse``. ``handleMemoryPressure()`` empties the pool.
///
/// ``prerender(_:)`` loads a page the user may open next into a view of its own, hidden; opening
/// that URL (``open(_:)``) shows that view instead of loading (see docs/prerender.md).
@MainActor
public final class WebViewPool {
    /// Makes the pool's views; they share its processes and session.
    public let provider: any WebEngineProvider
    /// What every view of the pool is made with.
    public let configuration: HybridWebViewConfiguration
    /// How many views the pool keeps and when it retires one.
    public let policy: WebViewPoolPolicy
    /// Delay before refilling after a dequeue, so warming does not compete with the page
    /// that was just opened.
    public var refillDelay: Double = 0.5
    /// What ``prerender(_:)`` may load hidden, how many at once and for how long.
    public var prerenderPolicy = PrerenderPolicy()
    /// When set, a URL is prerendered only where the remote config's rule for it turns
    /// ``FeatureSet/prerender`` on (``RemoteConfigClient/features(for:)``): a rule switches
    /// prerendering per URL pattern, and the kill switch, an expired document or no document turn
    /// it off everywhere, within ``prerenderPolicy``. `nil`, the default: the policy alone decides.
    public var prerenderConfig: RemoteConfigClient?
    /// The pages prerendered and not yet shown or discarded, oldest first.
    var prerenders: [PrerenderedPage] = []
    /// Prerenders discarded unused, by reason, for logs and tests.
    public internal(set) var prerenderDiscards: [PrerenderDiscard: Int] = [:]
    /// Pages ``open(_:)`` showed from a prerender.
    public internal(set) var prerenderActivations = 0

    private var ready: [HybridWebView] = []
    private var warming = 0
    private var refill: Task<Void, Never>?
    /// Set by memory pressure: no refilling until the app calls ``prewarm()`` again.
    private var suspended = false

    /// Views made (warm or cold) and retired, by reason, for logs and tests.
    public internal(set) var createdCount = 0
    /// Views ``dequeue()`` had to make because none was warm (a measure of a pool too small).
    public private(set) var coldCount = 0
    /// Views retired for good, by reason.
    public private(set) var retirements: [WebViewPoolPolicy.Retirement: Int] = [:]

    /// An empty pool; ``prewarm()`` fills it.
    public init(provider: any WebEngineProvider, configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(),
                policy: WebViewPoolPolicy = WebViewPoolPolicy()) {
        self.provider = provider
        self.configuration = configuration
        self.policy = policy
    }

    /// Warm views ready to hand out.
    public var count: Int { ready.count }

    /// Whether a refill is scheduled or under way (never after memory pressure until the app
    /// prewarms again): for logs and tests, which can check it instead of waiting to see.
    public var isRefilling: Bool { refill != nil }

    /// Fills the pool to its capacity, one view per main-loop turn; returns when all are warm.
    public func prewarm() async {
        suspended = false
        let needed = policy.shortfall(pooled: ready.count, warming: warming)
        for _ in 0..<needed {
            await warmOne()
            await Task.yield()
        }
    }

    private func warmOne() async {
        warming += 1
        defer { warming -= 1 }
        guard let view = try? HybridWebView(provider: provider, configuration: viewConfiguration) else { return }
        createdCount += 1
        // Parked at once: out of sight but mapped (where the engine can), so handing it out is a
        // move back on screen; mapping a hidden view again held up the next load by 10–17 ms.
        view.park()
        view.warmUp()
        await view.waitUntilWarm()
        guard !suspended, !view.isClosed, ready.count < policy.capacity else {
            view.close()
            return
        }
        ready.append(view)
    }

    /// A warm view, alive and answering; a new one only when the pool has none.
    /// - Throws: what the provider throws when it cannot make a view.
    public func dequeue() async throws -> HybridWebView {
        while !ready.isEmpty {
            let view = ready.removeFirst()
            let candidate = self.candidate(view)
            guard policy.mayHandOut(candidate) else {
                retire(view, policy.fate(of: candidate, pooled: 0))
                continue
            }
            guard await isAnswering(view, candidate), view.engine.isAlive, !view.isClosed else {
                retire(view, .retire(view.engine.isAlive ? .unresponsive : .dead))
                continue
            }
            return handOut(view)
        }
        let view = try HybridWebView(provider: provider, configuration: viewConfiguration)
        createdCount += 1
        coldCount += 1
        return handOut(view)
    }

    /// Whether `view` answers, by the engine's report where that is enough (a view never handed
    /// out, on an engine that tracks its process: no round trip on the open's path), else by a
    /// liveness probe.
    private func isAnswering(_ view: HybridWebView, _ candidate: WebViewPoolPolicy.Candidate) async -> Bool {
        switch policy.livenessCheck(for: candidate, engineReport: view.engine.isContentProcessResponsive) {
        case .engineReport: return true
        case .retire: return false
        case .probe: return await WhiteScreenDetector(livenessTimeout: policy.probeTimeout).isResponsive(view.engine)
        }
    }

    private func handOut(_ view: HybridWebView) -> HybridWebView {
        view.poolRecord.handedOut()
        view.setVisible(true)
        scheduleRefill()
        return view
    }

    /// Opens `url` in a pooled view with its HTML fetched in parallel (see ``PagePreloader``); a
    /// page prerendered for `url` is shown instead (``prerender(_:)``).
    public func open(_ url: URL, preloader: PagePreloader) async throws -> HybridWebView {
        if let view = await activatePrerender(url) { return view }
        let page = preloader.start(url)
        let view = try await dequeue()
        await view.load(url, preloaded: page)
        return view
    }

    /// Takes a view back: it is out of sight at once (parked; open dialogs get their safe
    /// defaults), its media stops, and it either returns to the pool clean or is closed and replaced.
    public func enqueue(_ view: HybridWebView) {
        guard !view.isClosed else { return }
        view.park()
        view.delegate = nil
        view.report(.enqueued)
        Task {
            await view.pauseMedia()
            let fate = policy.fate(of: candidate(view), pooled: ready.count + warming)
            switch fate {
            case .keep where !view.isClosed: ready.append(view)
            case .keep: break
            case .retire: retire(view, fate)
            }
            scheduleRefill()
        }
    }

    /// Closes every pooled view and stops refilling until ``prewarm()`` is called again.
    public func handleMemoryPressure() {
        discardPrerenders(.memoryPressure)
        suspended = true
        refill?.cancel()
        refill = nil
        let views = ready
        ready.removeAll()
        for view in views { retire(view, .retire(.memoryPressure)) }
    }

    private func candidate(_ view: HybridWebView) -> WebViewPoolPolicy.Candidate {
        WebViewPoolPolicy.Candidate(isAlive: view.engine.isAlive && !view.isClosed, uses: view.poolRecord.uses,
                                    wasNavigated: view.hasNavigated)
    }

    private func retire(_ view: HybridWebView, _ fate: WebViewPoolPolicy.Fate) {
        if case .retire(let reason) = fate {
            retirements[reason, default: 0] += 1
            // A hung page keeps its process busy after the view is gone (a core lost on a phone
            // or a small machine): end it first.
            if reason == .unresponsive { view.engine.terminateContentProcess() }
        }
        view.close()
    }

    private func scheduleRefill() {
        guard !suspended, refill == nil, policy.shortfall(pooled: ready.count, warming: warming) > 0 else { return }
        let delay = refillDelay
        refill = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            guard let self, !Task.isCancelled else { return }
            await self.prewarm()
            self.refill = nil
        }
    }

    /// Closes every pooled view (the app is going away).
    public func drain() {
        discardPrerenders(.drained)
        refill?.cancel()
        refill = nil
        suspended = true
        let views = ready
        ready.removeAll()
        for view in views { view.close() }
    }
}
