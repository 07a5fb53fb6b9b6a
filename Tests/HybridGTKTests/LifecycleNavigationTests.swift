import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Lifecycle: back navigation and new windows", .serialized)
@MainActor
struct LifecycleNavigationTests {
    @Test(arguments: EngineKind.allCases)
    func theBackButtonGoesBackWhileThereIsHistoryThenCloses(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/one", "<title>One</title><p>1</p>")
        rig.page("/two", "<title>Two</title><p>2</p>")
        let view = try rig.view()
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/one"))
        try await view.loadAndWait(rig.url("/two"))
        #expect(view.state.canGoBack)
        let recorder = EventRecorder(view.engine)
        #expect(view.handleBackButton() == .goBack)
        try await recorder.next("back") { if case .loadFinished(let url) = $0 { url?.path == "/one" } else { false } }
        try await eventually("state at one") { view.state.title == "One" && !view.state.canGoBack }
        #expect(view.handleBackButton() == .close)
        #expect(delegate.closeRequests == 1)

        // A single entry behind counts as none when the app says so.
        var configuration = HybridWebViewConfiguration()
        configuration.back = BackPolicy(treatsSingleEntryAsNone: true)
        let strict = try rig.view(configuration)
        strict.delegate = delegate
        try await strict.loadAndWait(rig.url("/one"))
        try await strict.loadAndWait(rig.url("/two"))
        #expect(strict.handleBackButton() == .close)
        #expect(delegate.closeRequests == 2)
        try await eventually("the title") { strict.state.title == "Two" }
    }

    @Test(arguments: EngineKind.allCases)
    func textSizeIsResetAfterGoingBackWhenAsked(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/big", "<title>Big</title><p>big</p><script>document.documentElement.style.setProperty('zoom', '2');</script>")
        rig.page("/next", "<title>Next</title>")
        var configuration = HybridWebViewConfiguration()
        configuration.resetsTextSizeAfterBack = true
        let view = try rig.view(configuration)
        try await view.loadAndWait(rig.url("/big"))
        #expect(try await view.engine.evaluate("document.documentElement.style.getPropertyValue('zoom')") == "2")
        try await view.loadAndWait(rig.url("/next"))
        let recorder = EventRecorder(view.engine)
        view.goBack()
        try await recorder.next("back") { if case .loadFinished(let url) = $0 { url?.path == "/big" } else { false } }
        try await view.engine.waitUntil("document.documentElement.style.getPropertyValue('zoom') === ''")
    }

    @Test(arguments: EngineKind.allCases)
    func newWindowRequestsReachTheDelegateOnce(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/opener", "<title>Opener</title><a id=l target=_blank href='/target'>open</a>")
        let (view, delegate) = try await rig.delegatedView(showing: "/opener")
        // A click on the target=_blank link (the container's script runs with a user gesture),
        // then window.open, then one more window.open as the barrier: a duplicate of either
        // would reach the delegate before the last one does.
        _ = try await view.engine.evaluate("document.getElementById('l').click(); 0")
        try await eventually("the link's request") { delegate.newWindows.count >= 1 }
        _ = try await view.engine.evaluate("window.open('/popup'); 0")
        try await eventually("the request") { delegate.newWindows.count >= 2 }
        _ = try await view.engine.evaluate("window.open('/last'); 0")
        try await eventually("the last request") { delegate.newWindows.contains { $0.url == rig.url("/last") } }
        #expect(delegate.newWindows.map(\.url) == [rig.url("/target"), rig.url("/popup"), rig.url("/last")])
        #expect(delegate.newWindows.filter { $0.url == rig.url("/popup") }.count == 1)
        #expect(delegate.newWindows[1].url == rig.url("/popup"))
        #expect(delegate.newWindows.allSatisfy { $0.openerURL == rig.url("/opener") })
        #expect(view.state.url == rig.url("/opener"))
    }
}
