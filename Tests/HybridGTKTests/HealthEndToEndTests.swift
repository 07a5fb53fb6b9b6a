import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Health recording in the real engines: what a page does reaches the app's sink as it happened —
/// its timing with the first contentful paint, its script errors with their source and line, its
/// ready mark — and a hostile page (an error loop, 100,000 rejected promises, overridden
/// `PerformanceObserver`/`console`/`onerror`) can neither hide its errors nor flood the sink. A
/// foreign iframe's errors are its own origin's.
@Suite("Health: capture in the engines", .serialized)
@MainActor
struct HealthEndToEndTests {
    @MainActor
    final class Fixture {
        let rig: LifecycleRig
        let events = HealthEventLog()
        let recorder: HealthRecorder
        let view: HybridWebView

        /// - Parameter configure: Changes the configuration; it gets the loopback origin.
        /// - Parameter listingFrameOrigin: The recorder keeps errors of `http://localhost:PORT` (the
        ///   loopback server under its other name) whole.
        init(_ kind: EngineKind, listingFrameOrigin: Bool = false,
             configure: (inout HybridWebViewConfiguration, String) -> Void = { _, _ in }) throws {
            rig = try LifecycleRig(kind)
            let listed: Set<String> = listingFrameOrigin ? ["http://localhost:\(rig.server.port)"] : []
            recorder = HealthRecorder(options: HealthRecorder.Options(fullErrorOrigins: listed), sinks: [events])
            var configuration = HybridWebViewConfiguration()
            configuration.health = recorder
            configure(&configuration, "http://127.0.0.1:\(rig.server.port)")
            view = try rig.view(configuration)
        }

        func open(_ path: String, _ html: String, query: String = "") async throws {
            rig.page(path, html)
            try await view.loadAndWait(rig.url(path + query))
        }

        /// Waits until the page side has posted the errors it folded away (it does so at most once
        /// a second); on an engine whose container world hears no errors it has none.
        func pageSideFlushed() async throws {
            guard rig.kind.capabilities.contains(.scriptErrorsInContainerWorld) else { return }
            try await eventually("the page side's drop report") {
                try await view.engine.evaluate("__hybridkitHealthUnsent()", in: .named(view.configuration.bridgeOptions.worldName)) == .number(0)
            }
        }
    }

    static let content = "<!doctype html><title>health</title><h1>Opened</h1><p>A page with text to paint.</p>"

    @Test(arguments: EngineKind.allCases)
    func aRealPagesTimingIsRecordedWithItsFirstContentfulPaint(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        try await fixture.open("/health/timing", Self.content)
        try await eventually("page timing") { !fixture.events.timings.isEmpty }
        let timing = try #require(fixture.events.timings.first)
        let fcp = try #require(timing.firstContentfulPaint)
        let load = try #require(timing.load)
        let loaded = try #require(timing.domContentLoaded)
        #expect(fcp > 0)
        #expect(loaded > 0 && load >= loaded, "DOMContentLoaded ends before load")
        #expect(try #require(timing.responseStart) <= loaded)
        // The page's own Performance Timeline has the same first contentful paint.
        let direct = try await fixture.view.engine.evaluate(
            "performance.getEntriesByName('first-contentful-paint')[0].startTime")
        #expect(abs((direct.numberValue ?? -1) - fcp) < 1)
        #expect(fixture.events.launches == [.network])
        let event = try #require(fixture.events.all.first { if case .pageTiming = $0.kind { true } else { false } })
        #expect(event.context.engine == fixture.view.engine.engineName)
        #expect(event.context.url == fixture.rig.url("/health/timing").absoluteString)
        #expect(event.context.launchID != nil && event.context.launchID == fixture.events.all.first?.context.launchID)
    }

    @Test(arguments: EngineKind.allCases)
    func scriptErrorsAndRejectionsAreRecordedWithSourceLineAndColumn(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        fixture.rig.server.route("/health/boom.js") { _ in
            ServerResponse(headers: ["Content-Type": "text/javascript"], body: Data("""
                // line 1
                function explode() {
                  throw new TypeError('boom from the script');
                }
                setTimeout(explode, 0);
                setTimeout(() => Promise.reject(new RangeError('rejected on purpose')), 0);
                """.utf8))
        }
        try await fixture.open("/health/errors", Self.content + "<script src='/health/boom.js?v=1'></script>",
                               query: "?token=secret")
        try await eventually("an error and a rejection") { fixture.events.errors.count >= 2 }
        let error = try #require(fixture.events.errors.first { $0.type == "error" })
        #expect(error.message.contains("boom from the script"))
        #expect(error.source == fixture.rig.url("/health/boom.js").absoluteString, "query stripped by default")
        #expect(error.line == 3)
        #expect((error.column ?? 0) > 0)
        #expect(error.stack?.contains("explode") == true)
        #expect(error.origin == BridgeOrigin(url: fixture.rig.url("/"))?.description)
        let rejection = try #require(fixture.events.errors.first { $0.type == "rejection" })
        #expect(rejection.message.contains("rejected on purpose"))
        #expect(fixture.events.all.allSatisfy { $0.context.url?.contains("secret") != true })
    }

    /// A page that, before anything else, swallows its errors (`onerror` returning true,
    /// `preventDefault()` on rejections), replaces `PerformanceObserver` and silences `console` —
    /// then throws 5,000 errors and rejects 100,000 promises. The container still hears them, and
    /// the sink gets at most the per-launch cap plus one counted drop.
    @Test(arguments: EngineKind.allCases)
    func aHostilePageCannotHideItsErrorsNorFloodTheSink(_ kind: EngineKind) async throws {
        try kind.require(.scriptErrorsInContainerWorld)
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        try await fixture.open("/health/hostile", Self.hostile)
        try await eventually("the flood to end", timeout: 30) {
            try await fixture.view.engine.evaluate("window.done === true") == .bool(true)
        }
        try await eventually("page timing despite the override") { !fixture.events.timings.isEmpty }
        #expect(fixture.events.timings.first?.firstContentfulPaint != nil)
        try await eventually("errors and rejections") {
            fixture.events.errors.contains { $0.type == "rejection" } && fixture.events.errors.contains { $0.type == "error" }
        }
        try await fixture.pageSideFlushed()
        fixture.view.close()   // ends the launch: its drops are reported
        let cap = fixture.recorder.options.maxScriptErrorsPerLaunch
        #expect(fixture.events.errors.count <= cap)
        #expect(fixture.events.dropped > 0)
        #expect(fixture.events.errors.count + fixture.events.dropped <= 105_000)
        #expect(fixture.recorder.openLaunches == 0)
    }

    /// The flood without the overrides, on every engine (Blink's driver reports each error).
    @Test(arguments: EngineKind.allCases)
    func anErrorLoopIsBoundedWithACountedDrop(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        try await fixture.open("/health/loop", Self.content + """
            <script>
            // After the load, so the flood (each error a DevTools message on Blink) cannot hold the load back.
            window.addEventListener('load', () => setTimeout(() => {
              for (let i = 0; i < 2000; i++) setTimeout(() => { throw new Error('loop ' + (i % 100)); }, 0);
              for (let i = 0; i < 5000; i++) Promise.reject(new Error('rejection ' + (i % 100)));
              setTimeout(() => setTimeout(() => { window.done = true; }, 50), 0);
            }, 0));
            </script>
            """)
        try await eventually("the loop to end", timeout: 30) {
            try await fixture.view.engine.evaluate("window.done === true") == .bool(true)
        }
        try await eventually("errors") { fixture.events.errors.count >= fixture.recorder.options.maxScriptErrorsPerLaunch }
        try await fixture.pageSideFlushed()
        fixture.view.close()
        #expect(fixture.events.errors.count == fixture.recorder.options.maxScriptErrorsPerLaunch)
        #expect(fixture.events.dropped > 0)
    }

    /// A foreign frame's error is attributed to its own origin and recorded as the page would see
    /// it (`Script error.`, no source): its message may hold its user's data. Listed, it is whole.
    @Test(arguments: EngineKind.allCases)
    func aForeignIframesErrorsAreAttributedToItsOwnOriginAndRedactedUnlessListed(_ kind: EngineKind) async throws {
        try kind.require(.scriptErrorsInContainerWorld)
        for listed in [false, true] {
            let fixture = try Fixture(kind, listingFrameOrigin: listed)
            defer { fixture.rig.close() }
            fixture.rig.page("/health/frame", "<!doctype html><p>frame</p><script>setTimeout(() => { throw new Error('from the iframe, user=alice@example.com'); }, 0);</script>")
            let frame = fixture.rig.server.url("/health/frame", host: "localhost")
            let origin = try #require(BridgeOrigin(url: frame)?.description)
            try await fixture.open("/health/parent", Self.content + "<iframe src='\(frame.absoluteString)'></iframe>")
            try await eventually("the iframe's error") { fixture.events.errors.contains { $0.origin == origin } }
            let error = try #require(fixture.events.errors.first { $0.origin == origin })
            let pageOrigin = try #require(BridgeOrigin(url: fixture.rig.url("/"))?.description)
            #expect(origin != pageOrigin)
            if listed {
                #expect(error.message.contains("alice@example.com"))
                #expect(error.source?.hasPrefix(origin) == true)
            } else {
                #expect(error.message == "Script error.")
                #expect(error.source == nil && error.line == nil)
            }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func aPackagePagesEventsCarryItsReleaseAndItsReadyMark(_ kind: EngineKind) async throws {
        let rig = try OfflinePackageRig()
        _ = try rig.publish(version: 1, files: OfflinePackageRig.site(version: 1))
        _ = try await rig.updater.update(OfflinePackageRig.id)
        let events = HealthEventLog()
        var configuration = HybridWebViewConfiguration()
        configuration.package = PackageBinding(installer: rig.installer, id: OfflinePackageRig.id, scheme: rig.scheme(on: kind))
        configuration.health = HealthRecorder(sinks: [events])
        let view = try HybridWebView(provider: try kind.provider(), configuration: configuration)
        defer { view.close() }
        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("the ready mark and the timing") {
            events.hasReady && !events.timings.isEmpty
        }
        #expect(events.launches == [.package])
        let ready = try #require(events.all.first { if case .ready = $0.kind { true } else { false } })
        if case .ready(let milliseconds) = ready.kind { #expect(milliseconds > 0) }
        for event in events.all {
            #expect(event.context.release == "\(OfflinePackageRig.id)@1", "\(event.name)")
        }
    }

    /// A warm pooled view's placeholder document goes away when the page loads: its own report
    /// (no timing at all) must not stand in for the page's.
    @Test(arguments: EngineKind.allCases)
    func aPooledViewsLaunchIsPooledAndGetsThePagesOwnTiming(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let events = HealthEventLog()
        var configuration = HybridWebViewConfiguration()
        configuration.health = HealthRecorder(sinks: [events])
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 1))
        defer { pool.drain() }
        await pool.prewarm()
        let view = try await pool.dequeue()
        rig.page("/health/pooled", Self.content)
        try await view.loadAndWait(rig.url("/health/pooled"))
        try await eventually("page timing") { !events.timings.isEmpty }
        #expect(events.launches == [.pooled])
        #expect(events.timings.count == 1)
        #expect(events.timings.first?.firstContentfulPaint != nil)
        pool.enqueue(view)
    }

    /// A module whose action fails with the module's own code.
    struct FailingModule: BridgeModule {
        let name = "orders"
        let allowedOrigins: [OriginPattern]
        var actions: [BridgeAction] {
            [Action("place") { (_: Empty, _) -> BridgeEmpty in throw BridgeFailure.module(code: "out_of_stock", message: "none left", data: nil) }]
        }
    }

    @Test(arguments: EngineKind.allCases)
    func bridgeFailuresAreRecordedByModuleAndCode(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind) { configuration, origin in
            configuration.modules = [FailingModule(allowedOrigins: [OriginPattern(stringLiteral: origin)])]
        }
        defer { fixture.rig.close() }
        try await fixture.open("/health/bridge", Self.content)
        let failed = try await fixture.view.page("""
            await hybrid.ready;
            try { await hybrid.call('orders', 'place'); return 'placed'; } catch (e) { return e.code; }
            """)
        #expect(failed == "out_of_stock")
        try await eventually("the bridge failure") {
            fixture.events.all.contains { $0.kind == .bridgeFailure(module: "orders", code: "out_of_stock") }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func proxyFailuresAreRecordedByCode(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind) { configuration, origin in
            let policy = try! ProxyPolicy(requests: [origin + "/allowed/*"])
            configuration.modules = [ProxyModule(proxy: RequestProxy(policy: policy, jar: nil),
                                                 allowedOrigins: [OriginPattern(stringLiteral: origin)])]
        }
        defer { fixture.rig.close() }
        try await fixture.open("/health/proxy", Self.content)
        let code = try await fixture.view.page("""
            await hybrid.ready;
            try { await hybrid.call('proxy', 'request', { url: location.origin + '/elsewhere', method: 'GET', headers: [] }); return 'ok'; }
            catch (e) { return e.code; }
            """)
        #expect(code == "proxy_denied")
        try await eventually("the proxy failure") { fixture.events.all.contains { $0.kind == .proxyFailure(code: "proxy_denied") } }
        #expect(!fixture.events.all.contains { if case .bridgeFailure = $0.kind { true } else { false } })
    }

    /// A request the page's own CSP refuses is a proxy failure of that page, counted by code
    /// (`csp_denied`), with the page's URL as its context; nothing reaches the server.
    @Test(arguments: EngineKind.allCases)
    func cspRefusalsAreCountedPerPage(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind) { configuration, origin in
            let other = origin.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let policy = try! ProxyPolicy(requests: [origin + "/*", other + "/*"])
            configuration.modules = [ProxyModule(proxy: RequestProxy(policy: policy, jar: nil),
                                                 allowedOrigins: [OriginPattern(stringLiteral: origin)])]
        }
        defer { fixture.rig.close() }
        let html = Data(Self.content.utf8)
        fixture.rig.server.route("/health/csp") { _ in
            ServerResponse(status: 200, headers: ["Content-Type": "text/html", "Content-Security-Policy": "connect-src 'self'"],
                           body: html)
        }
        let page = fixture.rig.url("/health/csp")
        try await fixture.view.loadAndWait(page)
        let code = try await fixture.view.page("""
            await hybrid.ready;
            const other = location.origin.replace('127.0.0.1', 'localhost');
            try { await hybrid.call('proxy', 'request', { url: other + '/echo', method: 'GET', headers: [] }); return 'sent'; }
            catch (e) { return e.code; }
            """)
        #expect(code == "csp_denied")
        try await eventually("the CSP refusal") {
            fixture.events.all.contains { $0.kind == .proxyFailure(code: "csp_denied") && $0.context.url == page.absoluteString }
        }
    }

    static let hostile = """
        <!doctype html><title>hostile</title>
        <script>
        window.onerror = () => true;
        window.addEventListener('error', (e) => { e.preventDefault(); e.stopImmediatePropagation(); }, true);
        window.addEventListener('unhandledrejection', (e) => { e.preventDefault(); e.stopImmediatePropagation(); }, true);
        window.onunhandledrejection = (e) => { e.preventDefault(); return true; };
        window.PerformanceObserver = function () { this.observe = () => {}; };
        performance.getEntriesByName = () => [];
        console.error = console.log = console.warn = () => {};
        </script>
        <h1>Hostile</h1><p>Swallows its own errors.</p>
        <script>
        for (let i = 0; i < 5000; i++) setTimeout(() => { throw new Error('loop ' + (i % 10)); }, 0);
        for (let i = 0; i < 100000; i++) Promise.reject(new Error('rejection ' + (i % 10)));
        setTimeout(() => setTimeout(() => { window.done = true; }, 50), 0);
        </script>
        """
}
