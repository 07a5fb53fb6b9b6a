import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Crash-state restore (docs/restore.md) on the real engines: the content process is killed the
/// way the recovery tests kill it, and what the user had comes back.
@Suite("Lifecycle: crash-state restore", .serialized)
@MainActor
struct LifecycleRestoreTests {
    /// A page with a form (one kept text field, one kept checkbox, one `autocomplete=off` field, a
    /// password), a tall body to scroll, and a listener counting `restored` events.
    static func page(optOut: Bool = false) -> String {
        """
        <title>Restore</title>\(optOut ? "<meta name=hybrid-restore content=none>" : "")
        <script>window.restoredEvents = []; hybrid.on('restored', e => restoredEvents.push(e));</script>
        <form><input id=name name=name><input name=agree type=checkbox>
        <input name=secret autocomplete=off><input name=pin type=password></form>
        <div style="height:5000px">tall</div>
        """
    }

    /// Three in-page entries (`a`, `b`, `c`), sessionStorage, a filled form and a scroll.
    static let fill = """
        history.pushState({}, '', 'b'); history.pushState({}, '', 'c');
        sessionStorage.setItem('cart', '3 items');
        const name = document.getElementById('name'); name.value = 'Ada';
        name.dispatchEvent(new Event('input', {bubbles: true}));
        document.querySelector('[name=agree]').checked = true;
        document.querySelector('[name=secret]').value = 'kept out';
        document.querySelector('[name=pin]').value = '1234';
        window.scrollTo(0, 900); 0
        """

    /// What the test reads back from the page.
    static let readBack = """
        JSON.stringify([location.pathname, sessionStorage.getItem('cart'), Math.round(scrollY),
          document.getElementById('name').value, document.querySelector('[name=agree]').checked,
          document.querySelector('[name=secret]').value, document.querySelector('[name=pin]').value,
          restoredEvents.map(e => e.reason)])
        """

    @Test(arguments: EngineKind.allCases)
    func aKilledPageGetsItsHistoryStorageScrollAndFormBackOnce(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/restore", Self.page())
        let (view, delegate) = try await rig.delegatedView(showing: "/restore/a")
        let entries = try await view.engine.evaluate("history.length")   // 1 on WebKit; Blink's first about:blank adds one
        _ = try await view.engine.evaluate(Self.fill)
        // The page reports its state itself (input, scroll): nothing asks it here.
        try await eventually("the page's report") {
            view.keptPageState?.url.path == "/restore/c" && view.keptPageState?.scrollY == 900
                && view.keptPageState?.fields.count == 2
        }

        let recorder = EventRecorder(view.engine)
        view.engine.terminateContentProcess()
        try await recorder.loadFinished()
        try await eventually("the restore") { delegate.restores.count == 1 }
        #expect(delegate.restores.first?.reason == .whiteScreen(.contentProcessTerminated(.terminatedByClient)))
        #expect(delegate.restores.first?.url.path == "/restore/c")
        try await eventually("the page's event") { try await view.engine.evaluate("restoredEvents.length") == 1 }
        let state = try await view.engine.evaluate(Self.readBack)
        #expect(state == .string(#"["/restore/c","3 items",900,"Ada",true,"","",["terminated_terminated_by_client"]]"#))
        #expect(try await view.engine.evaluate("history.length") == .number((entries.numberValue ?? 0) + 2))
        // The engine kept the in-page history across the crash: back goes to `b`.
        view.goBack()
        try await eventually("back to b") { view.engine.url?.path == "/restore/b" }
        #expect(delegate.restores.count == 1)
    }

    @Test(arguments: EngineKind.allCases)
    func anOptedOutPageIsReloadedWithNothingGivenBack(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/restore", Self.page(optOut: true))
        let (view, delegate) = try await rig.delegatedView(showing: "/restore/a")
        _ = try await view.engine.evaluate(Self.fill)
        try await eventually("the in-page moves") { view.engine.url?.path == "/restore/c" && !view.engine.isLoading }
        let recorder = EventRecorder(view.engine)
        view.engine.terminateContentProcess()
        try await recorder.loadFinished()
        #expect(delegate.whiteScreens.count == 1)
        #expect(view.keptPageState == nil)
        await #expect(throws: HybridError.restore(.nothingToSave)) { try await view.snapshotState() }
        let state = try await view.engine.evaluate(
            "JSON.stringify([Math.round(scrollY), document.getElementById('name').value, restoredEvents.length])")
        #expect(state == .string("[0,\"\",0]"))
        #expect(delegate.restores.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func aSnapshotComesBackInANewView(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/restore", Self.page())
        let (first, _) = try await rig.delegatedView(showing: "/restore/a")
        let entries = try await first.engine.evaluate("history.length")
        _ = try await first.engine.evaluate(Self.fill)
        let bytes = try await first.snapshotState()
        first.close()

        // The app relaunched: a new view gets the state back, the history rebuilt within the page.
        let second = try rig.view()
        let delegate = LifecycleDelegate()
        second.delegate = delegate
        try second.restore(from: bytes)
        try await eventually("the restore") { delegate.restores.count == 1 }
        #expect(delegate.restores.first?.reason == .relaunch)
        try await eventually("the page's event") { try await second.engine.evaluate("restoredEvents.length") == 1 }
        let state = try await second.engine.evaluate(Self.readBack)
        #expect(state == .string(#"["/restore/c","3 items",900,"Ada",true,"","",["relaunch"]]"#))
        #expect(try await second.engine.evaluate("history.length") == .number((entries.numberValue ?? 0) + 2))
    }

    /// A page still loading (an image held back) reports nothing by itself, since the script reports
    /// from the load on; a snapshot asked of it then still has its state, and the page's own world
    /// never sees the script.
    @Test(arguments: EngineKind.allCases)
    func aPageStillLoadingIsAskedForItsStateOnDemand(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/restore", Self.page() + "<img src='/slow.png'>")
        rig.server.route("/slow.png") { _ in ServerResponse(status: 404, delay: .seconds(4)) }
        let view = try rig.view()
        defer { view.close() }
        view.load(rig.url("/restore/a"))
        try await eventually("the document") { try await view.engine.evaluate("document.readyState") == .string("interactive") }
        _ = try await view.engine.evaluate(Self.fill)
        try await Task.sleep(nanoseconds: 600_000_000)   // past the script's 300 ms debounce
        #expect(view.keptPageState == nil)
        #expect(try await view.engine.evaluate("document.readyState") == .string("interactive"))
        let state = try PageState.decode(try await view.snapshotState())
        #expect(state.url.path == "/restore/c")
        #expect(state.sessionStorage == ["cart": "3 items"])
        #expect(state.fields.count == 2)
        #expect(try await view.engine.evaluate("typeof window.__hybridkitRestoreReport") == .string("undefined"))
    }

    @Test(arguments: EngineKind.allCases)
    func aPooledViewHandedToAnotherPageCarriesNothingBack(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/restore", Self.page())
        rig.page("/other", "<title>Other</title><script>window.restoredEvents = []; hybrid.on('restored', e => restoredEvents.push(e));</script><p>other</p>")
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 0
        defer { pool.drain() }
        await pool.prewarm()
        let first = try await pool.dequeue()
        try await first.loadAndWait(rig.url("/restore/a"))
        _ = try await first.engine.evaluate(Self.fill)
        try await eventually("the page's report") { first.keptPageState?.scrollY == 900 }
        pool.enqueue(first)
        #expect(first.keptPageState == nil)

        let next = try await pool.dequeue()
        let delegate = LifecycleDelegate()
        next.delegate = delegate
        try await next.loadAndWait(rig.url("/other"))
        let recorder = EventRecorder(next.engine)
        next.engine.terminateContentProcess()
        try await recorder.loadFinished()
        #expect(delegate.whiteScreens.count == 1)
        let state = try await next.engine.evaluate(
            "JSON.stringify([location.pathname, sessionStorage.getItem('cart'), Math.round(scrollY)])")
        #expect(state == .string(#"["/other",null,0]"#))
        // The page may get its own (empty) state back, never the first page's.
        #expect(delegate.restores.allSatisfy { $0.url.path == "/other" })
    }
}
