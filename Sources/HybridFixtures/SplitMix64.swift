/// SplitMix64: a tiny, fast, seedable generator, so a fuzz run, a burst of requests or a
/// generated bundle is the same on every run and every platform (a failure can be replayed).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (0 when `bound` is not positive).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    /// One of `items`, which must not be empty.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
