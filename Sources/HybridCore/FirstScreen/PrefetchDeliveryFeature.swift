import Foundation
import HybridNetwork
import HybridBridge
import HybridBase
import HybridEngine

/// Prefetch delivery (``HybridWebViewConfiguration/prefetcher``): what ``HybridWebView/open(_:)``
/// started for a page reaches its document without a bridge round trip.
@MainActor
final class PrefetchDeliveryFeature: ViewFeature {
    private let prefetcher: DataPrefetcher
    private weak var view: HybridWebView?

    init(_ prefetcher: DataPrefetcher) { self.prefetcher = prefetcher }

    func attach(to view: HybridWebView) { self.view = view }

    /// Pushes what ``HybridWebViewConfiguration/prefetcher`` started for `url` into the page's
    /// document as soon as both exist — the navigation to `url` committed and the response
    /// arrived — so the page takes it without a bridge round trip or waiting for the bridge's
    /// handshake (the page script keeps it for `hybrid.prefetched` and the transparent `fetch`).
    ///
    /// The same rules as the bridge's `take`: only a page origin the ``PrefetchModule`` admits,
    /// only the document of `url` (checked by the engine on commit and by the page script
    /// against its own `location`), the main frame only, once. A response the document did not
    /// receive stays in the prefetcher for the bridge's `take`.
    func deliver(for url: URL) {
        guard let view, let origin = BridgeOrigin(url: url),
              view.bridge.router.moduleNames(for: origin).contains(PrefetchModule.moduleName) else { return }
        let prefetcher = self.prefetcher
        let page = url.absoluteString
        let watch = PrefetchDeliveryWatch()
        watch.token = view.engine.observe { [weak self] event in
            switch event {
            case .loadCommitted(let committed) where !watch.committed:
                watch.committed = true
                guard let self, committed.map({ Self.sameDocument($0.absoluteString, page) }) == true else {
                    watch.end()
                    return
                }
                for started in prefetcher.untaken(page: page, origin: origin) {
                    // A stale kept response goes in at once (the page may render it), and stays
                    // in the prefetcher: the network's response follows it.
                    if let kept = started.kept {
                        Task { @MainActor [weak self] in
                            guard let self, !watch.superseded else { return }
                            _ = await self.pushIntoDocument(page: page, key: started.key, withCookies: started.withCookies, copy: kept, kept: true)
                        }
                    }
                    Task { @MainActor [weak self] in
                        guard let arrival = await started.response.value, let self, let view = self.view, !view.isClosed else { return }
                        // Checked natively, claimed and sent in one main-actor turn: the document
                        // is still the one committed for `page` (no navigation since), and a bridge
                        // `take` that finds it gone is answered after the document has it.
                        guard !watch.superseded, view.engine.url.map({ Self.sameDocument($0.absoluteString, page) }) == true,
                              let claim = prefetcher.claimForPush(started.key, page: page, origin: origin) else { return }
                        let copy = prefetcher.copy(arrival, refreshing: false)
                        if await !self.pushIntoDocument(page: page, key: started.key, withCookies: claim.withCookies, copy: copy, kept: false) {
                            prefetcher.giveBack(claim)
                        }
                    }
                }
            case .loadStarted, .loadCommitted:
                // The document of `page` is being replaced: nothing more is pushed into this view.
                if watch.committed { watch.end() }
            case .loadFailed, .contentProcessTerminated:
                watch.end()
            default:
                break
            }
        }
    }

    /// Sends `copy` into the document: as the response of `key` (`kept` false: taken once), or as
    /// the stale kept one the page may render while the network's is on its way.
    private func pushIntoDocument(page: String, key: String, withCookies: Bool, copy: DataPrefetcher.PrefetchCopy, kept: Bool) async -> Bool {
        guard let reply = try? JSONEncoder().encode(copy.response) else { return false }
        let script = """
            (function (page, key, withCookies, reply, age, kept) {
              var early = window.__hybridkitPrefetchEarly;
              return !!early && String(location.href).split('#')[0] === page &&
                (kept ? early.deliverKept(page, key, withCookies, reply, age) : early.deliver(page, key, withCookies, reply, age));
            })(\(JSONValue.string(Self.withoutFragment(page)).jsonText), \(JSONValue.string(key).jsonText), \(withCookies), \(String(decoding: reply, as: UTF8.self)), \(copy.age), \(kept))
            """
        return (try? await view?.engine.evaluate(script, in: .page)) == .bool(true)
    }

    private static func sameDocument(_ a: String, _ b: String) -> Bool { withoutFragment(a) == withoutFragment(b) }

    private static func withoutFragment(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }
}

/// Keeps a delivery's engine observation alive from the open until the document of the page is
/// replaced (or its navigation fails): pushes check ``superseded`` before they send.
@MainActor
private final class PrefetchDeliveryWatch {
    var token: ObservationToken?
    /// The page's navigation committed.
    var committed = false
    /// Another navigation began or the page's failed: no push may be sent any more.
    private(set) var superseded = false

    func end() {
        superseded = true
        token = nil
    }
}
