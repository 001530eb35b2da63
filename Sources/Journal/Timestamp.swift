/// A moment, in whole milliseconds since 1970-01-01T00:00:00Z: what the store keeps,
/// exact and independent of time zones.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-12-02T10:07:46.123Z`.
    public var description: String { iso8601 }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-12-02T10:07:46.123Z`.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``iso8601`` as UTF-8 to `out`: an export writes hundreds of thousands of
    /// them, so the digits are put in a buffer on the stack and appended at once, without
    /// a string for each.
    public func appendISO8601(to out: inout [UInt8]) {
        let millis = Int64.floorModulo(millisecondsSince1970, 1000)
        // Floor division without subtracting first, which would overflow at Int64.min.
        let seconds = millisecondsSince1970 / 1000 - (millisecondsSince1970 % 1000 < 0 ? 1 : 0)
        let secondOfDay = Int64.floorModulo(seconds, 86_400)
        let (year, month, day) = Self.civilDate(daysSince1970: (seconds - secondOfDay) / 86_400)
        // At most 11 characters of year (Int64 milliseconds reach about 292 million years) and 20 more.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            /// `value` in decimal, zero-padded to at least `width` digits.
            func digits(_ value: UInt64, _ width: Int) {
                var divisor: UInt64 = 1
                var length = 1
                while length < width || value / divisor >= 10 {
                    divisor *= 10
                    length += 1
                }
                while divisor > 0 {
                    put(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                    divisor /= 10
                }
            }
            /// The two digits of `value` (below 100).
            func two(_ value: Int64) {
                put(UInt8(ascii: "0") + UInt8(value / 10))
                put(UInt8(ascii: "0") + UInt8(value % 10))
            }
            if year < 0 { put(UInt8(ascii: "-")) }
            if (0...9999).contains(year) {
                two(year / 100)
                two(year % 100)
            } else {
                digits(year.magnitude, 4)
            }
            put(UInt8(ascii: "-"))
            two(month)
            put(UInt8(ascii: "-"))
            two(day)
            put(UInt8(ascii: "T"))
            two(secondOfDay / 3600)
            put(UInt8(ascii: ":"))
            two(secondOfDay / 60 % 60)
            put(UInt8(ascii: ":"))
            two(secondOfDay % 60)
            put(UInt8(ascii: "."))
            put(UInt8(ascii: "0") + UInt8(millis / 100))
            two(millis % 100)
            put(UInt8(ascii: "Z"))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm),
    /// so formatting needs no calendar object and no time zone database.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    static func floorModulo(_ value: Int64, _ modulus: Int64) -> Int64 {
        let remainder = value % modulus
        return remainder < 0 ? remainder + modulus : remainder
    }
}
