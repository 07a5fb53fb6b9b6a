import Foundation
import HybridCore
import HybridFixtures
import HybridTesting
import Testing

/// How the pool confirms a warm view alive before handing it out: the engine's own report for a
/// view never handed out, a script probe for one the app has held or on an engine without a report.
@Suite("Pool: liveness at hand-out")
@MainActor
struct WebViewPoolLivenessTests {
    @Test func theEnginesReportDecidesOnlyForViewsNeverHandedOut() {
        let policy = WebViewPoolPolicy()
        let fresh = WebViewPoolPolicy.Candidate(isAlive: true, uses: 0, wasNavigated: false)
        let held = WebViewPoolPolicy.Candidate(isAlive: true, uses: 1, wasNavigated: false)
        #expect(policy.livenessCheck(for: fresh, engineReport: true) == .engineReport)
        #expect(policy.livenessCheck(for: fresh, engineReport: nil) == .probe)
        #expect(policy.livenessCheck(for: held, engineReport: true) == .probe)
        #expect(policy.livenessCheck(for: held, engineReport: nil) == .probe)
        #expect(policy.livenessCheck(for: fresh, engineReport: false) == .retire)
        #expect(policy.livenessCheck(for: held, engineReport: false) == .retire)
    }

    @Test func aFreshViewTheEngineVouchesForIsHandedOutWithoutAProbe() async throws {
        let (provider, pool) = try await Self.warmPool { $0.isContentProcessResponsive = true }
        defer { pool.drain() }
        // A probe would never be answered (held calls) and retire the view.
        provider.drivers[0].holdsScriptCalls = true
        let view = try await pool.dequeue()
        defer { view.close() }
        #expect(view.engine === provider.engines[0])
        #expect(pool.coldCount == 0 && pool.retirements.isEmpty)
        #expect(!provider.drivers[0].evaluated.contains { $0.script == Self.probe })
    }

    @Test func aFreshViewTheEngineReportsUnresponsiveIsRetiredUnasked() async throws {
        let (provider, pool) = try await Self.warmPool { $0.isContentProcessResponsive = false }
        defer { pool.drain() }
        // Only the warm-up's own bridge call ran before the hand-out; the hand-out runs nothing.
        let evaluatedWhileWarming = provider.drivers[0].evaluated.count
        let view = try await pool.dequeue()
        defer { view.close() }
        #expect(view.engine !== provider.engines[0])
        #expect(pool.coldCount == 1)
        #expect(pool.retirements[.unresponsive] == 1)
        #expect(provider.drivers[0].evaluated.count == evaluatedWhileWarming)
        #expect(provider.drivers[0].calls.contains("terminate"))
    }

    @Test func anEngineWithoutAReportStillProbes() async throws {
        let (provider, pool) = try await Self.warmPool { $0.isContentProcessResponsive = nil }
        defer { pool.drain() }
        provider.drivers[0].holdsScriptCalls = true
        let view = try await pool.dequeue()
        defer { view.close() }
        #expect(provider.drivers[0].evaluated.contains { $0.script == Self.probe })
        #expect(view.engine !== provider.engines[0])
        #expect(pool.retirements[.unresponsive] == 1)
    }

    @Test func aViewTheAppHeldIsProbedWhateverTheEngineReports() async throws {
        let (provider, pool) = try await Self.warmPool { $0.isContentProcessResponsive = true }
        defer { pool.drain() }
        let held = try await pool.dequeue()
        #expect(held.engine === provider.engines[0])
        pool.enqueue(held)    // unused: back to the pool
        try await eventually("the view back") { pool.count == 1 }
        // The app's script hung it; the engine has not noticed (it still reports it responsive).
        provider.drivers[0].holdsScriptCalls = true
        let view = try await pool.dequeue()
        defer { view.close() }
        #expect(provider.drivers[0].evaluated.contains { $0.script == Self.probe })
        #expect(view !== held && held.isClosed)
        #expect(pool.retirements[.unresponsive] == 1)
    }

    /// The liveness probe's script (`ContainerScripts.liveness`).
    static let probe = "1"

    /// A pool of one warm fake view (its warm-up load reported finished), `setUp` applied to its driver.
    static func warmPool(_ setUp: (FakeEngineDriver) -> Void) async throws -> (FakeEngineProvider, WebViewPool) {
        let provider = FakeEngineProvider()
        let pool = WebViewPool(provider: provider, policy: WebViewPoolPolicy(capacity: 1, probeTimeout: 0.05))
        pool.refillDelay = 3600
        let warming = Task { await pool.prewarm() }
        try await eventually("the warm view made") { provider.drivers.count == 1 }
        setUp(provider.drivers[0])
        provider.drivers[0].emit(.loadFinished(nil))    // the warm-up document
        await warming.value
        #expect(pool.count == 1)
        return (provider, pool)
    }
}
