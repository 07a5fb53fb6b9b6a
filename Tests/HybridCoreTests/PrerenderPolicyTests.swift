import Foundation
import HybridCore
import HybridFixtures
import HybridTesting
import Testing

/// The prerender's policy and its bookkeeping in the pool, on the fake engine: what may be
/// prerendered, how many, for how long, and that an open shows the prerendered view without a load.
@Suite("Pool: prerender policy")
@MainActor
struct PrerenderPolicyTests {
    static let page = URL(string: "https://m.example.com/item?id=1")!

    @Test func onlyThePackageAndAllowedOriginsMayBePrerendered() {
        let policy = PrerenderPolicy(allowedOrigins: ["https://m.example.com"])
        #expect(policy.refusal(for: Self.page, packageScheme: nil) == nil)
        #expect(policy.refusal(for: URL(string: "hybrid-app://shop/index.html")!, packageScheme: "hybrid-app") == nil)
        #expect(policy.refusal(for: URL(string: "https://evil.example/")!, packageScheme: "hybrid-app") != nil)
        #expect(policy.refusal(for: URL(string: "http://m.example.com/")!, packageScheme: nil) != nil)    // another origin
        #expect(policy.refusal(for: URL(string: "file:///etc/passwd")!, packageScheme: nil) != nil)
        #expect(policy.refusal(for: URL(string: "other-app://shop/")!, packageScheme: "hybrid-app") != nil)
        #expect(PrerenderPolicy().refusal(for: Self.page, packageScheme: nil) != nil)    // default: no network origin
        #expect(PrerenderPolicy(limit: 0, allowedOrigins: [.any]).refusal(for: Self.page, packageScheme: nil) != nil)
        #expect(PrerenderPolicy.key(for: URL(string: "https://m.example.com/a?x=1#top")!) == "https://m.example.com/a?x=1")
        #expect(PrerenderPolicy(limit: 2).evictions(keeping: 2) == 1)
        #expect(PrerenderPolicy(limit: 2).evictions(keeping: 1) == 0)
    }

    @Test func aRefusedPrerenderThrowsATypedErrorAndMakesNoView() async throws {
        let provider = FakeEngineProvider()
        let pool = WebViewPool(provider: provider)
        defer { pool.drain() }
        await #expect(throws: HybridError.self) { try await pool.prerender(URL(string: "https://evil.example/")!) }
        do {
            try await pool.prerender(URL(string: "https://evil.example/")!)
        } catch let error as HybridError {
            #expect(error.code == "prerender_refused")
        }
        #expect(provider.drivers.isEmpty && pool.prerenderedURLs.isEmpty)
    }

    @Test func openingAPrerenderedURLShowsItsViewWithoutANewLoad() async throws {
        let (provider, pool) = Self.pool()
        defer { pool.drain() }
        let hidden = try await Self.prerender(pool, Self.page)
        let driver = provider.drivers[0]
        #expect(driver.calls.contains("parked true"))
        #expect(driver.calls.filter { $0.hasPrefix("load ") } == ["load \(Self.page.absoluteString)"])
        #expect(driver.configuration.userScripts.contains { $0.source.contains("__hybridkitPrerender") })
        driver.runLoad(Self.page)
        let shown = try await pool.open(URL(string: Self.page.absoluteString + "#top")!)
        #expect(shown === hidden && shown.isVisible)
        #expect(driver.calls.filter { $0.hasPrefix("load ") }.count == 1)
        #expect(driver.evaluated.contains { $0.script.contains("__hybridkitPrerender.activate()") })
        #expect(pool.prerenderActivations == 1 && pool.prerenderedURLs.isEmpty)
        // Opened again: not prerendered any more, a normal open.
        let other = try await pool.open(Self.page)
        #expect(other !== shown)
        other.close()
        shown.close()
    }

    @Test func theLimitDiscardsTheOldestAndAskingTwiceKeepsOne() async throws {
        let (_, pool) = Self.pool(PrerenderPolicy(limit: 2, allowedOrigins: ["https://m.example.com"]))
        defer { pool.drain() }
        let first = try await Self.prerender(pool, URL(string: "https://m.example.com/1")!)
        #expect(try await pool.prerender(URL(string: "https://m.example.com/1")!) === first)    // kept: no new view
        _ = try await Self.prerender(pool, URL(string: "https://m.example.com/2")!)
        _ = try await Self.prerender(pool, URL(string: "https://m.example.com/3")!)
        #expect(pool.prerenderedURLs == ["https://m.example.com/2", "https://m.example.com/3"])
        #expect(first.isClosed && pool.prerenderDiscards[.limit] == 1)
        // A discarded view is never pooled: the pool holds none of them.
        #expect(pool.count == 0)
    }

    @Test func anUnusedPrerenderIsDiscardedAfterItsTimeout() async throws {
        let (_, pool) = Self.pool(PrerenderPolicy(timeout: 0.05, allowedOrigins: ["https://m.example.com"]))
        defer { pool.drain() }
        let view = try await Self.prerender(pool, Self.page)
        try await eventually("the prerender discarded") { view.isClosed }
        #expect(pool.prerenderDiscards[.timeout] == 1 && pool.prerenderedURLs.isEmpty)
    }

    @Test func memoryPressureTheAppAndAFailedLoadDiscard() async throws {
        let (provider, pool) = Self.pool()
        defer { pool.drain() }
        let a = try await Self.prerender(pool, Self.page)
        pool.handleMemoryPressure()
        #expect(a.isClosed && pool.prerenderDiscards[.memoryPressure] == 1)
        let b = try await Self.prerender(pool, Self.page)
        pool.discardPrerenders()
        #expect(b.isClosed && pool.prerenderDiscards[.app] == 1)
        let c = try await Self.prerender(pool, Self.page)
        provider.drivers.last!.emit(.loadFailed(Self.page, message: "refused", cancelled: false))
        #expect(c.isClosed && pool.prerenderDiscards[.failed] == 1)
        // The URL then opens the normal way, in another view.
        let opened = try await pool.open(Self.page)
        #expect(opened !== c && provider.drivers.last!.calls.contains("load \(Self.page.absoluteString)"))
        opened.close()
    }

    /// `pool.prerender(url)` on the fake engine, its view's warm-up document reported finished.
    static func prerender(_ pool: WebViewPool, _ url: URL) async throws -> HybridWebView {
        let provider = pool.provider as! FakeEngineProvider
        let made = provider.drivers.count
        let task = Task { try await pool.prerender(url) }
        try await eventually("the prerender's view made") { provider.drivers.count == made + 1 }
        provider.drivers[made].emit(.loadFinished(nil))
        return try await task.value
    }

    static func pool(_ policy: PrerenderPolicy = PrerenderPolicy(allowedOrigins: ["https://m.example.com"]))
        -> (FakeEngineProvider, WebViewPool)
    {
        let provider = FakeEngineProvider()
        let pool = WebViewPool(provider: provider, policy: WebViewPoolPolicy(capacity: 1))
        pool.refillDelay = 3600
        pool.prerenderPolicy = policy
        return (provider, pool)
    }
}
