import Foundation

/// What remote config decided for one navigation, with the reasons — the answer to
/// "why does this page (not) get the offline package on this phone?".
public struct FeatureDecision: Sendable, Equatable, CustomStringConvertible {
    /// Where the features came from.
    public enum Source: Sendable, Equatable {
        /// This rule matched and its rollout included the install.
        case rule(String)
        /// The document's kill switch is on: safe defaults everywhere.
        case killSwitch
        /// The client holds no usable document (none fetched or cached yet, or all refused).
        case noConfig
        /// The client's document has expired.
        case expired(version: Int)
        /// No rule took the URL (only for documents that skipped validation).
        case noRuleMatched
    }

    /// How one rule was judged, in order, up to the one that applied.
    public struct RuleTrace: Sendable, Equatable {
        /// What became of the rule.
        public enum Outcome: Sendable, Equatable {
            /// The URL did not match the rule's pattern.
            case patternMismatch
            /// The URL matched, but the install's bucket is outside the rollout.
            case outsideRollout(RolloutBucket)
            /// The URL matched and the install's bucket is inside the rollout: the rule applies.
            case applied(RolloutBucket)
        }

        /// The rule's id.
        public var ruleID: String
        /// The rule's URL pattern, as written.
        public var pattern: String
        /// The rule's rollout share, 0–100.
        public var rollout: Double
        /// How the rule was judged.
        public var outcome: Outcome
    }

    /// The URL the decision is for.
    public var url: URL
    /// The install id that seeded the rollout buckets.
    public var installID: String
    /// Where the features came from (a rule, the kill switch, no usable config, ...).
    public var source: Source
    /// The version of the document that decided, when there was one.
    public var configVersion: Int?
    /// The features that apply.
    public var features: FeatureSet
    /// The engine configuration the page gets; `nil` = the app's default engine.
    public var engine: EngineProfile?
    /// Every rule considered, in order, up to the one that applied.
    public var trace: [RuleTrace]

    /// A decision; ``RemoteConfig`` and ``RemoteConfigClient`` make them.
    public init(url: URL, installID: String, source: Source, configVersion: Int?, features: FeatureSet,
                engine: EngineProfile?, trace: [RuleTrace]) {
        self.url = url
        self.installID = installID
        self.source = source
        self.configVersion = configVersion
        self.features = features
        self.engine = engine
        self.trace = trace
    }

    /// The id of the rule that applied, if one did.
    public var ruleID: String? {
        if case .rule(let id) = source { id } else { nil }
    }

    /// The engine configuration's name (`blink`), or `default`.
    public var engineName: String { features.engine ?? "default" }

    /// One line per rule considered, then the result: what `hybrid config explain` prints.
    public var description: String {
        var lines = ["url:        \(url.absoluteString)", "install id: \(installID)"]
        lines.append("config:     " + (configVersion.map { "version \($0)" } ?? "none"))
        for step in trace {
            let head = "  rule \(step.ruleID) (\(step.pattern), rollout \(Self.percent(step.rollout))): "
            switch step.outcome {
            case .patternMismatch:
                lines.append(head + "URL does not match")
            case .outsideRollout(let bucket):
                lines.append(head + "matches, but bucket \(bucket) is outside the rollout")
            case .applied(let bucket):
                lines.append(head + "matches, bucket \(bucket) is inside the rollout → applies")
            }
        }
        switch source {
        case .rule(let id): lines.append("decision:   rule '\(id)'")
        case .killSwitch: lines.append("decision:   kill switch on → safe defaults")
        case .noConfig: lines.append("decision:   no usable config → safe defaults")
        case .expired(let version): lines.append("decision:   config version \(version) expired → safe defaults")
        case .noRuleMatched: lines.append("decision:   no rule matched → safe defaults")
        }
        lines.append("features:   \(features.summary)")
        lines.append("engine:     \(engineName)" + (engine.map { " (kind \($0.kind))" } ?? ""))
        return lines.joined(separator: "\n")
    }

    /// A rollout share as text: `10%`, `12.50%`.
    public static func percent(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))%" : String(format: "%.2f%%", value)
    }
}
