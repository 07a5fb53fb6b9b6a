import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// A page prerendered hidden in its own view (`WebViewPool.prerender`) and shown on open: no new
/// load, the standard's semantics injected, effectful calls held until it is shown; a discarded
/// prerender leaves nothing in the pool's next page; a foreign origin is never loaded.
@Suite("Pool: prerender", .serialized)
@MainActor
struct PrerenderEndToEndTests {
    @Test(arguments: EngineKind.allCases)
    func aPrerenderedPageIsShownWithoutANewLoadAndLearnsItWasActivated(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = Locked(0)
        rig.server.route("/next") { _ in
            hits.mutate { $0 += 1 }
            return .html("""
                <!doctype html><title>Next</title><p>next</p><script>
                window.seen = { atStart: document.prerendering, visibility: document.visibilityState, changes: [] };
                document.addEventListener('prerenderingchange', () => window.seen.changes.push({
                  prerendering: document.prerendering, visibility: document.visibilityState,
                  activationStart: performance.getEntriesByType('navigation')[0].activationStart }));
                // An effectful call (the navigation module) made while prerendering.
                hybrid.call('navigation', 'setTitle', { title: 'set by the page' })
                  .then(() => { window.seen.callRanPrerendering = document.prerendering; });
                window.addEventListener('load', () => { window.loaded = true; });
                </script>
                """)
        }
        var configuration = HybridWebViewConfiguration()
        let origin = BridgeOrigin(url: rig.url("/"))!.description
        configuration.navigationModuleOrigins = [OriginPattern(origin)]
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        pool.prerenderPolicy = PrerenderPolicy(allowedOrigins: [OriginPattern(origin)])
        defer { pool.drain() }

        let hidden = try await pool.prerender(rig.url("/next"))
        try await hidden.engine.waitUntil("window.loaded === true")
        #expect(try await hidden.engine.evaluate("window.seen.atStart") == true)
        #expect(try await hidden.engine.evaluate("window.seen.visibility") == "hidden")
        // The page's own bridge round trip (an immediate module) answers while the held one waits.
        #expect(try await hidden.engine.callAsync("return await hybrid.call('no-such-module', 'x').then(() => 1, () => 1)") == 1)
        #expect(try await hidden.engine.evaluate("window.seen.callRanPrerendering === undefined") == true)
        #expect(hidden.state.title != "set by the page")

        let shown = try await pool.open(rig.url("/next"))
        #expect(shown === hidden && shown.isVisible && hits.value == 1)
        try await shown.engine.waitUntil("window.seen.callRanPrerendering !== undefined")
        #expect(try await shown.engine.evaluate("window.seen.callRanPrerendering") == false)
        #expect(try await shown.engine.evaluate("window.seen.changes.length") == 1)
        #expect(try await shown.engine.evaluate("window.seen.changes[0].prerendering") == false)
        #expect(try await shown.engine.evaluate("window.seen.changes[0].activationStart > 0") == true)
        #expect(try await shown.engine.evaluate("document.prerendering") == false)
        #expect(try await shown.engine.evaluate("history.length") == 1)
        try await eventually("the held call's title") { shown.state.title == "set by the page" }
        #expect(hits.value == 1 && pool.prerenderActivations == 1)
        shown.close()
    }

    @Test(arguments: EngineKind.allCases)
    func aDiscardedPrerenderLeavesNoTraceAndAForeignOriginIsNeverLoaded(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/left", """
            <title>Left</title><script>sessionStorage.setItem('left', 'behind'); window.leftover = 1;
            hybrid.call('navigation', 'setTitle', { title: 'never' }).catch(() => {});
            window.addEventListener('load', () => { window.loaded = true; });</script>
            """)
        rig.page("/fresh", "<title>Fresh</title><p>fresh</p>")
        var configuration = HybridWebViewConfiguration()
        let origin = BridgeOrigin(url: rig.url("/"))!.description
        configuration.navigationModuleOrigins = [OriginPattern(origin)]
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        pool.prerenderPolicy = PrerenderPolicy(allowedOrigins: [OriginPattern(origin)])
        defer { pool.drain() }
        await pool.prewarm()

        let hidden = try await pool.prerender(rig.url("/left"))
        try await hidden.engine.waitUntil("window.loaded === true")
        pool.discardPrerenders()
        #expect(hidden.isClosed && pool.prerenderedURLs.isEmpty)
        let next = try await pool.open(rig.url("/fresh"))
        defer { next.close() }
        try await next.engine.waitUntil("location.pathname === '/fresh' && document.readyState === 'complete'")
        #expect(next !== hidden && pool.prerenderActivations == 0)
        #expect(try await next.engine.evaluate("history.length") == 1)
        #expect(try await next.engine.evaluate("sessionStorage.length") == 0)
        #expect(try await next.engine.evaluate("typeof window.leftover") == "undefined")
        #expect(next.state.title != "never")

        // The same server under another host name is another origin: refused, never requested.
        var foreign = URLComponents(url: rig.url("/count"), resolvingAgainstBaseURL: false)!
        foreign.host = "localhost"
        await #expect(throws: HybridError.engine(.prerenderRefused(url: foreign.url!.absoluteString,
            reason: "origin \(BridgeOrigin(url: foreign.url!)!) is not allowed to be prerendered"))) {
            try await pool.prerender(foreign.url!)
        }
        #expect(rig.hitCount("/count") == 0 && pool.prerenderedURLs.isEmpty)
    }
}
