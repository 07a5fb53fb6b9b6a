import Foundation
@testable import HybridCore
import HybridTesting
import Testing

/// A signed remote-config rule may let a tester open the engine's inspector on a production build:
/// only for the install ids it lists, only where the app allowed remote inspection, never from an
/// unsigned document, and never by a page.
@MainActor
@Suite struct InspectionRuleTests {
    let url = URL(string: "https://m.example.com/app/index.html")!

    static func document(inspectable: [String]) throws -> RemoteConfig {
        try AutomationRuleTests.document(FeatureSet(inspectable: inspectable))
    }

    /// The configuration a view for `url` gets on install `install` with `document` published.
    func configuration(install: String, document: RemoteConfig, signed: Bool = true, remote: Bool) async throws -> HybridWebViewConfiguration {
        try await AutomationRuleTests.configuration(for: url, install: install, document: document, signed: signed) {
            $0.allowsRemoteInspection = remote
        }
    }

    @Test func aListedInstallIsInspectableOnlyWhereTheAppAllowsRemoteInspection() async throws {
        let document = try Self.document(inspectable: ["tester-7"])
        let allowed = try await configuration(install: "tester-7", document: document, remote: true)
        #expect(allowed.inspectable)
        // The engine is made with its developer tools on.
        let provider = FakeEngineProvider()
        let view = try HybridWebView(provider: provider, configuration: allowed)
        defer { view.close() }
        #expect(provider.drivers.last?.configuration.developerExtras == true)
        #expect(try await !configuration(install: "tester-7", document: document, remote: false).inspectable)
        #expect(try await !configuration(install: "user-1", document: document, remote: true).inspectable)
    }

    @Test func anUnsignedDocumentMakesNothingInspectable() async throws {
        let document = try Self.document(inspectable: ["tester-7"])
        let refused = try await configuration(install: "tester-7", document: document, signed: false, remote: true)
        #expect(!refused.inspectable)
        let provider = FakeEngineProvider()
        let view = try HybridWebView(provider: provider, configuration: refused)
        defer { view.close() }
        #expect(provider.drivers.last?.configuration.developerExtras == false)
    }

    @Test func theListRoundTripsAndIsLeftOutWhenEmpty() throws {
        let listed = try JSONEncoder().encode(FeatureSet(inspectable: ["a", "b"]))
        #expect(try JSONDecoder().decode(FeatureSet.self, from: listed).inspectable == ["a", "b"])
        let none = String(decoding: try JSONEncoder().encode(FeatureSet()), as: UTF8.self)
        #expect(!none.contains("inspectable"))
    }
}
