import Foundation

/// Seeded mutations of real inputs, for the fuzz tests of every parser of outside input:
/// bit flips, bytes a parser cares about, cut, repeated and swapped ranges, long runs, and
/// tokens that once broke something (huge numbers, deep nesting, escapes, control bytes).
public struct SeededMutator {
    /// How many cases a fuzz test runs: `BMVAULT_FUZZ_CASES`, else `default`.
    public static func cases(default count: Int) -> Int {
        ProcessInfo.processInfo.environment["BMVAULT_FUZZ_CASES"].flatMap(Int.init) ?? count
    }

    /// The first seed: `BMVAULT_FUZZ_SEED` (what `Scripts/fuzz` varies), else `default`.
    public static func firstSeed(default seed: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["BMVAULT_FUZZ_SEED"].flatMap(UInt64.init) ?? seed
    }

    static let tokens: [[UInt8]] = ["\"", "\\", "{", "}", "[", "]", ":", ",", "-1", "9223372036854775807", "1e999",
                                    "\\u0000", "\\ud800", "\u{0}", "\r\n", "\n---\n", "<!-- bmvault:", "version=", "> ",
                                    "```", "\u{FEFF}", String(repeating: "[", count: 600), String(repeating: "{\"a\":", count: 300)]
        .map { Array($0.utf8) }
    static let bytes: [UInt8] = [0, 0x7F, 0x80, 0xC0, 0xFF, 0x22, 0x5C, 0x0A, 0x0D, 0x2D, 0x3E, 0x23]

    private var random: SeededGenerator

    public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private mutating func index(_ count: Int) -> Int { count <= 0 ? 0 : Int.random(in: 0..<count, using: &random) }

    /// `input` changed one to four times.
    public mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var out = input
        for _ in 0...index(4) {
            let at = index(out.count + 1)
            switch index(8) {
            case 0 where !out.isEmpty:
                out[min(at, out.count - 1)] ^= UInt8(1) << UInt8(index(8))
            case 1 where !out.isEmpty:
                out[min(at, out.count - 1)] = Self.bytes[index(Self.bytes.count)]
            case 2:
                out.removeSubrange(at..<min(out.count, at + 1 + index(64)))
            case 3:
                let end = min(out.count, at + 1 + index(256))
                out.insert(contentsOf: Array(out[at..<end]), at: at)
            case 4:
                out.removeSubrange(at...)
            case 5:
                out.insert(contentsOf: Self.tokens[index(Self.tokens.count)], at: at)
            case 6:
                let other = index(out.count + 1)
                let (low, high) = (min(at, other), max(at, other))
                let length = min(16, high - low, out.count - high)
                if length > 0 {
                    let first = Array(out[low..<(low + length)])
                    out.replaceSubrange(low..<(low + length), with: out[high..<(high + length)])
                    out.replaceSubrange(high..<(high + length), with: first)
                }
            default:
                out.insert(contentsOf: repeatElement(Self.bytes[index(Self.bytes.count)], count: 1 + index(20_000)), at: at)
            }
        }
        return out
    }
}
