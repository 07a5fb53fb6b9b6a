import Foundation

/// One rule of a config: which URLs it matches, for which share of installs, and what they get.
public struct ConfigRule: Sendable, Hashable, Codable {
    /// Stable id, `[A-Za-z0-9._-]`, 1–64 characters. It seeds the rollout bucket: renaming a
    /// rule reshuffles who is in its rollout.
    public var id: String
    /// The URLs the rule is for.
    public var match: ConfigURLPattern
    /// The share of installs the rule applies to, 0–100 (decimals allowed).
    public var rollout: Double
    /// What the matched pages get.
    public var features: FeatureSet

    /// A rule for the URLs `match` takes, applied to `rollout` percent of installs (all by default).
    public init(id: String, match: ConfigURLPattern, rollout: Double = 100, features: FeatureSet) {
        self.id = id
        self.match = match
        self.rollout = rollout
        self.features = features
    }

    private enum CodingKeys: String, CodingKey { case id, match, rollout, features }

    /// Decodes a rule; a missing `rollout` is 100 and missing `features` are all off.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        match = try c.decode(ConfigURLPattern.self, forKey: .match)
        rollout = try c.decodeIfPresent(Double.self, forKey: .rollout) ?? 100
        features = try c.decodeIfPresent(FeatureSet.self, forKey: .features) ?? FeatureSet()
    }

    /// Whether `id` is a valid rule id.
    public static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// Whether this is a default rule: every URL, every install.
    public var isDefault: Bool { match.text == "*" && rollout >= 100 }
}
