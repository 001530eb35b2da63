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
    /// times, so digits go straight into the buffer without making a string for each.
    public func appendISO8601(to out: inout [UInt8]) {
        let millis = Int64.floorModulo(millisecondsSince1970, 1000)
        // Floor division without subtracting first, which would overflow at Int64.min.
        let seconds = millisecondsSince1970 / 1000 - (millisecondsSince1970 % 1000 < 0 ? 1 : 0)
        let secondOfDay = Int64.floorModulo(seconds, 86_400)
        let (year, month, day) = Self.civilDate(daysSince1970: (seconds - secondOfDay) / 86_400)
        if year < 0 { out.append(UInt8(ascii: "-")) }
        Self.appendDigits(year.magnitude, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        Self.appendDigits(month.magnitude, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        Self.appendDigits(day.magnitude, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendDigits(UInt64(secondOfDay / 3600), width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendDigits(UInt64(secondOfDay / 60 % 60), width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendDigits(UInt64(secondOfDay % 60), width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        Self.appendDigits(UInt64(millis), width: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// `value` in decimal, zero-padded to at least `width` digits.
    private static func appendDigits(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        var divisor: UInt64 = 1
        var digits = 1
        while digits < width || value / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
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
