import Foundation
import HybridCore
import HybridTesting
import Testing

/// A decision's prefetch declarations become a prefetcher, its module and page script, started
/// by the app's open — only for the targets and page origins the app allows (default deny).
@Suite("Feature provisions: prefetch")
@MainActor
struct FeatureProvisionsPrefetchTests {
    static let page = URL(string: "https://m.example.com/item/?id=7")!
    /// Port 1 refuses at once: the prefetch fails fast, which is all these tests need.
    static let declaration = PrefetchDeclaration(key: "item", url: "http://127.0.0.1:1/item?id={query.id}",
                                                 pages: try? ConfigURLPattern("https://m.example.com/item/*"))

    static func decision(_ declarations: [PrefetchDeclaration]) -> FeatureDecision {
        FeatureDecision(url: page, installID: "i", source: .rule("item"), configVersion: 1,
                        features: FeatureSet(prefetch: declarations), engine: nil, trace: [])
    }

    static func provisions(targets: [OriginPattern], origins: [OriginPattern]) throws -> FeatureProvisions {
        let provisions = try FeatureProvisions(jar: CookieJar())
        provisions.prefetchTargets = targets
        provisions.prefetchOrigins = origins
        return provisions
    }

    @Test func theAppsOpenStartsTheDeclaredPrefetchForAllowedTargetsOnly() async throws {
        let provider = FakeEngineProvider()
        let provisions = try Self.provisions(targets: ["http://127.0.0.1:1"], origins: ["https://m.example.com"])
        let view = try await HybridWebView.open(Self.decision([Self.declaration]), engines: EngineRegistry(defaultProvider: provider),
                                                provisions: provisions)
        defer { view.close() }
        let prefetcher = try #require(view.configuration.prefetcher)
        #expect(prefetcher === provisions.prefetcher(for: [Self.declaration]), "one prefetcher per set of rules")
        #expect(prefetcher.pending == 1, "started by the open")
        #expect(prefetcher.start(for: Self.page).isEmpty, "a second start for the same page makes no second request")
        let module = try #require(view.configuration.modules.first { $0.name == PrefetchModule.moduleName } as? PrefetchModule)
        #expect(module.allowedOrigins == ["https://m.example.com"])
        #expect(view.bridge.router.moduleNames(for: BridgeOrigin(url: Self.page)).contains(PrefetchModule.moduleName))
        #expect(view.configuration.engine.userScripts.contains { $0.source.contains("__hybridkitPrefetch") })

        // A target the app did not allow is never started and installs nothing.
        let refusing = try Self.provisions(targets: ["https://api.example.com"], origins: ["https://m.example.com"])
        let refused = refusing.prefetchRules([Self.declaration]).refused
        #expect(refused.map(\.code) == ["prefetch_target_not_allowed"])
        let plain = try await HybridWebView.open(Self.decision([Self.declaration]), engines: EngineRegistry(defaultProvider: provider),
                                                 provisions: refusing)
        defer { plain.close() }
        #expect(plain.configuration.prefetcher == nil)
        #expect(!plain.configuration.modules.contains { $0.name == PrefetchModule.moduleName })
    }

    @Test func anOriginTheAppDidNotListNeverTakesAnything() async throws {
        let provisions = try Self.provisions(targets: ["http://127.0.0.1:1"], origins: [])
        let pool = await WebViewPool.make(for: Self.decision([Self.declaration]),
                                          engines: EngineRegistry(defaultProvider: FakeEngineProvider()), provisions: provisions)
        let view = try await pool.open(Self.page)
        defer { view.close(); pool.drain() }
        #expect(view.configuration.prefetcher?.pending == 1, "the pooled open started it")
        // The module is there, but no origin may call it: the page's own request goes to the network.
        #expect(view.configuration.modules.contains { $0.name == PrefetchModule.moduleName })
        #expect(!view.bridge.router.moduleNames(for: BridgeOrigin(url: Self.page)).contains(PrefetchModule.moduleName))
        // Another page of the pool's decision is not prefetched for unless its own pages match.
        #expect(view.configuration.prefetcher?.start(for: URL(string: "https://m.example.com/cart/?id=7")!).isEmpty == true)
    }
}
