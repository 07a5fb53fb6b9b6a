import Foundation
import HybridEngine

extension BridgeHost {
    /// Offers a navigation to the bridge. Call it from the container's navigation delegate
    /// before anything else; when it returns `true`, cancel the navigation.
    ///
    /// Handles the `hybrid://` scheme (``Options/urlScheme``): `hybrid://__queue__` (the legacy
    /// transport's signal: the queue is fetched from the main frame's current document, never
    /// from the frame that navigated) and `hybrid://module/action?params=<JSON>` calls from the
    /// main frame, routed into the same modules with the same origin checks, without a reply.
    /// - Returns: `true` when the navigation was the bridge's and must not proceed.
    public func handleNavigation(_ action: NavigationAction) -> Bool {
        let url = action.request.url
        guard url.scheme?.lowercased() == options.urlScheme.lowercased() else { return false }
        if url.host == BridgeURLCall.queueHost {
            Task { await drainURLQueue() }
            return true
        }
        let origin = currentOrigin
        guard options.allowsURLCalls, action.isMainFrame else {
            router.logger?(BridgeLogEntry(level: .warning, code: "denied",
                                          message: "URL call \(url.absoluteString.prefix(120)) from a subframe or with URL calls off",
                                          origin: origin))
            return true
        }
        guard let call = BridgeURLCall(url, scheme: options.urlScheme) else {
            router.logger?(BridgeLogEntry(level: .warning, code: "malformed",
                                          message: "unreadable URL call \(url.absoluteString.prefix(120))", origin: origin))
            return true
        }
        nextURLCallID += 1
        let text = call.envelope(id: nextURLCallID)
        Task { _ = await router.receive(text, origin: origin, source: .mainFrame) }
        return true
    }

    /// Fetches the legacy transport's queue from the main frame and routes every message.
    func drainURLQueue() async {
        guard let engine, let document = router.document ?? Optional(router.beginDocument()) else { return }
        let origin = currentOrigin
        guard let drained = try? await engine.evaluate(
            "window.__hybridkitURL ? window.__hybridkitURL.drain() : []", in: .page).arrayValue
        else { return }
        for case .string(let text) in drained {
            Task {
                let response = await router.receive(text, origin: origin, source: .mainFrame)
                if let reply = response.text, router.document == document { send(reply, to: document, via: .urlQueue) }
            }
        }
    }
}
