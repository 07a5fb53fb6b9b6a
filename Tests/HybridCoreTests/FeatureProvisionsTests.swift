import Foundation
import HybridCore
import HybridTesting
import Testing

/// Remote config's decision becomes installed features in one place, the same for an app and
/// for `hybrid run --config`: what the decision turns on is installed from the app's provisions,
/// what it leaves off is not, whatever is provided.
@Suite("Feature provisions")
@MainActor
struct FeatureProvisionsTests {
    static let url = URL(string: "https://m.example.com/shop/")!

    static func decision(_ features: FeatureSet, source: FeatureDecision.Source = .rule("shop")) -> FeatureDecision {
        FeatureDecision(url: url, installID: "install-1", source: source, configVersion: 3, features: features,
                        engine: nil, trace: [])
    }

    static func names(_ view: HybridWebView) -> [String] { view.configuration.modules.map(\.name) }

    @Test func everyFeatureADecisionTurnsOnIsInstalledFromTheProvisions() async throws {
        let provider = FakeEngineProvider()
        let jar = CookieJar()
        let provisions = try FeatureProvisions(jar: jar, proxyOrigins: ["https://m.example.com"],
                                               navigation: NavigationPolicy(interceptedSchemes: ["shop"]))
        let on = Self.decision(FeatureSet(requestProxy: true, cookieSync: true, urlInterception: true))
        let first = try await HybridWebView.make(for: on, engines: EngineRegistry(defaultProvider: provider), provisions: provisions)
        let second = try await HybridWebView.make(for: on, engines: EngineRegistry(defaultProvider: provider), provisions: provisions)
        defer { first.close(); second.close() }
        // Cookie sync with the app's jar and the engine's store, one sync per store.
        #expect(first.configuration.cookieSync?.jar === jar)
        #expect(first.configuration.cookieSync === second.configuration.cookieSync)
        // The proxy module for the listed origins only, its page script, one shared proxy.
        let proxy = try #require(first.configuration.modules.first { $0.name == ProxyModule.moduleName } as? ProxyModule)
        #expect(proxy.allowedOrigins == ["https://m.example.com"])
        #expect(proxy.proxy === provisions.requestProxy)
        #expect(first.configuration.engine.userScripts.contains { $0.source.contains("__hybridkitProxy") })
        // URL interception with the app's policy.
        #expect(first.configuration.navigation?.interceptedSchemes == ["shop"])
    }

    @Test func aFeatureTheDecisionLeavesOffIsNeverInstalled() async throws {
        let provider = FakeEngineProvider()
        let provisions = try FeatureProvisions(jar: CookieJar(), proxyOrigins: ["https://m.example.com"])
        var base = HybridWebViewConfiguration()
        base.cookieSync = CookieSync(jar: CookieJar(), store: provider.store)
        for decision in [Self.decision(.safeDefaults, source: .killSwitch), Self.decision(.safeDefaults, source: .noConfig),
                         Self.decision(FeatureSet(cookieSync: false))] {
            let view = try await HybridWebView.make(for: decision, engines: EngineRegistry(defaultProvider: provider),
                                                    configuration: base, provisions: provisions)
            defer { view.close() }
            #expect(view.configuration.cookieSync == nil, "\(decision.source)")
            #expect(!Self.names(view).contains(ProxyModule.moduleName))
            #expect(!view.configuration.engine.userScripts.contains { $0.source.contains("__hybridkitProxy") })
            #expect(view.configuration.navigation == nil)
        }
    }

    @Test func theProxyIsDeniedToEveryOriginUnlessTheAppListsOne() async throws {
        let provisions = try FeatureProvisions(jar: CookieJar())
        let view = try await HybridWebView.make(for: Self.decision(FeatureSet(requestProxy: true)),
                                                engines: EngineRegistry(defaultProvider: FakeEngineProvider()),
                                                provisions: provisions)
        defer { view.close() }
        let proxy = try #require(view.configuration.modules.first { $0.name == ProxyModule.moduleName })
        #expect(proxy.allowedOrigins.isEmpty)
        #expect(!view.bridge.router.moduleNames(for: BridgeOrigin(url: Self.url)).contains(ProxyModule.moduleName))
    }

    @Test func aDecisionNamingAnEngineTheAppLacksFallsBackToTheDefault() async throws {
        let provider = FakeEngineProvider()
        var decision = Self.decision(FeatureSet(cookieSync: true, engine: "blink"))
        decision.engine = EngineProfile(kind: "blink")
        let view = try await HybridWebView.make(for: decision, engines: EngineRegistry(defaultProvider: provider),
                                                provisions: try FeatureProvisions(jar: CookieJar()))
        defer { view.close() }
        #expect(view.engineName == "fake")
        #expect(view.configuration.cookieSync?.store === provider.store)
    }

    @Test func aPoolForADecisionHandsOutViewsWithItsFeatures() async throws {
        let provider = FakeEngineProvider()
        let provisions = try FeatureProvisions(jar: CookieJar(), proxyOrigins: ["https://m.example.com"])
        var decision = Self.decision(FeatureSet(requestProxy: true, cookieSync: true, engine: "blink"))
        decision.engine = EngineProfile(kind: "blink")    // not registered: the default provider serves
        let pool = await WebViewPool.make(for: decision, engines: EngineRegistry(defaultProvider: provider), provisions: provisions)
        let view = try await pool.dequeue()    // cold: a fake engine never finishes a warm-up load
        defer { view.close(); pool.drain() }
        #expect(view.engineName == "fake")
        #expect(view.configuration.cookieSync?.store === provider.store)
        #expect(view.configuration.modules.contains { $0.name == ProxyModule.moduleName })
        let off = await WebViewPool.make(for: Self.decision(.safeDefaults, source: .killSwitch),
                                         engines: EngineRegistry(defaultProvider: provider), provisions: provisions)
        let plain = try await off.dequeue()
        defer { plain.close() }
        #expect(plain.configuration.cookieSync == nil)
        #expect(!plain.configuration.modules.contains { $0.name == ProxyModule.moduleName })
    }
}
