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

@Suite("Remote config documents and decisions")
struct RemoteConfigTests {
    @Test func firstRuleThatMatchesAndIncludesTheInstallWins() throws {
        let config = try ConfigFixture.document(shopRollout: 10)
        let shop = URL(string: "https://m.example.com/shop/cart")!
        var inside = 0, outside = 0
        for index in 0..<2_000 {
            let decision = config.features(for: shop, installID: "install-\(index)")
            if decision.ruleID == "shop-blink" {
                inside += 1
                #expect(decision.features.engine == "blink")
                #expect(decision.engine?.kind == "blink")
                #expect(decision.trace.map(\.ruleID) == ["shop-blink"])
            } else {
                outside += 1
                // Outside the slice, the install falls through to the next rule that takes it.
                #expect(decision.ruleID == "default")
                #expect(decision.features.engine == "webkit")
                guard case .outsideRollout = decision.trace.first?.outcome else { Issue.record("no rollout reason"); continue }
            }
        }
        #expect((150...250).contains(inside), "\(inside) of 2000 in a 10% rollout")
        #expect(inside + outside == 2_000)

        let app = config.features(for: URL(string: "https://m.example.com/app/index.html")!, installID: "anyone")
        #expect(app.ruleID == "app")
        #expect(app.features.offlinePackage == "app" && app.features.requestProxy && app.features.urlInterception)
        #expect(app.trace.first?.outcome == .patternMismatch)
        #expect(app.description.contains("URL does not match"))
        #expect(app.description.contains("decision:   rule 'app'"))
    }

    @Test func sameInstallGetsTheSameDecisionEveryTime() throws {
        let config = try ConfigFixture.document(shopRollout: 50)
        let url = URL(string: "https://www.example.com/shop/1")!
        for index in 0..<200 {
            let first = config.features(for: url, installID: "i\(index)")
            for _ in 0..<3 { #expect(config.features(for: url, installID: "i\(index)") == first) }
        }
    }

    @Test func killSwitchGivesSafeDefaultsEverywhere() throws {
        let config = try ConfigFixture.document(killSwitch: true, shopRollout: 100)
        for url in ["https://m.example.com/app/", "https://m.example.com/shop/", "https://other.org/"] {
            let decision = config.features(for: URL(string: url)!, installID: "x")
            #expect(decision.source == .killSwitch)
            #expect(decision.features == .safeDefaults)
            #expect(decision.engine == nil)
        }
    }

    @Test func documentsRoundTripThroughTheirSignedBytes() throws {
        let config = try ConfigFixture.document()
        #expect(try RemoteConfig.decode(try config.encoded()) == config)
    }

    @Test func omittedFeaturesAreOff() throws {
        let json = """
            {"format":1,"version":2,"created":"2027-01-15T08:00:00Z","expires":"2027-02-15T08:00:00Z","killSwitch":false,
             "engines":{},"rules":[{"id":"default","match":"*"}]}
            """
        let config = try RemoteConfig.decode(Data(json.utf8))
        let decision = config.features(for: URL(string: "https://a.b/")!, installID: "x")
        #expect(decision.features == FeatureSet())
        #expect(decision.engineName == "default")
    }

    @Test func invalidDocumentsAreRefused() throws {
        let cases: [(String, String, (inout RemoteConfig) -> Void)] = [
            ("no default rule last", "invalid_config", { $0.rules.removeLast() }),
            ("default rule below 100%", "invalid_config", { $0.rules[2].rollout = 50 }),
            ("unknown engine", "unknown_engine", { $0.rules[0].features.engine = "gecko" }),
            ("duplicate rule id", "invalid_config", { $0.rules[1].id = "shop-blink" }),
            ("rollout over 100", "invalid_config", { $0.rules[0].rollout = 101 }),
            ("negative rollout", "invalid_config", { $0.rules[0].rollout = -1 }),
            ("bad package id", "invalid_config", { $0.rules[1].features.offlinePackage = "../x" }),
            ("bad rule id", "invalid_config", { $0.rules[0].id = "a b" }),
            ("expires before created", "invalid_config", { $0.expires = $0.created }),
            ("version 0", "invalid_config", { $0.version = 0 }),
            ("future format", "invalid_config", { $0.format = 2 }),
        ]
        for (name, code, change) in cases {
            var config = try ConfigFixture.document()
            change(&config)
            #expect(throws: (any Error).self, "\(name)") { try config.validate() }
            do {
                try config.validate()
            } catch {
                #expect((error as? HybridError)?.code == code, "\(name): \(error)")
            }
        }
    }

    @Test func malformedJSONIsAnInvalidDocument() {
        for text in ["", "{", "[]", #"{"format":1}"#, #"{"format":1,"version":1,"created":"yesterday"}"#] {
            #expect { try RemoteConfig.decode(Data(text.utf8)) } throws: { ($0 as? HybridError)?.code == "invalid_config" }
        }
        let badPattern = #"{"format":1,"version":1,"created":"2027-01-15T08:00:00Z","expires":"2027-02-15T08:00:00Z","killSwitch":false,"engines":{},"rules":[{"id":"d","match":"nope"}]}"#
        #expect { try RemoteConfig.decode(Data(badPattern.utf8)) } throws: { ($0 as? HybridError)?.code == "invalid_pattern" }
    }
}
