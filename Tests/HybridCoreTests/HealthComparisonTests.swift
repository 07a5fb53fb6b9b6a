import Foundation
@testable import HybridHealth
import Testing

/// The rule a staged rollout is halted or advanced by: worse candidates halt, noise does not.
@Suite struct HealthComparisonTests {
    /// A deterministic generator (SplitMix64), so the A/A figures are the same on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `launches` launches of `release` from `start`: each crashes with `crash`, else paints and says ready.
    static func launches(_ release: Int, _ launches: Int, crash: Double, paint: ClosedRange<Double> = 80...160,
                         start: Date, random: inout SplitMix) -> [HealthEvent] {
        var events: [HealthEvent] = []
        for index in 0..<launches {
            let context = HealthContext(packageID: "shop", packageVersion: release, engine: "webkitgtk", launchID: "\(release)-\(index)")
            let time = start.addingTimeInterval(Double(index))
            events.append(HealthEvent(.launch(source: .package), time: time, context: context))
            if Double.random(in: 0..<1, using: &random) < crash {
                events.append(HealthEvent(.processTerminated(reason: "crashed"), time: time, context: context))
            } else {
                events.append(HealthEvent(.pageTiming(PageTiming(firstContentfulPaint: Double.random(in: paint, using: &random))), time: time, context: context))
                events.append(HealthEvent(.ready(milliseconds: 100), time: time, context: context))
            }
        }
        return events
    }

    @Test func aCandidateCrashingHalfItsLaunchesIsHaltedWithTheReason() {
        var random = SplitMix(state: 1)
        let start = Date()
        let events = Self.launches(7, 200, crash: 0.01, start: start, random: &random)
            + Self.launches(8, 60, crash: 0.5, start: start.addingTimeInterval(5), random: &random)
        let comparison = HealthComparison(events: events, candidate: "shop@8", baseline: "shop@7")
        #expect(comparison.verdict == .halt)
        #expect(comparison.reason.hasPrefix("crash_free_rate"), "\(comparison.reason)")
        #expect(comparison.metrics.first { $0.name == "ready_rate" }?.worse == true)
        // Only the window from the candidate's first event counts on the baseline's side.
        #expect(comparison.baseline.launches == 195)
    }

    @Test func tooFewLaunchesWaitEvenWhenTheyLookBad() {
        var random = SplitMix(state: 2)
        let events = Self.launches(7, 200, crash: 0, start: Date(), random: &random)
            + Self.launches(8, 10, crash: 0.5, start: Date(), random: &random)
        let comparison = HealthComparison(events: events, candidate: "shop@8", baseline: "shop@7")
        #expect(comparison.verdict == .wait)
        #expect(comparison.metrics.allSatisfy { !$0.worse })
    }

    @Test func equalHealthRarelyHalts() {
        // A/A: both sides draw from the same rates, 300 comparisons of 200 launches a side.
        var random = SplitMix(state: 3)
        var halts = 0
        for _ in 0..<300 {
            let start = Date()
            let events = Self.launches(7, 200, crash: 0.03, start: start, random: &random)
                + Self.launches(8, 200, crash: 0.03, start: start, random: &random)
            if HealthComparison(events: events, candidate: "shop@8", baseline: "shop@7").verdict == .halt { halts += 1 }
        }
        // Three judged rates, errors and FCP at α ≈ 0.005 each, two of them the same event: about 1 % expected.
        #expect(halts <= 9, "\(halts) of 300 A/A comparisons halted")
    }

    @Test func aSlowerFirstPaintHaltsOnlyWhenClearlySlower() {
        var random = SplitMix(state: 4)
        let start = Date()
        let baseline = Self.launches(7, 300, crash: 0, paint: 80...160, start: start, random: &random)
        let slow = HealthComparison(events: baseline + Self.launches(8, 300, crash: 0, paint: 160...320, start: start, random: &random),
                                    candidate: "shop@8", baseline: "shop@7")
        #expect(slow.verdict == .halt && slow.reason.hasPrefix("fcp_p90_ms"), "\(slow.reason)")
        let alike = HealthComparison(events: baseline + Self.launches(8, 300, crash: 0, paint: 82...164, start: start, random: &random),
                                     candidate: "shop@8", baseline: "shop@7")
        #expect(alike.verdict == .advance, "\(alike.reason)")
    }
}
