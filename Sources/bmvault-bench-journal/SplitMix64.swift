/// A small seeded random number generator (SplitMix64, Steele, Lea & Flood 2014): the same
/// seed gives the same journal on every machine and every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<bound` (bound > 0), without modulo bias worth worrying about
    /// for word picking (Lemire's multiply-shift).
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: UInt64((UInt128(next()) &* UInt128(UInt64(bound))) >> 64))
    }

    /// A uniform value in `range`.
    mutating func within(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * 0x1.0p-53 < p
    }
}
