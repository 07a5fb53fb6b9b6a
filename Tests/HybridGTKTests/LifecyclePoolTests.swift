import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore
import HybridGTK
import HybridServer
import HybridFixtures
import Testing

@Suite("Lifecycle: warm pool", .serialized)
@MainActor
struct LifecyclePoolTests {
    @Test(arguments: EngineKind.allCases)
    func aPooledViewShowsNoTraceOfThePreviousPage(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/first", """
            <title>First</title><body style="height:5000px"><p>first</p><script>
            sessionStorage.setItem('left', 'behind'); window.leftover = 1;
            window.addEventListener('resize', () => {}); scrollTo(0, 2000);</script></body>
            """)
        rig.page("/second", "<title>Second</title><p>second</p>")
        rig.page("/fresh", "<body style='height:5000px'><p>fresh</p></body>")
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 0
        defer { pool.drain() }
        await pool.prewarm()
        #expect(pool.count == 1)

        let first = try await pool.dequeue()
        #expect(pool.coldCount == 0)
        try await first.loadAndWait(rig.url("/first"))
        try await first.loadAndWait(rig.url("/second"))
        #expect(first.state.canGoBack)
        pool.enqueue(first)
        try await eventually("the pool to refill") { pool.count == 1 }

        let reused = try await pool.dequeue()
        #expect(reused !== first)
        #expect(reused.state.url == nil && reused.state.title == nil && !reused.state.canGoBack)
        try await reused.loadAndWait(rig.url("/fresh"))
        #expect(try await reused.engine.evaluate("history.length") == 1)
        #expect(try await reused.engine.evaluate("sessionStorage.length") == 0)
        #expect(try await reused.engine.evaluate("window.scrollY") == 0)
        #expect(try await reused.engine.evaluate("typeof window.leftover") == "undefined")
        #expect(reused.state.title == nil)
        #expect(!reused.state.canGoBack && !reused.engine.canGoBack)
        #expect(reused.engine.backForwardList.back.isEmpty)
        #expect(pool.retirements[.history] == 1)
    }

    @Test(arguments: EngineKind.allCases)
    func deadViewsAreNeverHandedOut(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 2))
        defer { pool.drain() }
        await pool.prewarm()
        #expect(pool.count == 2)
        // Kill both warm views' processes, give them back and ask at once.
        let first = try await pool.dequeue(), second = try await pool.dequeue()
        first.engine.terminateContentProcess()
        second.engine.terminateContentProcess()
        pool.enqueue(first)
        pool.enqueue(second)
        let retired = { (pool.retirements[.dead] ?? 0) + (pool.retirements[.unresponsive] ?? 0) }
        try await eventually("the pool to take both views back") { pool.count + retired() == 2 }
        let handed = try await pool.dequeue()
        #expect(handed.engine.isAlive)
        #expect(try await handed.engine.evaluate("1 + 1") == 2)
        #expect((pool.retirements[.dead] ?? 0) + (pool.retirements[.unresponsive] ?? 0) == 2)
    }

    @Test(arguments: EngineKind.allCases)
    func anUnresponsiveWarmViewIsNeverHandedOut(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        // The hung view never answers, whatever the timeout; a healthy one must answer within it
        // even on a loaded machine (0.3 s retired the healthy view too at a load average of 20).
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 2, probeTimeout: 2))
        pool.refillDelay = 3600
        defer { pool.drain() }
        await pool.prewarm()
        #expect(pool.count == 2)
        // Both handed out unused and given back, the hung one first so it is next in line.
        let hung = try await pool.dequeue(), healthy = try await pool.dequeue()
        Task { _ = try? await hung.engine.evaluate("for (;;) {}") }
        pool.enqueue(hung)
        try await eventually("the hung view back (unused, alive)") { pool.count == 1 }
        pool.enqueue(healthy)
        try await eventually("both back") { pool.count == 2 }

        let handed = try await pool.dequeue()
        #expect(handed === healthy)
        #expect(hung.isClosed)
        #expect(pool.retirements[.unresponsive] == 1)
        #expect(try await handed.engine.evaluate("1 + 1") == 2)
    }

    /// WebKitGTK's parking (an X11 window moved off-screen): no other engine has this window.
    @Test func aWarmViewWaitsOutOfSightButMapped() async throws {
        let rig = try LifecycleRig(.webkit)
        defer { rig.close() }
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        defer { pool.drain() }
        await pool.prewarm()
        let view = try await pool.dequeue()
        let window = try #require((view.engine as? GTKWebEngine)?.window)
        let shown = try #require(Self.position(window))
        #expect(shown.x > -2000 && shown.y > -2000)
        try await view.engine.waitUntil("document.visibilityState === 'visible'")

        // Given back unused: kept out of sight (the page sees itself hidden) but still mapped.
        pool.enqueue(view)
        try await eventually("the view back") { pool.count == 1 }
        #expect(!view.isVisible)
        let parked = try #require(Self.position(window))
        #expect(parked.x < -10_000 && parked.y < -10_000)
        #expect(gtk_widget_get_mapped(window) != 0)
        try await view.engine.waitUntil("document.visibilityState === 'hidden'")
        let again = try await pool.dequeue()
        #expect(again === view && view.isVisible)
        #expect(Self.position(window) == shown)
        try await view.engine.waitUntil("document.visibilityState === 'visible'")

        // Hidden while parked, then shown: it comes back on screen, not off it.
        view.engine.setParked(true)
        view.engine.setVisible(false)
        try await view.engine.waitUntil("document.visibilityState === 'hidden'")
        view.engine.setVisible(true)
        try await view.engine.waitUntil("document.visibilityState === 'visible'")
        #expect(Self.position(window) == shown)
    }

    private static func position(_ window: UnsafeMutablePointer<GtkWidget>) -> Position? {
        var x: Int32 = 0, y: Int32 = 0
        return hk_window_x11_position(window, &x, &y) != 0 ? Position(x: x, y: y) : nil
    }

    struct Position: Equatable { var x, y: Int32 }

    @Test(arguments: EngineKind.allCases)
    func memoryPressureEmptiesThePoolAndReuseIsBounded(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 2, maximumReuse: 2))
        pool.refillDelay = 0
        defer { pool.drain() }
        await pool.prewarm()
        #expect(pool.count == 2)
        // An unused view goes back to the pool until it reaches its reuse limit.
        let view = try await pool.dequeue()
        pool.enqueue(view)
        try await eventually("the view back") { pool.count == 2 }
        var again = try await pool.dequeue()
        while again !== view { pool.enqueue(again); again = try await pool.dequeue() }
        pool.enqueue(again)
        try await eventually("the view retired") { pool.retirements[.reuseLimit] == 1 }

        try await eventually("the pool to refill") { pool.count == 2 }
        pool.handleMemoryPressure()
        #expect(pool.count == 0)
        #expect(pool.retirements[.memoryPressure] == 2)
        let cold = try await pool.dequeue()
        #expect(pool.coldCount == 1)
        // No refilling under memory pressure until the app prewarms again: the dequeue that
        // would have scheduled one (at once: the delay is 0) did not.
        #expect(!pool.isRefilling)
        #expect(pool.count == 0)
        cold.close()
    }

    @Test(arguments: EngineKind.allCases)
    func twentyKillsInARowAcrossPooledViews(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        var configuration = HybridWebViewConfiguration()
        configuration.whiteScreen = WhiteScreenPolicy(maximumReloads: 1, window: 30, baseDelay: 0.05)
        let pool = WebViewPool(provider: rig.provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 2))
        pool.refillDelay = 0
        defer { pool.drain() }
        await pool.prewarm()
        let delegate = LifecycleDelegate()
        for round in 0..<20 {
            let view = try await pool.dequeue()
            view.delegate = delegate
            #expect(view.engine.isAlive, "round \(round)")
            #expect(try await view.engine.evaluate("1") == 1, "round \(round)")
            try await view.loadAndWait(rig.url("/count/\(round)"))
            #expect(try await view.engine.evaluate("history.length") == 1, "round \(round)")
            let before = delegate.whiteScreens.count
            let recorder = EventRecorder(view.engine)
            view.engine.terminateContentProcess()
            try await recorder.next("termination") { if case .contentProcessTerminated = $0 { true } else { false } }
            #expect(delegate.whiteScreens.count == before + 1)
            if round % 2 == 0 {
                // Let the automatic reload bring the page back once.
                try await recorder.loadFinished()
                #expect(try await view.engine.evaluate("document.title") == "Counted")
            }
            pool.enqueue(view)
        }
        #expect(delegate.whiteScreens.allSatisfy { $0.recovery == .reload(after: 0.05) })
        try await eventually("every view retired") { (pool.retirements[.dead] ?? 0) + (pool.retirements[.history] ?? 0) == 20 }
    }

    @Test(arguments: EngineKind.allCases)
    func enqueueStopsAudio(_ kind: EngineKind) async throws {
        // No autoplay policy needed: the container's script that starts the audio runs with a
        // user gesture on every engine.
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/media", """
            <title>Media</title><audio id=a src="/tone.wav" loop></audio><script>
            a.onpause = () => navigator.sendBeacon('/beacon/paused');
            </script>
            """)
        let pool = WebViewPool(provider: rig.provider, policy: WebViewPoolPolicy(capacity: 1))
        defer { pool.drain() }
        let view = try await pool.dequeue()
        try await view.loadAndWait(rig.url("/media"))
        _ = try await view.page("await a.play(); return !a.paused;")
        try await eventually("audio to play") { try await view.engine.evaluate("!a.paused && a.currentTime > 0") == true }
        pool.enqueue(view)
        try await eventually("the pause beacon") { rig.hitCount("/beacon/paused") == 1 }
        try await eventually("the view retired") { view.isClosed }
    }
}
