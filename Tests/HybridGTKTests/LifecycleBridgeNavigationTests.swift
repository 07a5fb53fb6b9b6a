import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// A page drives its own container through the `navigation` module.
@Suite("Lifecycle: the navigation module served by the container", .serialized)
@MainActor
struct LifecycleBridgeNavigationTests {
    @Test(arguments: EngineKind.allCases)
    func aPageOpensClosesTitlesAndGoesBackThroughItsContainer(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/first", "<title>First</title><p>1</p>")
        rig.page("/second", "<title>Second</title><p>2</p>")
        var configuration = HybridWebViewConfiguration()
        configuration.navigationModuleOrigins = [OriginPattern(BridgeOrigin(url: rig.url("/"))!.description)]
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 2))
        defer { pool.drain() }
        await pool.prewarm()
        let other = try await pool.dequeue()
        let view = try await pool.dequeue()
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.url("/first"))
        try await view.engine.waitUntil("window.hybrid && hybrid.modules.includes('navigation')")
        #expect(try await view.page("return await hybrid.call('navigation', 'back');") == false)  // nowhere to go
        try await view.loadAndWait(rig.url("/second"))
        try await view.engine.waitUntil("window.hybrid && hybrid.modules.includes('navigation')")

        #expect(try await view.page("return await hybrid.call('navigation', 'setTitle', {title: 'From the page'});") == .null)
        #expect(view.state.title == "From the page")
        _ = try await view.page("return await hybrid.call('navigation', 'open', {url: '\(rig.url("/third").absoluteString)'});")
        #expect(delegate.newWindows.map(\.url) == [rig.url("/third")])
        _ = try await view.page("return await hybrid.call('navigation', 'close');")
        #expect(delegate.closeRequests == 1)

        let recorder = EventRecorder(view.engine)
        #expect(try await view.page("return await hybrid.call('navigation', 'back');") == true)
        try await recorder.next("back") { if case .loadFinished(let url) = $0 { url?.path == "/first" } else { false } }
        try await eventually("the page's own title again") { view.state.title == "First" }
        // A page restored from the page cache announces its document again: its calls work.
        #expect(try await view.page("return await hybrid.call('navigation', 'back');") == false)
        // The other pooled view's page was never the target of any of this.
        #expect(other.state.url == nil)
    }
}
