#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// Navigations the view starts while the page's own navigation to a scheme Chromium cannot load
/// (`hybridkit-container://retry`, `hybrid://`, `tel:`) is still on its way.
///
/// Such a navigation never reaches Fetch, so it cannot be cancelled: Chromium starts it, hands the
/// URL to the OS and aborts it. The delegate hears of it at `Page.frameRequestedNavigation` and
/// often answers with a load of its own (the error page's retry loads the failed page). Sent at
/// once, that load raced the page's navigation: when the renderer's request reached the browser
/// second, it replaced the load (`net::ERR_ABORTED`) and then failed itself, and nothing loaded.
/// So the view's navigations wait until Chromium has abandoned the doomed one.
extension BlinkWebEngine {
    /// How long a doomed navigation may hold the view's own (if Chromium never starts it, say
    /// because the page replaced it first, no failure will ever be reported for it).
    static let doomedNavigationGrace: UInt64 = 1_000_000_000

    /// The page asked for a main-frame navigation to `url`, which Chromium will not load.
    func navigationWillBeAbandoned(_ url: String) {
        doomedGeneration += 1
        let generation = doomedGeneration
        doomedNavigation = (url, generation)
        Task { @MainActor [weak self] in
            try? await Task.sleep(nanoseconds: Self.doomedNavigationGrace)
            guard let self, self.doomedNavigation?.generation == generation else { return }
            self.releaseHeldNavigations()
        }
    }

    /// Sends a command that starts a main-frame navigation, after a doomed one if there is one.
    func startNavigation(_ method: String, _ params: [String: JSONValue] = [:]) {
        if doomedNavigation != nil {
            heldNavigations.append((method, params))
        } else {
            fire(method, params)
        }
    }

    /// A main-frame document request failed: if it was the doomed navigation, the held ones go.
    func documentRequestFailed(_ url: URL) {
        guard let doomed = doomedNavigation, doomed.url == url.absoluteString else { return }
        releaseHeldNavigations()
    }

    /// Sends the held navigations in order (the doomed navigation is over, or will never be).
    func releaseHeldNavigations() {
        doomedNavigation = nil
        let held = heldNavigations
        heldNavigations.removeAll()
        for navigation in held { fire(navigation.method, navigation.params) }
    }
}
#endif
