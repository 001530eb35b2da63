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

    /// The random part of `id`: its hex digits from the 16th character on, without hyphens.
    public static func randomPart(of id: EntityID) -> String {
        let utf8 = Array(id.rawValue.utf8)
        return String(decoding: utf8[15..<18] + utf8[19..<23] + utf8[24..<36], as: UTF8.self)
    }

    /// Whether `text` (already lowercased) could be a short id: 6 to 19 hex digits.
    public static func isPossible(_ text: String) -> Bool {
        (minimumLength...maximumLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { $0 &- UInt8(ascii: "0") < 10 || $0 &- UInt8(ascii: "a") < 6 }
    }

    /// The shortest start of `part` that no other random part begins with, given the
    /// nearest others in sorted order (`before` ≤ `part` ≤ `after`; nil: none). Nil when
    /// another record has the very same random part, so that only the full id names it.
    public static func shortest(_ part: String, before: String?, after: String?) -> String? {
        let digits = Array(part.utf8)
        var shared = 0
        for neighbour in [before, after].compactMap({ $0 }) {
            let other = Array(neighbour.utf8)
            var common = 0
            while common < min(digits.count, other.count), digits[common] == other[common] { common += 1 }
            if common == digits.count { return nil }
            shared = max(shared, common)
        }
        return String(decoding: digits.prefix(max(minimumLength, shared + 1)), as: UTF8.self)
    }
}

/// Every record's random part in sorted order, read once for a long listing: each id's
/// shortest unique form is then found by a binary search instead of a query.
public struct RandomPartIndex: Sendable {
    private let sorted: [String]

    /// `sorted`: every random part, in ascending order, duplicates included.
    public init(sorted: [String]) {
        self.sorted = sorted
    }

    /// Ascending runs (one per table, each read in its index's order) merged into one.
    public init(merging runs: [[String]]) {
        var merged: [String] = []
        for run in runs {
            var next: [String] = []
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

    /// The shortest unique form of `id`'s random part (nil: none; see
    /// ``ShortID/shortest(_:before:after:)``), or nil when the index does not hold it.
    public func shortID(of id: EntityID) -> String? {
        let part = ShortID.randomPart(of: id)
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < part { low = middle + 1 } else { high = middle }
        }
        guard low < sorted.count, sorted[low] == part else { return nil }
        return ShortID.shortest(part, before: low > 0 ? sorted[low - 1] : nil,
                                after: low + 1 < sorted.count ? sorted[low + 1] : nil)
    }
}
