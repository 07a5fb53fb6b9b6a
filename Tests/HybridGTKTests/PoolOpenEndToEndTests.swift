import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// What a pooled open hands the page: a real navigation whose bridge works from its first script,
/// and the engine's own report of its content process that the pool relies on.
@Suite("Pool: the pooled open", .serialized)
@MainActor
struct PoolOpenEndToEndTests {
    @Test(arguments: EngineKind.allCases)
    func aPooledPagesFirstCallWorksFromItsFirstScript(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        // The call is made while the document is still parsing, before load-finished.
        rig.page("/early", """
            <!doctype html><title>Early</title><script>
            window.early = hybrid.call('navigation', 'setTitle', { title: 'from the first script' })
              .then(v => ({ ok: true, value: v }), e => ({ ok: false, code: e.code }));
            window.early.then(r => { window.earlyResult = r; });
            </script><p>early</p>
            """)
        var configuration = HybridWebViewConfiguration()
        configuration.navigationModuleOrigins = [OriginPattern(BridgeOrigin(url: rig.url("/"))!.description)]
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        defer { pool.drain() }
        await pool.prewarm()
        let view = try await pool.dequeue()
        defer { pool.enqueue(view) }
        #expect(pool.coldCount == 0)
        try await view.loadAndWait(rig.url("/early"))
        try await view.engine.waitUntil("window.earlyResult !== undefined")
        #expect(try await view.engine.evaluate("window.earlyResult.ok") == true)
        try await eventually("the page's title") { view.state.title == "from the first script" }
        #expect(try await view.engine.evaluate("history.length") == 1)
    }

    /// The warm-up document makes one bridge call before the view counts as warm (so a pooled
    /// page's first call does not compile the call path): it reaches the router from an origin
    /// no module admits, is refused like any other, and leaves nothing pending.
    @Test(arguments: EngineKind.allCases)
    func theWarmUpsOwnBridgeCallIsRefusedAndLeavesNothingPending(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        var configuration = HybridWebViewConfiguration()
        configuration.navigationModuleOrigins = [OriginPattern(BridgeOrigin(url: rig.url("/"))!.description)]
        let view = try HybridWebView(provider: rig.provider, configuration: configuration)
        defer { view.close() }
        var log: [BridgeLogEntry] = []
        view.bridge.router.logger = { log.append($0) }
        view.warmUp()
        await view.waitUntilWarm()
        let calls = log.filter { $0.module == "hybrid" && $0.action == "info" }
        #expect(calls.count == 1)
        #expect(calls.first?.code == "denied")
        #expect(view.bridge.router.pendingCount == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func theEnginesResponsivenessReportFollowsItsContentProcess(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let view = try HybridWebView(provider: rig.provider)
        defer { view.close() }
        try await view.engine.loadHTMLAndWait("<p>alive</p>")
        switch kind {
        case .webkit: #expect(view.engine.isContentProcessResponsive == true)    // is-web-process-responsive
        case .blink: #expect(view.engine.isContentProcessResponsive == nil)      // no report: the pool probes
        }
        view.engine.terminateContentProcess()
        try await eventually("the content process gone") { !view.engine.isAlive }
        #expect(view.engine.isContentProcessResponsive == false)
    }
}
