import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Lifecycle: white screens and recovery", .serialized)
@MainActor
struct LifecycleRecoveryTests {
    @Test(arguments: EngineKind.allCases)
    func aKilledProcessReloadsOnceThenShowsAnErrorPageWithRetry(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let view = try rig.view()
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/count/page"))
        #expect(rig.hitCount("/count/page") == 1)

        let recorder = EventRecorder(view.engine)
        view.engine.terminateContentProcess()
        try await recorder.loadFinished()
        #expect(delegate.whiteScreens.map(\.reason) == [.contentProcessTerminated(.terminatedByClient)])
        #expect(delegate.whiteScreens.first?.recovery == .reload(after: 0.1))
        #expect(delegate.whiteScreens.first?.url == rig.url("/count/page"))
        #expect(try await view.engine.evaluate("document.getElementById('content') !== null") == true)
        #expect(rig.hitCount("/count/page") == 2)

        // A second termination within the window: the error page, no reload loop.
        recorder.reset()
        view.engine.terminateContentProcess()
        try await recorder.loadFinished()
        #expect(delegate.whiteScreens.last?.recovery == .showErrorPage)
        #expect(view.errorPage != nil)
        #expect(try await view.engine.evaluate("document.getElementById('hybridkit-retry') !== null") == true)
        // The recovery chose the error page, not a reload (checked above): no request went out,
        // and the count after the retry below (3, not more) shows none was scheduled either.
        #expect(rig.hitCount("/count/page") == 2)

        // Retry loads the page again.
        recorder.reset()
        _ = try await view.engine.evaluate("document.getElementById('hybridkit-retry').click(); 0")
        try await recorder.loadFinished()
        #expect(rig.hitCount("/count/page") == 3)
        #expect(view.errorPage == nil)
        try await eventually("the title") { view.state.title == "Counted" }
        #expect(rig.hitCount("/count/page") == 3)
    }

    @Test(arguments: EngineKind.allCases)
    func anUnresponsivePageIsEndedAndReloadedWhenTheViewBecomesVisible(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        var configuration = HybridWebViewConfiguration()
        configuration.livenessTimeout = 0.5
        let view = try rig.view(configuration)
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/count/hang"))
        view.setVisible(false)
        // The page hangs in a script the app started; the liveness probe that becoming visible
        // sends runs on the same page thread after it, so it finds the page hung (no waiting).
        let hang = Task { @MainActor in try? await view.engine.evaluate("for (;;) {}") }
        defer { hang.cancel() }
        let recorder = EventRecorder(view.engine)
        view.setVisible(true)
        try await recorder.loadFinished()
        #expect(delegate.whiteScreens.map(\.reason) == [.unresponsive])
        #expect(rig.hitCount("/count/hang") == 2)
        #expect(try await view.engine.evaluate("document.title") == "Counted")
    }

    @Test(arguments: EngineKind.allCases)
    func aBlankPageIsReloadedWhenTheViewBecomesVisible(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let view = try rig.view()
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/count/blank"))
        try await eventually("the title") { view.state.title == "Counted" }
        view.setVisible(false)
        _ = try await view.engine.evaluate("document.title = ''; document.body.innerHTML = ''; 0")
        let recorder = EventRecorder(view.engine)
        view.setVisible(true)
        try await recorder.loadFinished()
        #expect(delegate.whiteScreens.map(\.reason) == [.blankPage])
        #expect(try await view.engine.evaluate("document.getElementById('content') !== null") == true)
    }

    @Test(arguments: EngineKind.allCases)
    func aHealthyPageIsLeftAloneAndHearsResume(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/resume", """
            <title>Resume</title><p>resume</p><script>
            window.resumes = []; hybrid.on('resume', (e) => resumes.push(e));</script>
            """)
        let view = try rig.view()
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/resume"))
        // The runtime has said hello (a page the app gave no module is still told of resumes).
        _ = try await view.engine.callAsync("await hybrid.ready; return true")
        view.setVisible(false)
        view.setVisible(true)
        try await view.engine.waitUntil("resumes.length === 1")
        #expect(try await view.engine.evaluate("resumes[0].reason") == "visible")
        #expect(delegate.whiteScreens.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func returningFromThePageCacheEmitsResume(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = Locked(0)
        rig.server.route("/a") { _ in
            hits.mutate { $0 += 1 }
            return .html("""
                <title>A</title><p>a</p><script>
                window.resumes = []; hybrid.on('resume', (e) => resumes.push(e)); window.onloads = (window.onloads || 0) + 1;
                window.document.documentElement.dataset.load = String(Math.random());</script>
                """)
        }
        rig.page("/b", "<title>B</title><p>b</p>")
        let view = try rig.view()
        try await view.loadAndWait(rig.url("/a"))
        let firstDocument = try await view.engine.evaluate("document.documentElement.dataset.load")
        try await view.loadAndWait(rig.url("/b"))
        let recorder = EventRecorder(view.engine)
        view.goBack()
        try await recorder.next("back at a") { if case .loadFinished(let url) = $0 { url?.path == "/a" } else { false } }
        guard kind.capabilities.contains(.backForwardCache) else {
            // Declared without a page cache (Blink: the adapter turns Chromium's off, see
            // docs/engines.md for the measurement): going back is a load of a new document, with
            // its events, and that document has nothing to resume.
            // (Chromium may take the document from its HTTP cache: a new document all the same.)
            #expect(recorder.events.contains(.loadCommitted(rig.url("/a"))))
            #expect(try await view.engine.evaluate("document.documentElement.dataset.load") != firstDocument)
            #expect(try await view.engine.evaluate("window.resumes.length") == 0)
            #expect(try await view.engine.evaluate("window.onloads") == 1)
            return
        }
        try await view.engine.waitUntil("window.resumes && resumes.length > 0", timeout: 5)
        #expect(try await view.engine.evaluate("resumes[0].reason") == "pageshow")
        #expect(try await view.engine.evaluate("resumes[0].persisted") == true)
        #expect(try await view.engine.evaluate("window.onloads") == 1)
        // The same document, not a new load of it.
        #expect(hits.value == 1)
        #expect(try await view.engine.evaluate("document.documentElement.dataset.load") == firstDocument)
    }
}
