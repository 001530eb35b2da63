import Journal

/// SplitMix64: a small seeded generator, so ids are reproducible in tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// A generator that always returns the same word.
struct ConstantGenerator: RandomNumberGenerator {
    let value: UInt64
    func next() -> UInt64 { value }
}

/// A clock that always says the same time.
struct FixedClock: Clock {
    let time: Timestamp
    func now() -> Timestamp { time }
}

func ms(_ value: Int64) -> Timestamp { Timestamp(millisecondsSince1970: value) }

/// The 48-bit millisecond timestamp a UUIDv7 text carries in its first 12 hex digits.
func embeddedMilliseconds(_ id: EntityID) -> Int64? {
    let digits = id.rawValue.prefix(13).filter { $0 != "-" }
    return Int64(digits, radix: 16)
}

/// Some book id for records that need one.
let someBookID = EntityID.generate(at: ms(1_700_000_000_000))
