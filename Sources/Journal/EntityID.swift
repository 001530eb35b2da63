import Glibc

/// A record id made on this device: a UUIDv7 (RFC 9562), time-ordered, so a record is
/// complete before any connection exists and ids sort by creation time.
///
/// Written as 36 lowercase characters, `0193f2a1-7c4e-7abc-8def-0123456789ab`.
public struct EntityID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Adopts an id read back from the store or typed in full by the reader.
    public init(validating text: String) throws(JournalError) {
        // Ids read back from a vault or an archive are already lowercase: checked byte by
        // byte and kept as they are, since every row of an export or import passes here.
        var text = text
        let check = text.withUTF8(Self.check)
        guard let needsLowercasing = check else { throw .invalidID }
        self.rawValue = needsLowercasing ? text.lowercased() : text
    }

    /// Whether `utf8` is an id (36 characters, hex digits and four hyphens where a UUID has
    /// them), and if so, whether it has uppercase digits; nil when it is not one.
    private static func check(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard utf8.count == 36, utf8[8] == UInt8(ascii: "-"), utf8[13] == UInt8(ascii: "-"),
              utf8[18] == UInt8(ascii: "-"), utf8[23] == UInt8(ascii: "-") else { return nil }
        var hasUppercase = false
        for index in 0..<36 where index != 8 && index != 13 && index != 18 && index != 23 {
            let character = utf8[index]
            if isHexDigit(character) { continue }
            guard character &- UInt8(ascii: "A") < 6 else { return nil }
            hasUppercase = true
        }
        return hasUppercase
    }

    /// Whether `utf8` is an id exactly as bmvault writes one (lowercase): for ids read in
    /// place from a buffer, such as the title cache, without making a `String` of each.
    public static func isStoredForm(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        check(utf8) == false
    }

    /// A new UUIDv7 for `timestamp`, with 74 random bits.
    public static func generate(at timestamp: Timestamp) -> EntityID {
        var generator = SystemRandomPair()
        return generate(at: timestamp, using: &generator)
    }

    /// A new UUIDv7 drawing its random bits from `generator` (seeded in tests and benchmarks).
    public static func generate(at timestamp: Timestamp, using generator: inout some RandomNumberGenerator) -> EntityID {
        var bytes = [UInt8](repeating: 0, count: 16)
        let millis = UInt64(max(0, timestamp.millisecondsSince1970))
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: millis >> (8 * UInt64(5 - index)))
        }
        let random = generator.next() as UInt64
        let more = generator.next() as UInt64
        for index in 6..<16 {
            let source = index < 14 ? random >> (8 * UInt64(index - 6)) : more >> (8 * UInt64(index - 14))
            bytes[index] = UInt8(truncatingIfNeeded: source)
        }
        bytes[6] = 0x70 | (bytes[6] & 0x0f)   // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3f)   // RFC 9562 variant
        return EntityID(trusted: text(of: bytes))
    }

    /// 16 bytes as an id is written: lowercase hex digits, hyphens where a UUID has them.
    private static func text(of bytes: [UInt8]) -> String {
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigit(byte >> 4))
            text.append(hexDigit(byte & 0x0f))
        }
        return String(decoding: text, as: UTF8.self)
    }

    private init(trusted text: String) {
        self.rawValue = text
    }

    /// True when the reader typed something that could be the start of an id.
    public static func isPossiblePrefix(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 36
            && text.lowercased().utf8.allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: "-") }
    }

    public static func < (lhs: EntityID, rhs: EntityID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }

    /// The 16 bytes the id writes out, for compact storage.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for character in rawValue.utf8 where character != UInt8(ascii: "-") {
            let value = character &- UInt8(ascii: "0") < 10 ? character - UInt8(ascii: "0") : character - UInt8(ascii: "a") + 10
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    /// The id whose ``bytes`` are `bytes`; fails unless there are exactly 16.
    public init(bytes: [UInt8]) throws(JournalError) {
        guard bytes.count == 16 else { throw .invalidID }
        self.rawValue = Self.text(of: bytes)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private static func isHexDigit(_ character: UInt8) -> Bool {
        character &- UInt8(ascii: "0") < 10 || character &- UInt8(ascii: "a") < 6
    }
}

/// The system's randomness, two words drawn at once (glibc's `arc4random_buf`: one
/// `getrandom` call) for the two an id takes, where `SystemRandomNumberGenerator` makes a
/// call per word: an import of 20,000 books makes some 60,000 ids. A third word is drawn
/// on its own.
struct SystemRandomPair: RandomNumberGenerator {
    private var words: (UInt64, UInt64) = (0, 0)
    private var drawn = 0

    init() {
        withUnsafeMutableBytes(of: &words) { arc4random_buf($0.baseAddress!, $0.count) }
    }

    mutating func next() -> UInt64 {
        defer { drawn += 1 }
        switch drawn {
        case 0: return words.0
        case 1: return words.1
        default:
            var system = SystemRandomNumberGenerator()
            return system.next()
        }
    }
}
