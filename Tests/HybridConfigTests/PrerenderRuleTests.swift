import Foundation
@testable import HybridCore
import HybridCrypto
import HybridFixtures
import HybridTesting
import Testing

/// A signed remote-config rule switches prerendering per URL pattern for a pool that follows it
/// (``WebViewPool/prerenderConfig``): on where the rule says so, off elsewhere, off for every URL
/// when the document is unsigned (refused) or its kill switch is on.
@MainActor
@Suite struct PrerenderRuleTests {
    static let shop = URL(string: "https://m.example.com/shop/item?id=1")!
    static let other = URL(string: "https://m.example.com/account/")!

    static func document(killSwitch: Bool = false) throws -> RemoteConfig {
        RemoteConfig(version: 1, created: ConfigFixture.epoch, expires: ConfigFixture.epoch.addingTimeInterval(86_400),
                     killSwitch: killSwitch, engines: [:],
                     rules: [ConfigRule(id: "shop", match: try ConfigURLPattern("https://m.example.com/shop/*"),
                                        features: FeatureSet(prerender: true)),
                             ConfigRule(id: "default", match: try ConfigURLPattern("*"), features: FeatureSet())])
    }

    /// What a pool following `document` (signed, or refused for a bad signature) does with each of
    /// `urls`: `prerendered`, or the error's code.
    func outcomes(_ urls: [URL], document: RemoteConfig, signed: Bool = true) async throws -> [String] {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let client = fixture.client()
        let (bytes, signature) = try fixture.signed(document)
        _ = try? client.accept(document: bytes, signature: signed ? signature : Data("not a signature".utf8))
        let provider = FakeEngineProvider()
        let pool = WebViewPool(provider: provider, policy: WebViewPoolPolicy(capacity: 1))
        defer { pool.drain() }
        pool.refillDelay = 3600
        pool.prerenderPolicy = PrerenderPolicy(allowedOrigins: ["https://m.example.com"])
        pool.prerenderConfig = client
        var out: [String] = []
        for url in urls {
            let made = provider.drivers.count
            let result = Locked<String?>(nil)
            let task = Task {
                do {
                    _ = try await pool.prerender(url)
                    result.set("prerendered")
                } catch let error as HybridError {
                    result.set(error.code)
                } catch {
                    result.set("\(error)")
                }
            }
            // Refused at once, or a view made whose first load the fake engine then finishes.
            try await eventually("the prerender settles or makes its view") { result.value != nil || provider.drivers.count > made }
            if result.value == nil { provider.drivers[made].emit(.loadFinished(nil)) }
            await task.value
            out.append(result.value ?? "none")
        }
        return out
    }

    @Test func aSignedRuleTurnsPrerenderOnForItsPatternOnly() async throws {
        #expect(try await outcomes([Self.shop, Self.other], document: Self.document()) == ["prerendered", "prerender_refused"])
    }

    @Test func anUnsignedDocumentOrTheKillSwitchTurnsItOffEverywhere() async throws {
        #expect(try await outcomes([Self.shop], document: Self.document(), signed: false) == ["prerender_refused"])
        #expect(try await outcomes([Self.shop], document: Self.document(killSwitch: true)) == ["prerender_refused"])
    }

    @Test func theSwitchRoundTripsAndIsLeftOutWhenOff() throws {
        let on = try JSONEncoder().encode(FeatureSet(prerender: true))
        #expect(try JSONDecoder().decode(FeatureSet.self, from: on).prerender)
        #expect(!String(decoding: try JSONEncoder().encode(FeatureSet()), as: UTF8.self).contains("prerender"))
        #expect(FeatureSet(prerender: true).summary == "prerender")
    }
}
