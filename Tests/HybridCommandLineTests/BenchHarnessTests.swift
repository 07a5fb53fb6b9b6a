import Foundation
import Testing
@testable import hybrid_bench

/// The one harness every bench suite measures with: turns in a rotating order after one untimed
/// run of each side, the A/A twin, and the one median.
@MainActor
@Suite struct BenchHarnessTests {
    @Test func sidesWarmUpOnceThenTakeTurnsInARotatingOrder() async throws {
        var order: [String] = []
        var settled = 0
        let turns = BenchTurns(rounds: 3, settle: { settled += 1 })
        let samples = try await turns.run(["a", "b", "c"].map { name in
            BenchTurns.Side(name: name) { round in
                order.append("\(name)\(round)")
                return Double(round + 1)
            }
        })
        #expect(order == ["a-1", "b-1", "c-1", "a0", "b0", "c0", "b1", "c1", "a1", "c2", "a2", "b2"])
        #expect(settled == order.count)
        #expect(samples["b"] == [1, 2, 3])   // the warm-up is not a sample
        #expect(samples.median("b") == 2)
        #expect(samples.noiseRatio == nil)
    }

    @Test func theNoiseSideRunsTwiceARoundAndItsTwinGivesTheNoiseFloor() async throws {
        var runs: [Int: Int] = [:]
        let turns = BenchTurns(rounds: 4, noiseSide: "a")
        var calls = 0
        let samples = try await turns.run([
            .init(name: "a") { round in
                runs[round, default: 0] += 1
                calls += 1
                return Double(calls)   // later runs are slower: the two runs of one side land apart
            },
            .init(name: "b") { _ in 5 },
        ])
        #expect(runs[-1] == 1)   // one warm-up, not one for the twin too
        #expect((0..<4).allSatisfy { runs[$0] == 2 })
        #expect(samples["a"].count == 4 && samples["a (A/A)"].count == 4)
        // a ran on calls 2, 5, 7, 8 and its twin on 3, 4, 6, 9 (the order rotates): medians 7 and 6.
        #expect(samples.median("a") == 7 && samples.median("a (A/A)") == 6)
        #expect(samples.noiseRatio == 6.0 / 7.0)
    }

    @Test func theMedianIsTheUpperMiddleSample() {
        #expect(benchMedian([]) == 0)
        #expect(benchMedian([3]) == 3)
        #expect(benchMedian([4, 1, 3, 2]) == 3)
        #expect(benchMedian([5, 1, 9]) == 5)
    }

    @Test func theClockIsMonotonicMilliseconds() async throws {
        let start = BenchClock.now()
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(BenchClock.since(start) >= 19)
    }
}
