import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// The façade composes what the other issues built: cookie sync before each navigation, and a
/// pooled view opened with its HTML preloaded.
@Suite("Lifecycle: composition", .serialized)
@MainActor
struct LifecycleCompositionTests {
    @Test(arguments: EngineKind.allCases)
    func everyNavigationWaitsForTheJarsCookies(_ kind: EngineKind) async throws {
        let rig = try await CookieRig(kind)
        defer { rig.close() }
        var configuration = HybridWebViewConfiguration()
        configuration.cookieSync = rig.sync
        let view = try HybridWebView(provider: rig.provider, configuration: configuration)
        defer { view.close() }
        // Set just before each load: only the container's wait makes it reach the first request.
        try rig.jar.setCookie(fromHeader: "token=t1; HttpOnly; Path=/", for: rig.url("/"))
        try await view.loadAndWait(rig.url("/record/first"))
        #expect(rig.recorded["/record/first"] == "token=t1")
        try rig.jar.setCookie(fromHeader: "token=t2; HttpOnly; Path=/", for: rig.url("/"))
        _ = try await view.engine.evaluate("location.href = '/record/second'; 0")
        try await eventually("the second page") { rig.recorded["/record/second"] != nil }
        #expect(rig.recorded["/record/second"] == "token=t2")
    }

    @Test(arguments: EngineKind.allCases)
    func aPooledViewOpensWithItsHTMLPreloaded(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = rig.hits
        rig.server.route("/slow-page") { request in
            hits.mutate { $0[request.path, default: 0] += 1 }
            return ServerResponse.html("<title>Slow</title><p>slow</p>").delayed(by: .milliseconds(40))
        }
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 1))
        defer { pool.drain() }
        await pool.prewarm()
        let url = rig.url("/slow-page/one")
        let view = try await pool.open(url, preloader: PagePreloader())
        try await eventually("the page") { view.state.url == url && !view.state.isLoading && view.state.title == "Slow" }
        #expect(try await view.engine.evaluate("history.length") == 1)
        #expect(!view.state.canGoBack)
        #expect(rig.hitCount("/slow-page/one") == 1)
        #expect(pool.coldCount == 0)
        pool.enqueue(view)
    }
}
