import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// Remote config documents and the URL and origin patterns they and the bridge use.
///
/// - An accepted document validates and round trips (encode, decode, equal; stable encoding);
///   deciding features for any URL never fails and names a rule of the document.
/// - Rejections carry the documented codes (`invalid_config`, `unknown_engine`,
///   `invalid_pattern`, `invalid_prefetch`).
/// - A URL pattern that parses round trips through its text and Codable form; matching any URL
///   terminates within the glob's bound. An origin pattern that matches an origin matches it
///   again after the origin is rebuilt from its own description.
enum ConfigChecks {
    static let codes: Set<String> = ["invalid_config", "unknown_engine", "invalid_pattern", "invalid_prefetch"]
    static let urls = ["https://shop.example.com/", "https://a.b.example.com:8443/cart/items?x=1", "http://localhost:8080/",
                       "hybrid://app/index.html", "about:blank"].compactMap(URL.init(string:))

    static func remoteConfig(_ bytes: [UInt8]) throws {
        let config: RemoteConfig
        do { config = try RemoteConfig.decode(Data(bytes)) } catch {
            try requireCode(error, in: codes, "RemoteConfig.decode")
            return
        }
        do {
            try config.validate()
            let encoded = try config.encoded()
            let again = try RemoteConfig.decode(encoded)
            try require(again == config, "config round trip changed it")
            try require(try again.encoded() == encoded, "config encoding is not stable")
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            throw FuzzViolation(description: "an accepted config fails to round trip: \(error)")
        }
        let ids = Set(config.rules.map(\.id))
        for url in urls {
            let decision = config.features(for: url, installID: "fuzz-install")
            for step in decision.trace { try require(ids.contains(step.ruleID), "the trace names rule \(step.ruleID), not in the document") }
        }
    }

    static func urlPattern(_ bytes: [UInt8]) throws {
        let parts = fields(bytes, 2)
        let url = URL(string: parts[1])
        do {
            let pattern = try ConfigURLPattern(parts[0])
            try require(try ConfigURLPattern(pattern.text) == pattern, "the pattern does not parse from its own text")
            let json = try JSONEncoder().encode([pattern])
            try require(try JSONDecoder().decode([ConfigURLPattern].self, from: json) == [pattern], "Codable round trip")
            for candidate in urls + [url].compactMap({ $0 }) { _ = pattern.matches(candidate) }
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            try requireCode(error, in: ["invalid_pattern"], "ConfigURLPattern.init")
        }
        var steps = 0
        _ = ConfigURLPattern.glob(parts[0], matches: parts[1], steps: &steps)
        let bound = (parts[0].utf8.count + 1) * (parts[1].utf8.count + 1)
        try require(steps <= bound, "glob took \(steps) steps, bound \(bound)")
        let origin = OriginPattern(parts[0])
        _ = origin.description
        if let url, let bridgeOrigin = BridgeOrigin(url: url) {
            let rebuilt = BridgeOrigin(scheme: bridgeOrigin.scheme, host: bridgeOrigin.host, port: bridgeOrigin.port)
            try require(rebuilt == bridgeOrigin, "BridgeOrigin does not rebuild from its parts: \(bridgeOrigin)")
            if origin.matches(bridgeOrigin) {
                try require(origin.matches(rebuilt), "\(origin) matches \(bridgeOrigin) but not its rebuild")
            }
            try require(OriginPattern.exact(bridgeOrigin).matches(bridgeOrigin), "an exact pattern misses its own origin")
            try require(OriginPattern.any.matches(bridgeOrigin), "any misses \(bridgeOrigin)")
        }
    }
}
