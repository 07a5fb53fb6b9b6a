#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// The view's own navigations (load, reload, back/forward) wait while starting them now would
/// lose something the page is owed.
///
/// - **A doomed navigation.** A page's main-frame navigation to a scheme Chromium cannot load
///   (`hybridkit-container://retry`, `hybrid://`, `tel:`) never reaches Fetch, so it cannot be
///   cancelled: Chromium starts it, hands the URL to the OS and aborts it. The delegate hears of
///   it at `Page.frameRequestedNavigation` and often answers with a load (the error page's retry
///   loads the failed page). Sent at once, that load raced the page's navigation: when the
///   renderer's request reached the browser second, it replaced the load (`net::ERR_ABORTED`)
///   and then failed itself, and nothing loaded. Held navigations go once it has failed.
/// - **A reply being computed.** Once a navigation starts, Chromium holds every DevTools message
///   for the renderer until the new document commits, so the reply to a bridge call whose handler
///   navigated (`navigation.back`) reached no document, and the page's promise never settled
///   (an evaluate awaiting it failed with "Inspected target navigated or closed"). WebKit
///   delivers it to the old document, which is still there while the navigation is on the
///   network. A navigation started by a message handler (``BlinkReplyScope``) goes once that
///   handler's reply has been delivered; navigations from anywhere else do not wait for replies.
///
/// Neither may hold a navigation for long: after ``EngineHeuristics/heldNavigationLimit`` the held
/// ones go anyway (a doomed navigation the page replaced before Chromium started it never fails;
/// a slow call must not delay a page the app loads).
extension BlinkDriver {
    private static var navigationHoldLimit: UInt64 { UInt64(EngineHeuristics.heldNavigationLimit * 1_000_000_000) }

    private var holdsNavigations: Bool { doomedNavigation != nil || !holdingReplies.isEmpty }

    /// Sends a command that starts a main-frame navigation, now or once nothing holds it back.
    func startNavigation(_ method: String, _ params: [String: JSONValue] = [:]) {
        if let token = BlinkReplyScope.token, repliesInFlight.contains(token) { holdingReplies.insert(token) }
        guard holdsNavigations else {
            fire(method, params)
            return
        }
        heldNavigations.append((method, params))
        guard heldNavigations.count == 1 else { return }
        holdGeneration += 1
        let generation = holdGeneration
        Task { @MainActor [weak self] in
            try? await Task.sleep(nanoseconds: Self.navigationHoldLimit)
            guard let self, self.holdGeneration == generation else { return }
            self.releaseHeldNavigations()
        }
    }

    /// The page asked for a main-frame navigation to `url`, which Chromium will not load. It is
    /// forgotten after ``EngineHeuristics/heldNavigationLimit`` even if no failure was seen, so it cannot hold a
    /// navigation the app starts much later.
    func navigationWillBeAbandoned(_ url: String) {
        doomedNavigation = url
        doomedGeneration += 1
        let generation = doomedGeneration
        Task { @MainActor [weak self] in
            try? await Task.sleep(nanoseconds: Self.navigationHoldLimit)
            guard let self, self.doomedGeneration == generation, self.doomedNavigation != nil else { return }
            self.doomedNavigation = nil
            if !self.holdsNavigations { self.releaseHeldNavigations() }
        }
    }

    /// A main-frame document request failed: if it was the doomed navigation, it is over.
    func documentRequestFailed(_ url: URL) {
        guard doomedNavigation == url.absoluteString else { return }
        doomedNavigation = nil
        if !holdsNavigations { releaseHeldNavigations() }
    }

    /// A reply to a page's message is being computed; returns its token for ``replyDelivered(_:)``.
    func replyStarted() -> Int {
        nextReplyToken += 1
        repliesInFlight.insert(nextReplyToken)
        return nextReplyToken
    }

    /// The reply has reached the page (or can no longer).
    func replyDelivered(_ token: Int) {
        repliesInFlight.remove(token)
        guard holdingReplies.remove(token) != nil else { return }
        if !holdsNavigations { releaseHeldNavigations() }
    }

    /// Sends the held navigations in order; whatever held them holds nothing any more.
    func releaseHeldNavigations() {
        doomedNavigation = nil
        holdingReplies.removeAll()
        holdGeneration += 1
        let held = heldNavigations
        heldNavigations.removeAll()
        for navigation in held { fire(navigation.method, navigation.params) }
    }
}

/// The reply a message handler is computing, for the navigations it starts (a task-local value,
/// so it follows the handler into the tasks it starts and nowhere else).
enum BlinkReplyScope {
    @TaskLocal static var token: Int?
}
#endif
