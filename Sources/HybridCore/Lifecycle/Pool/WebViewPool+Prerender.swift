import Foundation
import HybridBase
import HybridEngine

/// Why a prerendered page was discarded before it was shown.
public enum PrerenderDiscard: String, Sendable, Hashable, CaseIterable {
    /// Not opened within ``PrerenderPolicy/timeout``.
    case timeout
    /// A newer prerender needed its place (``PrerenderPolicy/limit``).
    case limit
    /// ``WebViewPool/handleMemoryPressure()``.
    case memoryPressure
    /// The app discarded it (``WebViewPool/discardPrerenders()``: cookies or config changed, the
    /// user went elsewhere).
    case app
    /// Its load failed or its content process ended: the URL opens the normal way.
    case failed
    /// The pool was drained.
    case drained
}

/// A page loading or loaded hidden in a view of its own, waiting to be opened.
@MainActor
final class PrerenderedPage {
    /// ``PrerenderPolicy/key(for:)`` of its URL.
    let key: String
    let view: HybridWebView
    var expiry: Task<Void, Never>?
    var watch: ObservationToken?

    init(key: String, view: HybridWebView) {
        self.key = key
        self.view = view
    }

    /// Stops its timer and watch; the view is the caller's.
    func end() {
        expiry?.cancel()
        expiry = nil
        watch = nil
    }
}

extension WebViewPool {
    /// Loads `url` hidden, in a view of its own made with the pool's configuration, so that
    /// opening it (``open(_:)``, ``open(_:preloader:)``) shows that view at once instead of
    /// loading: its offline package, its declared data prefetch (started now and pushed into the
    /// document) and cookies are as for a normal open. Call it when the user may open the page
    /// (a touch-down, a list cell coming into view).
    ///
    /// Until it is shown the page sees `document.prerendering` true and `visibilityState`
    /// hidden; its calls to ``PrerenderPolicy/effectfulModules`` wait; dialogs get their safe
    /// defaults and `window.open` is refused (docs/prerender.md). At most
    /// ``PrerenderPolicy/limit`` pages are kept (a new one discards the oldest), each for
    /// ``PrerenderPolicy/timeout`` seconds. A discarded prerender's view is closed, never pooled,
    /// so nothing of it reaches the pool's next page. Asking again for a URL already prerendered
    /// does nothing.
    ///
    /// The view is made with the prerender's page script, which is why it is a view of its own
    /// and not one of the warm views: no engine adds a page script to a view after it was made.
    /// - Returns: the hidden view, for observing it (show it only by opening its URL).
    /// - Throws: `HybridError.engine(.prerenderRefused)` for a URL ``prerenderPolicy`` refuses
    ///   (a foreign origin the app did not allow) or ``prerenderConfig`` does not turn on; what the provider throws when it cannot make a view.
    @discardableResult
    public func prerender(_ url: URL) async throws -> HybridWebView {
        if let reason = prerenderPolicy.refusal(for: url, packageScheme: configuration.package?.scheme) {
            throw HybridError.engine(.prerenderRefused(url: url.absoluteString, reason: reason))
        }
        if let config = prerenderConfig, !config.features(for: url).features.prerender {
            throw HybridError.engine(.prerenderRefused(url: url.absoluteString, reason: "remote config does not turn prerender on for this URL"))
        }
        let key = PrerenderPolicy.key(for: url)
        if let kept = prerenders.first(where: { $0.key == key }) { return kept.view }
        for page in prerenders.prefix(prerenderPolicy.evictions(keeping: prerenders.count)) { discard(page, .limit) }
        var configuration = self.configuration
        configuration.prerender = PrerenderFeature.Setup(url: key, effectfulModules: prerenderPolicy.effectfulModules)
        let view = try HybridWebView(provider: provider, configuration: configuration)
        createdCount += 1
        let page = PrerenderedPage(key: key, view: view)
        prerenders.append(page)
        // Warmed as the pool's views are: the empty document leaves the page the only entry of
        // the view's history (a new Blink target otherwise keeps its first blank entry).
        view.park()
        view.warmUp()
        await view.waitUntilWarm()
        guard !view.isClosed else { throw HybridError.engine(.closed) }
        page.watch = view.engine.observe { [weak self, weak page] event in
            guard let self, let page else { return }
            switch event {
            case .loadFailed(_, _, let cancelled) where !cancelled: self.discard(page, .failed)
            case .contentProcessTerminated: self.discard(page, .failed)
            default: break
            }
        }
        let timeout = prerenderPolicy.timeout
        page.expiry = Task { [weak self, weak page] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1e9))
            guard !Task.isCancelled, let self, let page else { return }
            self.discard(page, .timeout)
        }
        view.open(url)
        return view
    }

    /// The URLs prerendered and not yet shown or discarded (without fragments), oldest first.
    public var prerenderedURLs: [String] { prerenders.map(\.key) }

    /// Discards every prerender (the app's cookies or remote config changed in a way that would
    /// change the pages, or the user went elsewhere): their views close, their waiting calls fail.
    public func discardPrerenders() { discardPrerenders(.app) }

    func discardPrerenders(_ reason: PrerenderDiscard) {
        for page in prerenders { discard(page, reason) }
    }

    private func discard(_ page: PrerenderedPage, _ reason: PrerenderDiscard) {
        guard let index = prerenders.firstIndex(where: { $0 === page }) else { return }
        prerenders.remove(at: index)
        page.end()
        prerenderDiscards[reason, default: 0] += 1
        page.view.close()
    }

    /// The view prerendered for `url`, shown and told it is active; `nil` when there is none (or
    /// it died), and the URL opens the normal way.
    func activatePrerender(_ url: URL) async -> HybridWebView? {
        let key = PrerenderPolicy.key(for: url)
        guard let index = prerenders.firstIndex(where: { $0.key == key }) else { return nil }
        let page = prerenders.remove(at: index)
        page.end()
        let view = page.view
        guard !view.isClosed, view.engine.isAlive else {
            prerenderDiscards[.failed, default: 0] += 1
            view.close()
            return nil
        }
        view.poolRecord.handedOut()
        view.setVisible(true)
        prerenderActivations += 1
        await view.feature(PrerenderFeature.self)?.activate()
        return view
    }
}
