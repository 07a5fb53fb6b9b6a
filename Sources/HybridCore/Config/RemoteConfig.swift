import Foundation
import HybridBase
import HybridPackages

/// A signed remote-config document: which container features apply to which pages, for which
/// share of installs, on which engine — plus a global kill switch.
///
/// ```json
/// {"format": 1, "version": 7, "created": "…", "expires": "…", "killSwitch": false,
///  "engines": {"webkit": {"kind": "webkit"}, "blink": {"kind": "blink"}},
///  "rules": [
///    {"id": "shop-blink", "match": "https://m.example.com/shop/*", "rollout": 10,
///     "features": {"engine": "blink", "offlinePackage": "shop", "cookieSync": true}},
///    {"id": "default", "match": "*", "features": {"engine": "webkit", "cookieSync": true}}]}
/// ```
///
/// Rules are tried in order; the first whose pattern matches the URL **and** whose rollout
/// includes the install applies, so a 10 % rule can sit above the rule the other 90 % get.
/// The last rule must be the default (`"match": "*"`, rollout 100). The exact bytes are signed
/// (detached Ed25519, like package manifests), so clients verify bytes before decoding.
public struct RemoteConfig: Codable, Sendable, Equatable {
    /// The format this code reads and writes.
    public static let currentFormat = 1

    /// The format it was written in (``currentFormat``).
    public var format: Int
    /// Monotonically increasing; clients refuse anything below what they hold.
    public var version: Int
    /// When the document was published.
    public var created: Date
    /// After this instant clients stop using the document and fall back to safe defaults.
    public var expires: Date
    /// When on, every page gets ``FeatureSet/safeDefaults``: the fast way to turn everything off.
    public var killSwitch: Bool
    /// Named engine configurations rules may pick from.
    public var engines: [String: EngineProfile]
    /// Tried in order; the last is the default rule.
    public var rules: [ConfigRule]

    /// A document in the current format.
    public init(version: Int, created: Date, expires: Date, killSwitch: Bool = false,
                engines: [String: EngineProfile], rules: [ConfigRule]) {
        self.format = Self.currentFormat
        self.version = version
        self.created = created
        self.expires = expires
        self.killSwitch = killSwitch
        self.engines = engines
        self.rules = rules
    }

    /// Checks what a signature cannot: format, version, dates, rule ids, rollouts, engines, packages.
    /// - Throws: ``ConfigFailure/invalidDocument(_:)`` or ``ConfigFailure/unknownEngine(rule:engine:)``.
    public func validate() throws {
        func bad(_ message: String) -> HybridError { .cfg(.invalidDocument(message)) }
        guard format == Self.currentFormat else { throw bad("unknown format \(format)") }
        guard version >= 1 else { throw bad("version must be at least 1") }
        guard expires > created else { throw bad("expires before it was created") }
        for (name, profile) in engines {
            guard ConfigRule.isValidID(name) else { throw bad("engine name '\(name)' must be 1–64 of [A-Za-z0-9._-]") }
            guard ConfigRule.isValidID(profile.kind) else { throw bad("engine '\(name)' has a bad kind '\(profile.kind)'") }
        }
        guard let last = rules.last, last.isDefault else {
            throw bad("the last rule must be the default: \"match\": \"*\" with rollout 100")
        }
        var ids = Set<String>()
        for rule in rules {
            guard ConfigRule.isValidID(rule.id) else { throw bad("rule id '\(rule.id)' must be 1–64 of [A-Za-z0-9._-]") }
            guard ids.insert(rule.id).inserted else { throw bad("rule id '\(rule.id)' is used twice") }
            guard rule.rollout.isFinite, (0...100).contains(rule.rollout) else {
                throw bad("rule '\(rule.id)' rollout \(rule.rollout) is not within 0–100")
            }
            if let engine = rule.features.engine, engines[engine] == nil {
                throw HybridError.cfg(.unknownEngine(rule: rule.id, engine: engine))
            }
            if let package = rule.features.offlinePackage, !PackageManifest.isValidID(package) {
                throw bad("rule '\(rule.id)' names a bad package id '\(package)'")
            }
            try PrefetchDeclaration.validate(rule.features.prefetch, rule: rule.id)
        }
    }

    /// Which features apply to a navigation to `url` for the install `installID`, and why.
    ///
    /// Pure: it looks at nothing but its arguments (expiry is the client's business, see
    /// ``RemoteConfigClient``), so `hybrid config explain` prints exactly what an app decides.
    public func features(for url: URL, installID: String) -> FeatureDecision {
        if killSwitch {
            return FeatureDecision(url: url, installID: installID, source: .killSwitch, configVersion: version,
                                   features: .safeDefaults, engine: nil, trace: [])
        }
        var trace: [FeatureDecision.RuleTrace] = []
        for rule in rules {
            guard rule.match.matches(url) else {
                trace.append(.init(ruleID: rule.id, pattern: rule.match.text, rollout: rule.rollout, outcome: .patternMismatch))
                continue
            }
            let bucket = RolloutBucket(installID: installID, ruleID: rule.id)
            guard bucket.isIncluded(inRollout: rule.rollout) else {
                trace.append(.init(ruleID: rule.id, pattern: rule.match.text, rollout: rule.rollout, outcome: .outsideRollout(bucket)))
                continue
            }
            trace.append(.init(ruleID: rule.id, pattern: rule.match.text, rollout: rule.rollout, outcome: .applied(bucket)))
            return FeatureDecision(url: url, installID: installID, source: .rule(rule.id), configVersion: version,
                                   features: rule.features.prefetching(for: rule.match), engine: rule.features.engine.flatMap { engines[$0] }, trace: trace)
        }
        // Unreachable for a validated document (its last rule takes everything).
        return FeatureDecision(url: url, installID: installID, source: .noRuleMatched, configVersion: version,
                               features: .safeDefaults, engine: nil, trace: trace)
    }

    /// The JSON bytes a publisher signs (pretty, so reviewers can diff them).
    public func encoded() throws -> Data {
        let encoder = PackageDates.encoder
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Decodes and validates document bytes (call only after their signature verified).
    /// - Throws: ``ConfigFailure/invalidDocument(_:)`` and the errors of ``validate()``.
    public static func decode(_ data: Data) throws -> RemoteConfig {
        let config: RemoteConfig
        do {
            config = try PackageDates.decoder.decode(RemoteConfig.self, from: data)
        } catch let error as HybridError {
            throw error
        } catch {
            throw HybridError.cfg(.invalidDocument(Self.describe(error)))
        }
        try config.validate()
        return config
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "missing '\(key.stringValue)' at \(path(context))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            "\(context.debugDescription) at \(path(context))"
        default:
            "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the top level" : text
    }
}

/// Where config lives in a static repository (beside `packages/` and `blobs/`):
/// `REPO/config/latest.json` and its detached signature `REPO/config/latest.json.sig`.
public enum ConfigRepositoryLayout {
    /// The document's path in the repository (`config/latest.json`).
    public static let document = "config/latest.json"
    /// Its detached signature's path (`config/latest.json.sig`).
    public static let signature = "config/latest.json.sig"
}
