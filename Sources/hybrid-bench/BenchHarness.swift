import Foundation

/// The one clock every suite times with: the monotonic clock (DispatchTime's uptime), in
/// milliseconds. The wall clock (`Date`) can step under NTP and is never used for a timing.
enum BenchClock {
    /// Now, in milliseconds since an arbitrary fixed point.
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000 }

    /// Milliseconds since `start` (a value of ``now()``).
    static func since(_ start: Double) -> Double { now() - start }

    /// CPU time the calling thread has used, in milliseconds (on the main actor: the app's main
    /// thread, where the engine's signals, the container's handlers and the app's code run).
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }
}

/// The one median every suite reports: the upper middle of the sorted samples (an observed value,
/// as the in-page scenarios take `xs[xs.length >> 1]`); 0 when there are none.
func benchMedian(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Sides measured in turns, the harness of the suites that compare ways of doing one thing:
/// - each side runs once untimed first (its one-time costs out of the way);
/// - every round runs each side once, in an order that rotates by one each round, so no side
///   always follows the same work or always goes first;
/// - `settle` runs after every timing (closed views' processes exit, pools refill);
/// - with ``noiseSide``, that side also runs a second time each round as a side of its own: the
///   ratio of the two medians (``BenchSamples/noiseRatio``) is the A/A noise floor of the run — a
///   ratio between sides closer to 1 than it is no difference at all.
@MainActor
struct BenchTurns {
    /// One way of doing the thing measured: `run(round)` does it once and returns milliseconds.
    struct Side {
        /// The side's name in ``BenchSamples``.
        var name: String
        /// Does it once in round `round` (-1 for the warm-up) and returns the milliseconds it took.
        var run: @MainActor (_ round: Int) async throws -> Double
    }

    /// Rounds to measure (each side once per round).
    var rounds: Int
    /// Runs after every timing, untimed.
    var settle: @MainActor () async throws -> Void = {}
    /// The side measured twice per round for the A/A noise floor; `nil` for none.
    var noiseSide: String?

    /// The samples of every side (and of the A/A twin, named `NAME (A/A)`).
    func run(_ sides: [Side]) async throws -> BenchSamples {
        var all = sides
        if let noiseSide, let side = sides.first(where: { $0.name == noiseSide }) {
            all.append(Side(name: BenchSamples.twin(of: noiseSide), run: side.run))
        }
        for side in all where side.name != noiseSide.map(BenchSamples.twin) {
            _ = try await side.run(-1)
            try await settle()
        }
        var samples = BenchSamples(noiseSide: noiseSide)
        for round in 0..<rounds {
            for step in 0..<all.count {
                let side = all[(round + step) % all.count]
                samples.append(try await side.run(round), to: side.name)
                try await settle()
            }
        }
        return samples
    }
}

/// What ``BenchTurns`` measured: each side's samples in the order taken.
struct BenchSamples {
    private var values: [String: [Double]] = [:]
    fileprivate let noiseSide: String?

    fileprivate init(noiseSide: String?) { self.noiseSide = noiseSide }

    fileprivate static func twin(of name: String) -> String { name + " (A/A)" }

    fileprivate mutating func append(_ value: Double, to side: String) { values[side, default: []].append(value) }

    /// The samples of `side`.
    subscript(side: String) -> [Double] { values[side] ?? [] }

    /// The median of `side`'s samples (``benchMedian(_:)``).
    func median(_ side: String) -> Double { benchMedian(self[side]) }

    /// The A/A noise floor: the median of the noise side's second run over its first's (1 is no
    /// noise at all); `nil` without a noise side.
    var noiseRatio: Double? {
        guard let noiseSide else { return nil }
        let first = median(noiseSide)
        return first > 0 ? median(Self.twin(of: noiseSide)) / first : nil
    }
}
