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

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-12-02T10:07:46.123Z`; ``init(iso8601:)``
    /// reads it back.
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

    /// Reads the ISO 8601 form bmvault writes and reads: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction of a second, and `Z` or an offset (`+01:00`, `-0430`); `T` and `Z` in either
    /// case, as RFC 3339 allows. A time without an offset is refused: it would name a
    /// different moment in every time zone. A fraction keeps its first three digits (the
    /// rest are dropped, toward the past), since a timestamp counts whole milliseconds.
    ///
    /// Reads every ``iso8601`` of years 0000 to 9999 back exactly.
    public init(iso8601 text: String) throws(JournalError) {
        var text = text
        guard let milliseconds = text.withUTF8(Self.millisecondsSince1970(iso8601:)) else { throw .invalidTimestamp }
        self.init(millisecondsSince1970: milliseconds)
    }

    private static func millisecondsSince1970(iso8601 bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        /// The next `width` bytes as a decimal number, if they are all digits.
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + width)] {
                guard isDigit(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += width
            return value
        }
        /// Skips the next byte if it is one of `characters`.
        func take(_ characters: StaticString) -> Bool {
            guard index < bytes.count,
                  UnsafeBufferPointer(start: characters.utf8Start, count: characters.utf8CodeUnitCount).contains(bytes[index])
            else { return false }
            index += 1
            return true
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
              take("Tt"), let hour = number(2), take(":"), let minute = number(2), take(":"), let second = number(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        var milliseconds: Int64 = 0
        if take(".") {
            var digits = 0
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { milliseconds *= 10 }
        }
        let offsetMinutes: Int64
        if take("Zz") {
            offsetMinutes = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            _ = take(":")
            guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1000 + milliseconds
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

    /// A proleptic Gregorian date to days since 1970-01-01 (Hinnant's days_from_civil), the
    /// inverse of ``civilDate(daysSince1970:)``.
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension Int64 {
    static func floorModulo(_ value: Int64, _ modulus: Int64) -> Int64 {
        let remainder = value % modulus
        return remainder < 0 ? remainder + modulus : remainder
    }
}
