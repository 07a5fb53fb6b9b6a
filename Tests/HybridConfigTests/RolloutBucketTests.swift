import Foundation
import HybridCore
import HybridFixtures
import Testing

/// The statistical tests hash hundreds of thousands of ids: they run off the cooperative pool
/// (see `offPool`), so suites running beside them keep their timing.
@Suite("Rollout buckets")
struct RolloutBucketTests {
    @Test func sameInstallAndRuleAlwaysLandInTheSameBucket() {
        for index in 0..<1_000 {
            let a = RolloutBucket(installID: "install-\(index)", ruleID: "shop")
            let b = RolloutBucket(installID: "install-\(index)", ruleID: "shop")
            #expect(a == b)
        }
        // Pinned values: the hash is part of the format. If these change, every install's
        // rollout membership reshuffles on upgrade.
        #expect(RolloutBucket(installID: "abc", ruleID: "shop-blink").value == RolloutBucket.pinnedABC)
        #expect(RolloutBucket(installID: "", ruleID: "default").value == RolloutBucket.pinnedEmpty)
    }

    @Test func bucketsAreUniformByChiSquare() async throws {
        // 200 000 sequential ids (the adversarial case: they differ in a few characters) into 100 bins.
        let samples = 200_000, bins = 100
        let counts = try await offPool {
            var counts = [Int](repeating: 0, count: bins)
            for index in 0..<samples {
                counts[RolloutBucket(installID: "device-\(index)", ruleID: "rule-a").value * bins / RolloutBucket.count] += 1
            }
            return counts
        }
        let expected = Double(samples) / Double(bins)
        let chiSquare = counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
        // 99 degrees of freedom: the 0.999 quantile is 148.2.
        #expect(chiSquare < 148.2, "chi-square \(chiSquare)")
        let worst = counts.map { abs(Double($0) - expected) / expected }.max() ?? 1
        #expect(worst < 0.10, "max deviation \(worst)")   // 4.5 sigma at 2000 per bin
    }

    @Test func rolloutSharesAreWhatTheySay() async throws {
        let samples = 100_000
        let buckets = try await offPool {
            (0..<samples).map { RolloutBucket(installID: UUID(uuid: Self.uuid($0)).uuidString, ruleID: "r") }
        }
        for percent in [0.0, 1, 10, 12.5, 50, 99, 100] {
            let included = buckets.filter { $0.isIncluded(inRollout: percent) }.count
            let share = Double(included) * 100 / Double(samples)
            #expect(abs(share - percent) < 0.5, "\(percent)% rollout included \(share)%")
        }
    }

    @Test func raisingARolloutKeepsEveryoneAlreadyIn() {
        for index in 0..<5_000 {
            let bucket = RolloutBucket(installID: "i\(index)", ruleID: "shop")
            if bucket.isIncluded(inRollout: 10) { #expect(bucket.isIncluded(inRollout: 20)) }
            if !bucket.isIncluded(inRollout: 20) { #expect(!bucket.isIncluded(inRollout: 10)) }
        }
    }

    @Test func rulesBucketIndependently() async throws {
        // Two 10 % rules should share about 1 % of installs, not 10 %.
        let samples = 50_000
        let both = try await offPool {
            (0..<samples).filter {
                RolloutBucket(installID: "x\($0)", ruleID: "a").isIncluded(inRollout: 10)
                    && RolloutBucket(installID: "x\($0)", ruleID: "b").isIncluded(inRollout: 10)
            }.count
        }
        let share = Double(both) / Double(samples)
        #expect(abs(share - 0.01) < 0.003, "overlap \(share)")
    }

    private static func uuid(_ n: Int) -> uuid_t {
        var generator = SplitMix64(seed: UInt64(n))
        let a = generator.next(), b = generator.next()
        return withUnsafeBytes(of: (a, b)) { raw in
            raw.load(as: uuid_t.self)
        }
    }
}

extension RolloutBucket {
    static let pinnedABC = 1579
    static let pinnedEmpty = 5060
}
