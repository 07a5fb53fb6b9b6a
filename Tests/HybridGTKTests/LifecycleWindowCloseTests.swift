import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// `window.close()` from the page asks the app (``HybridWebViewDelegate/webViewRequestsClose(_:)``);
/// the engine never closes the view by itself.
@Suite("Lifecycle: window.close()", .serialized)
@MainActor
struct LifecycleWindowCloseTests {
    @Test(arguments: EngineKind.allCases)
    func windowCloseAsksTheDelegateAndTheViewStaysOpen(_ kind: EngineKind) async throws {
        try kind.require(.windowCloseRequests)
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/closing", "<title>Closing</title><p>bye</p>")
        let (view, delegate) = try await rig.delegatedView(showing: "/closing")
        _ = try await view.engine.evaluate("window.close(); 0")
        try await eventually("the close request") { delegate.closeRequests >= 1 }
        // The barrier for "once": the page still answers, after the request.
        #expect(try await view.engine.evaluate("document.title") == "Closing")
        #expect(delegate.closeRequests == 1)
        #expect(!view.isClosed && view.engine.isAlive)
        #expect(view.state.url == rig.url("/closing"))
        // The app closes the view when it decides to; nothing is reported afterwards.
        view.close()
        #expect(view.isClosed)
    }

    /// Hostile: a foreign iframe cannot close the container (nor make it ask): `top.close()` from
    /// another origin without a gesture is refused by the engine, so no request is made.
    @Test(arguments: EngineKind.allCases)
    func aForeignFrameCannotAskToCloseTheContainer(_ kind: EngineKind) async throws {
        try kind.require(.windowCloseRequests)
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let foreign = rig.server.url("/frame", host: "localhost")
        rig.page("/top", """
            <title>Top</title><script>window.frameLog = []; addEventListener('message', (e) => frameLog.push(String(e.data)));</script>
            <iframe src="\(foreign.absoluteString)"></iframe>
            """)
        rig.page("/frame", """
            <script>let outcome = 'no exception';
            try { top.close(); } catch (e) { outcome = e.name; }
            parent.postMessage('tried: ' + outcome, '*');</script>
            """)
        let (view, delegate) = try await rig.delegatedView(showing: "/top")
        try await view.engine.waitUntil("frameLog.some((m) => m.startsWith('tried: '))")
        // The engine sent any close request before the frame's message reached the page.
        #expect(delegate.closeRequests == 0)
        // The barrier: the top document's own close, made after the frame's attempt, is the only request.
        _ = try await view.engine.evaluate("window.close(); 0")
        try await eventually("the top document's close request") { delegate.closeRequests >= 1 }
        #expect(try await view.engine.evaluate("document.title") == "Top")
        #expect(delegate.closeRequests == 1)
        #expect(!view.isClosed && view.engine.isAlive)
    }

    /// Hostile: a page that closes itself where the engine lets it (its view's history holds only
    /// that page, as after a document without a base such as a pool's warm-up) cannot wedge the
    /// container. WebKit only asks; Chromium destroys the target itself, which the Blink driver
    /// reports as the close request it was and as the loss of the page's content: the container's
    /// recovery loads the page again in a fresh target, and the view works.
    @Test(arguments: EngineKind.allCases)
    func aPageClosingItselfNeverWedgesTheView(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let (view, delegate, pending) = try await closeOneEntryPage(rig, appCloses: false)
        if !kind.capabilities.contains(.windowCloseRequests) {
            // Blink: the page is gone, so its pending call fails (once: a task has one outcome).
            #expect(await failure(of: pending) == .engine(.contentProcessTerminated(.closedByPage)))
        }
        // Blink: the target is gone by now, so the title is only read again from the reloaded page.
        try await eventually("the page answering again") { (try? await view.engine.evaluate("document.title")) == "Closing" }
        #expect(delegate.closeRequests == 1)
        #expect(!view.isClosed && view.engine.isAlive)
        #expect(view.state.url == rig.url("/closing"))
        if kind.capabilities.contains(.windowCloseRequests) {
            #expect(delegate.whiteScreens.isEmpty)
        } else {
            // The lost page was recovered by loading its URL again (not by reloading a blank target).
            #expect(delegate.whiteScreens.map(\.reason) == [.contentProcessTerminated(.closedByPage)])
            #expect(delegate.whiteScreens.first?.url == rig.url("/closing"))
        }
        // Still a working view: the next load and its page answer (the recovery's own load may
        // still be finishing, so this waits for this URL's).
        let after = rig.url("/count/after"), recorder = EventRecorder(view.engine)
        view.load(after)
        try await recorder.loadFinished(after)
        #expect(try await view.engine.evaluate("document.title") == "Counted")
        #expect(delegate.closeRequests == 1)
    }
    /// An app that closes the view when its page asks: the view is closed and nothing more is
    /// reported (on Blink, no white screen for the destroyed target and no new target).
    @Test(arguments: EngineKind.allCases)
    func anAppClosingTheViewOnTheRequestEndsIt(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let (view, delegate, pending) = try await closeOneEntryPage(rig, appCloses: true)
        #expect(await failure(of: pending) == .engine(.closed))
        #expect(view.isClosed)
        #expect(delegate.closeRequests == 1)
        #expect(delegate.whiteScreens.isEmpty)
        await #expect(throws: HybridError.self) { try await view.engine.evaluate("1") }
    }
    /// Shows `/closing` as the only entry of its view's history (where Chromium lets a page close
    /// itself), starts a call that never settles, runs the page's `window.close()` and waits for
    /// the close request; with `appCloses` the delegate closes the view when asked.
    private func closeOneEntryPage(_ rig: LifecycleRig, appCloses: Bool) async throws
        -> (HybridWebView, LifecycleDelegate, Task<JSONValue, any Error>) {
        rig.page("/closing", "<title>Closing</title><p>bye</p>")
        let (view, delegate) = try await rig.delegatedView(showing: "/closing", afterWarmUp: true)
        delegate.closesOnRequest = appCloses
        #expect(view.state.canGoBack == false)
        let pending = Task { @MainActor in try await view.engine.callAsync("window.started = true; return await new Promise(() => {})") }
        try await view.engine.waitUntil("window.started === true")
        _ = try await view.engine.evaluate("window.close(); 0")
        try await eventually("the close request") { delegate.closeRequests >= 1 }
        return (view, delegate, pending)
    }

    /// The error `pending` failed with (nil if it answered).
    private func failure(of pending: Task<JSONValue, any Error>) async -> HybridError? {
        do { _ = try await pending.value; return nil } catch { return error as? HybridError }
    }
}
