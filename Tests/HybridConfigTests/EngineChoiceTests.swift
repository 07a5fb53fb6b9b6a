import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// A provider that only has a name: engine choice never makes a view.
@MainActor
final class NamedProvider: WebEngineProvider {
    let engineName: String
    init(_ name: String) { engineName = name }
    var capabilities: EngineCapabilities {
        [.scriptWorlds, .messageReplies, .schemeRequestBodies, .consoleMessages]
    }
    var cookieStore: any EngineCookieStore { fatalError("engine choice never touches cookies") }
    func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine {
        throw HybridError.engine(.unavailable("\(engineName) makes no views in this test"))
    }
}

@Suite("Engine choice from remote config")
@MainActor
struct EngineChoiceTests {
    @Test func eachURLGetsTheEngineItsRuleNames() throws {
        let config = try ConfigFixture.document(shopRollout: 100)
        let registry = EngineRegistry(defaultProvider: NamedProvider("webkit-default"))
        var made = 0
        registry.register(kind: "blink") { _ in
            made += 1
            return NamedProvider("blink")
        }
        registry.register(kind: "webkit") { _ in NamedProvider("webkit") }
        let shop = config.features(for: URL(string: "https://m.example.com/shop/1")!, installID: "i")
        let app = config.features(for: URL(string: "https://m.example.com/app/")!, installID: "i")
        #expect(try registry.provider(for: shop).engineName == "blink")
        #expect(try registry.provider(for: app).engineName == "webkit")
        // One provider per profile: a second page on Blink shares the browser.
        _ = try registry.provider(for: config.features(for: URL(string: "https://www.example.com/shop/2")!, installID: "i"))
        #expect(made == 1)
    }

    @Test func unknownKindsAndSafeDefaultsGetTheDefaultProvider() throws {
        var config = try ConfigFixture.document(shopRollout: 100)
        config.engines["blink"] = EngineProfile(kind: "gecko")
        let registry = EngineRegistry(defaultProvider: NamedProvider("default"))
        registry.register(kind: "blink") { _ in NamedProvider("blink") }
        let shop = config.features(for: URL(string: "https://m.example.com/shop/1")!, installID: "i")
        #expect(!registry.supports(shop))
        #expect(try registry.provider(for: shop).engineName == "default")
        config.killSwitch = true
        #expect(try registry.provider(for: config.features(for: URL(string: "https://m.example.com/shop/1")!, installID: "i")).engineName == "default")
    }

    @Test func decisionsOnlyRemoveFeaturesFromAViewConfiguration() throws {
        let store = PackageStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("hk-cfg-\(UUID().uuidString)"))
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let installer = PackageInstaller(store: store, platform: .init(digests: NoDigests(), compressor: nil), verifier: fixture.verifier)
        let binding = PackageBinding(installer: installer, id: "app", scheme: "app")
        let base = HybridWebViewConfiguration(package: binding)
        let config = try ConfigFixture.document()
        let app = base.applying(config.features(for: URL(string: "https://m.example.com/app/")!, installID: "i"))
        #expect(app.package?.id == "app")
        let other = base.applying(config.features(for: URL(string: "https://other.org/")!, installID: "i"))
        #expect(other.package == nil)
        let killed = base.applying(FeatureDecision(url: URL(string: "https://m.example.com/app/")!, installID: "i", source: .killSwitch,
                                                   configVersion: 1, features: .safeDefaults, engine: nil, trace: []))
        #expect(killed.package == nil && killed.cookieSync == nil)
    }
}

/// Digests are never computed when only choosing a configuration.
struct NoDigests: DigestFactory {
    func makeSHA256() -> any Digest { fatalError("not used") }
}
