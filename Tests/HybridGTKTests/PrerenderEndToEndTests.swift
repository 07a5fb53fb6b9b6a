import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// A page prerendered hidden in its own view (`WebViewPool.prerender`) and shown on open: no new
/// load, the standard's semantics injected, effectful calls held until it is shown; a discarded
/// prerender leaves nothing in the pool's next page; a foreign origin is never loaded; health
/// records the launch when the page is shown.
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
        let pool = Self.pool(rig)
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

    /// Opened before its load was done (the tap came while it still loaded): the page is told it
    /// is shown as soon as its document is there, not left prerendering for good.
    @Test(arguments: EngineKind.allCases)
    func aPrerenderOpenedWhileItStillLoadsIsActivatedOnceItsDocumentIsThere(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.server.route("/slow") { _ in
            ServerResponse.html("<!doctype html><title>Slow</title><p>slow</p>").delayed(by: .milliseconds(300))
        }
        let pool = Self.pool(rig)
        defer { pool.drain() }
        _ = try await pool.prerender(rig.url("/slow"))
        let shown = try await pool.open(rig.url("/slow"))
        try await shown.engine.waitUntil("document.title === 'Slow'")
        try await shown.engine.waitUntil("document.prerendering === false")
        #expect(try await shown.engine.evaluate("document.visibilityState") == "visible")
        #expect(try await shown.engine.evaluate("performance.getEntriesByType('navigation')[0].activationStart > 0") == true)
        shown.close()
    }

    /// Health: the hidden load is no launch; the launch is recorded when the page is shown, as
    /// `prerendered`, its timings measured from then; a prerender never shown records nothing.
    @Test(arguments: EngineKind.allCases)
    func healthRecordsAPrerendersLaunchWhenItIsShownWithItsTimingsFromThen(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let loaded = "<script>window.addEventListener('load', () => { window.loaded = true; });</script>"
        rig.page("/unused", "<title>Unused</title><h1>Unused</h1>" + loaded)
        rig.page("/shown", "<title>Shown</title><h1>Shown</h1>" + loaded)
        let log = HealthEventLog()
        let pool = Self.pool(rig, health: HealthRecorder(sinks: [log]))
        defer { pool.drain() }

        let unused = try await pool.prerender(rig.url("/unused"))
        try await unused.engine.waitUntil("window.loaded === true")
        pool.discardPrerenders()
        let hidden = try await pool.prerender(rig.url("/shown"))
        try await hidden.engine.waitUntil("window.loaded === true")
        // The page side reports its timing a quarter of a second after its load and paint: held.
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(log.all.isEmpty, "recorded while hidden: \(log.names)")

        let opened = Date()
        let shown = try await pool.open(rig.url("/shown"))
        defer { shown.close() }
        #expect(shown === hidden && log.launches == [.prerendered])
        try await eventually("the shown page's timing") { !log.timings.isEmpty }
        let timing = try #require(log.timings.first)
        // Its response and load came before it was shown: 0 ms from the activation.
        #expect(timing.responseStart == 0 && timing.load == 0, "\(timing)")
        #expect(log.all.allSatisfy { $0.time >= opened && $0.context.url == rig.url("/shown").absoluteString })
        #expect(log.timings.count == 1 && log.launches.count == 1)
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
        let pool = Self.pool(rig)
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

    @Test(arguments: EngineKind.allCases)
    func aPagesSpeculationRulesAndHybridPrerenderAskForItsOwnOriginOnly(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = Locked<[String: Int]>([:])
        for path in ["/rule-next", "/api-next", "/from-frame", "/lazy"] {
            rig.server.route(path) { request in
                hits.mutate { $0[request.path, default: 0] += 1 }
                return .html("<title>\(request.path)</title>")
            }
        }
        let here = rig.url("/").absoluteString.dropLast()
        var foreign = URLComponents(url: rig.url("/frame"), resolvingAgainstBaseURL: false)!
        foreign.host = "localhost"
        rig.page("/frame", """
            <script type="speculationrules">{"prerender": [{"source": "list", "urls": ["\(here)/from-frame"]}]}</script>
            """)
        rig.page("/list", """
            <title>List</title>
            <script type="speculationrules">{"prerender": [
              {"source": "list", "urls": ["/rule-next", "http://localhost:\(rig.url("/").port!)/rule-next"]},
              {"source": "list", "urls": ["/lazy"], "eagerness": "conservative"}]}</script>
            <iframe src="\(foreign.url!.absoluteString)"></iframe>
            <script>window.addEventListener('load', () => {
              hybrid.prerender('/api-next').then(ok => { window.apiOK = ok; });
              hybrid.prerender('http://localhost:\(rig.url("/").port!)/api-next').then(ok => { window.foreignOK = ok; });
            });</script>
            """)
        let origin = BridgeOrigin(url: rig.url("/"))!.description
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        pool.prerenderPolicy = PrerenderPolicy(allowedOrigins: [OriginPattern(origin), OriginPattern(foreign.url!.absoluteString)],
                                               pagesMayPrerender: true)
        defer { pool.drain() }
        let view = try await pool.open(rig.url("/list"))
        defer { view.close() }
        try await view.engine.waitUntil("window.apiOK !== undefined && window.foreignOK !== undefined")
        #expect(try await view.engine.evaluate("window.apiOK") == true)
        #expect(try await view.engine.evaluate("window.foreignOK") == false)
        // Asked for at once, in the order the page asked (the rules at document end, the API at load).
        #expect(pool.prerenderedURLs == [rig.url("/rule-next").absoluteString, rig.url("/api-next").absoluteString])
        // The foreign frame's rules (run before the page's load event) and the conservative rule asked for nothing.
        #expect(hits.value["/from-frame"] == nil && hits.value["/lazy"] == nil)
        // Both load, each requested once: on Blink, Chromium's own speculation does not request
        // the rules' URL a second time.
        try await eventually("both prerenders loaded: \(hits.value)") { hits.value["/rule-next"] == 1 && hits.value["/api-next"] == 1 }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(hits.value == ["/rule-next": 1, "/api-next": 1])
    }

    /// A pool of one warm view whose pages of the rig's origin may call `navigation` and be prerendered.
    static func pool(_ rig: LifecycleRig, health: HealthRecorder? = nil) -> WebViewPool {
        var configuration = HybridWebViewConfiguration()
        configuration.health = health
        let origin = OriginPattern(BridgeOrigin(url: rig.url("/"))!.description)
        configuration.navigationModuleOrigins = [origin]
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        pool.prerenderPolicy = PrerenderPolicy(allowedOrigins: [origin])
        return pool
    }
}
