import Foundation
@testable import HybridCore
import HybridCrypto
import HybridTesting
import Testing

/// A signed remote-config rule may let a tester drive a production build with WebDriver: only for
/// the install ids it lists, only where the app allowed remote automation, never from an unsigned document.
@MainActor
@Suite struct AutomationRuleTests {
    let url = URL(string: "https://m.example.com/app/index.html")!

    static func document(automation: [String]) throws -> RemoteConfig { try document(FeatureSet(automation: automation)) }

    /// A document whose rule for `https://m.example.com/app/*` turns on `features` (also
    /// ``InspectionRuleTests``'s, for the same grant by install id).
    static func document(_ features: FeatureSet) throws -> RemoteConfig {
        RemoteConfig(version: 1, created: ConfigFixture.epoch, expires: ConfigFixture.epoch.addingTimeInterval(86_400), killSwitch: false,
                     engines: [:], rules: [ConfigRule(id: "app", match: try ConfigURLPattern("https://m.example.com/app/*"),
                                                      features: features),
                                           ConfigRule(id: "default", match: try ConfigURLPattern("*"), features: FeatureSet())])
    }

    /// The configuration a view for `url` gets on install `install` with `document` published.
    func configuration(install: String, document: RemoteConfig, signed: Bool = true, remote: Bool) async throws -> HybridWebViewConfiguration {
        try await Self.configuration(for: url, install: install, document: document, signed: signed) { $0.allowsRemoteAutomation = remote }
    }

    /// The configuration a view for `url` gets on install `install` with `document` published
    /// (signed, or refused for a bad signature), from provisions `allow` sets up.
    static func configuration(for url: URL, install: String, document: RemoteConfig, signed: Bool,
                              allow: (FeatureProvisions) -> Void) async throws -> HybridWebViewConfiguration {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let client = fixture.client(installID: install)
        let (bytes, signature) = try fixture.signed(document)
        if signed {
            _ = try client.accept(document: bytes, signature: signature)
        } else {
            #expect(throws: HybridError.self) { try client.accept(document: bytes, signature: Data("not a signature".utf8)) }
        }
        let provisions = try FeatureProvisions(jar: CookieJar())
        allow(provisions)
        let decision = client.features(for: url)
        #expect(decision.ruleID == (signed ? "app" : nil))
        let provider = FakeEngineProvider()
        return await HybridWebViewConfiguration().applying(decision).installing(decision.features, from: provisions,
                                                                               cookieStore: provider.cookieStore)
    }

    @Test func aListedInstallIsAllowedOnlyWhereTheAppAllowsRemoteAutomation() async throws {
        let document = try Self.document(automation: ["tester-7"])
        #expect(try await configuration(install: "tester-7", document: document, remote: true).allowsAutomation)
        #expect(try await !configuration(install: "tester-7", document: document, remote: false).allowsAutomation)
        #expect(try await !configuration(install: "user-1", document: document, remote: true).allowsAutomation)
    }

    @Test func anUnsignedDocumentAllowsNothing() async throws {
        let document = try Self.document(automation: ["tester-7"])
        #expect(try await !configuration(install: "tester-7", document: document, signed: false, remote: true).allowsAutomation)
    }

    /// Where the rule turns cookie sync on, the engine holds the jar's cookies, so the proxy's page
    /// script no longer proxies a request for its cookies alone ("Proxy only what needs it").
    @Test func cookieSyncTellsTheProxyScriptCookiesAreInTheEngine() async throws {
        let provisions = try FeatureProvisions(jar: CookieJar())
        let provider = FakeEngineProvider()
        for synced in [false, true] {
            let features = FeatureSet(requestProxy: true, cookieSync: synced)
            let configuration = await HybridWebViewConfiguration().installing(features, from: provisions, cookieStore: provider.cookieStore)
            let script = try #require(configuration.engine.userScripts.first { $0.source.contains("__hybridkitProxy") })
            #expect(script.source.contains("\"cookies\":\(!synced)"), "cookie sync \(synced)")
        }
    }

    @Test func theListRoundTripsAndIsLeftOutWhenEmpty() throws {
        let listed = try JSONEncoder().encode(FeatureSet(automation: ["a", "b"]))
        #expect(try JSONDecoder().decode(FeatureSet.self, from: listed).automation == ["a", "b"])
        let none = String(decoding: try JSONEncoder().encode(FeatureSet()), as: UTF8.self)
        #expect(!none.contains("automation"))
        #expect(try JSONDecoder().decode(FeatureSet.self, from: Data("{}".utf8)).automation.isEmpty)
    }
}
