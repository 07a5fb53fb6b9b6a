import Foundation

/// Where one install falls in one rule's rollout: a bucket in `0..<10_000` (0.01 % steps).
///
/// The bucket is a stable hash of the rule id and the install id — the same on every platform,
/// run and release (Swift's `Hasher` is seeded per process, so it cannot be used) — so:
/// - the same install always lands in the same bucket for a rule, and raising a rule's rollout
///   from 10 % to 20 % keeps the first 10 % in;
/// - different rules bucket independently, so a 10 % rule and another 10 % rule do not pick the
///   same installs;
/// - buckets are uniform (tested with a chi-square over many ids).
public struct RolloutBucket: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How many buckets there are.
    public static let count = 10_000

    /// The bucket, `0..<count`.
    public let value: Int

    /// The bucket of `installID` in the rule `ruleID`.
    public init(installID: String, ruleID: String) {
        // FNV-1a over a versioned, NUL-separated key, then MurmurHash3's 64-bit finalizer: FNV alone
        // has weak low bits for short, similar keys (install ids often differ in one character).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "hybrid-rollout-v1\u{0}\(ruleID)\u{0}\(installID)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        value = Int(hash % UInt64(Self.count))
    }

    /// Whether this bucket is inside a rollout of `percent` (0–100; 12.5 means 12.5 %).
    public func isIncluded(inRollout percent: Double) -> Bool {
        value < Self.threshold(percent)
    }

    /// The first bucket outside a rollout of `percent`.
    static func threshold(_ percent: Double) -> Int {
        Int((min(100, max(0, percent)) * Double(Self.count) / 100).rounded())
    }

    /// The bucket as a percentage position (`37.21%`).
    public var description: String { String(format: "%.2f%%", Double(value) * 100 / Double(Self.count)) }

    /// Orders buckets by number: a bucket below a rollout's threshold is inside it.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}
