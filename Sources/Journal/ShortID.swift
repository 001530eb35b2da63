/// How a person names a record: the shortest unique start of its id's random part, at
/// least six hex digits, as git abbreviates commits (`abc8def` for
/// `0193f2a1-7c4e-7abc-8def-0123456789ab`).
///
/// why the random part: a UUIDv7 begins with its clock, so everything added in one sitting
/// shares its first eight characters and a unique prefix of the whole id needs about 13.
/// The random part is the 19 hex digits after the clock and the version digit.
public enum ShortID {
    /// The fewest digits a short id is shown with or accepted as.
    public static let minimumLength = 6
    /// The digits of a whole random part.
    public static let maximumLength = 19

    /// Where the random part's digits stand in an id's 36 characters (the hyphens between
    /// them left out). Migration 0014's index expression says the same in SQL.
    private static let digitRanges = [15..<18, 19..<23, 24..<36]

    /// The random part of `id`: its hex digits from the 16th character on, without hyphens.
    public static func randomPart(of id: EntityID) -> String {
        let utf8 = Array(id.rawValue.utf8)
        return String(decoding: digitRanges.flatMap { utf8[$0] }, as: UTF8.self)
    }

    /// Whether the random part of the id whose 36 UTF-8 bytes are `id` (read in place, as
    /// the title cache holds them) starts with `typed`.
    public static func randomPart(ofStored id: UnsafeBufferPointer<UInt8>, startsWith typed: [UInt8]) -> Bool {
        guard id.count == 36, typed.count <= maximumLength else { return false }
        var checked = 0
        for range in digitRanges {
            for position in range {
                guard checked < typed.count else { return true }
                guard id[position] == typed[checked] else { return false }
                checked += 1
            }
        }
        return true
    }

    /// Whether `text` (already lowercased) could be a short id: 6 to 19 hex digits.
    public static func isPossible(_ text: String) -> Bool {
        (minimumLength...maximumLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { $0 &- UInt8(ascii: "0") < 10 || $0 &- UInt8(ascii: "a") < 6 }
    }
}

/// Every record's random part in sorted order, read once for a long listing: each id's
/// shortest unique form is then found by a binary search instead of a query.
///
/// why packed: a listing of 2,000 books reads the random parts of every book, session and
/// note (142,000 in the benchmark's journal); as Strings, making and merging them cost
/// more than the rest of `book list`.
public struct RandomPartIndex: Sendable {
    /// A random part's 19 hex digits as numbers: the first 16, then the last 3. Ordered as
    /// the digits are.
    public struct Part: Comparable, Sendable {
        let high: UInt64
        let low: UInt16

        /// `digits` as a random part holds them (lowercase hex); nil for anything else.
        /// (A concrete buffer, not a generic collection: this runs for every record of a
        /// long listing, from another module, where a generic would not be specialized.)
        public init?(digits: UnsafeRawBufferPointer) {
            guard digits.count == ShortID.maximumLength else { return nil }
            var high: UInt64 = 0, low: UInt16 = 0
            for index in 0..<digits.count {
                let digit = digits[index]
                let value: UInt8
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
                default: return nil
                }
                if index < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt16(value) }
            }
            (self.high, self.low) = (high, low)
        }

        /// How many leading digits the two share (19: all).
        func sharedDigits(with other: Part) -> Int {
            if high != other.high { return (high ^ other.high).leadingZeroBitCount / 4 }
            if low != other.low { return 16 + (((low ^ other.low) << 4).leadingZeroBitCount / 4) }
            return ShortID.maximumLength
        }

        public static func < (lhs: Part, rhs: Part) -> Bool {
            (lhs.high, lhs.low) < (rhs.high, rhs.low)
        }
    }

    private let sorted: [Part]

    /// Ascending runs (one per table, each read in its index's order) merged into one.
    public init(merging runs: [[Part]]) {
        var merged: [Part] = []
        for run in runs {
            var next: [Part] = []
            next.reserveCapacity(merged.count + run.count)
            var left = 0, right = 0
            while left < merged.count, right < run.count {
                if merged[left] <= run[right] { next.append(merged[left]); left += 1 } else { next.append(run[right]); right += 1 }
            }
            next += merged[left...]
            next += run[right...]
            merged = next
        }
        self.sorted = merged
    }

    /// The shortest start of `id`'s random part, at least ``ShortID/minimumLength`` digits,
    /// that no other part in the index begins with: one digit more than it shares with its
    /// nearest neighbours. Nil when another record has the very same random part (only the
    /// full id names it), or when the index does not hold it.
    public func shortID(of id: EntityID) -> String? {
        let digits = ShortID.randomPart(of: id)
        var utf8 = digits
        guard let part = utf8.withUTF8({ Part(digits: UnsafeRawBufferPointer($0)) }) else { return nil }
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < part { low = middle + 1 } else { high = middle }
        }
        guard low < sorted.count, sorted[low] == part else { return nil }
        var shared = 0
        if low > 0 { shared = sorted[low - 1].sharedDigits(with: part) }
        if low + 1 < sorted.count { shared = max(shared, sorted[low + 1].sharedDigits(with: part)) }
        guard shared < ShortID.maximumLength else { return nil }
        return String(digits.prefix(max(ShortID.minimumLength, shared + 1)))
    }
}
