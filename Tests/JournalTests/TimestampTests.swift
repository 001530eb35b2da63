import Testing
import Foundation
@testable import Journal

@Suite("Timestamp")
struct TimestampTests {
    @Test("ISO 8601 in UTC with milliseconds", arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (999, "1970-01-01T00:00:00.999Z"),
        (1_000, "1970-01-01T00:00:01.000Z"),
        (86_399_999, "1970-01-01T23:59:59.999Z"),
        (86_400_000, "1970-01-02T00:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
        (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
        (4_107_456_000_000, "2100-02-28T00:00:00.000Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func iso8601(milliseconds: Int64, expected: String) {
        let timestamp = ms(milliseconds)
        #expect(timestamp.iso8601 == expected)
        #expect(timestamp.description == expected)
    }

    @Test("Times before 1970 count back correctly", arguments: [
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
        (-999, "1969-12-31T23:59:59.001Z"),
        (-1_000, "1969-12-31T23:59:59.000Z"),
        (-1_001, "1969-12-31T23:59:58.999Z"),
        (-86_400_000, "1969-12-31T00:00:00.000Z"),
        (-86_400_001, "1969-12-30T23:59:59.999Z"),
        (-2_203_977_600_000, "1900-02-28T00:00:00.000Z"),
        (-2_203_891_200_000, "1900-03-01T00:00:00.000Z"),
        (-11_670_998_400_000, "1600-02-29T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
    ])
    func beforeEpoch(milliseconds: Int64, expected: String) {
        #expect(ms(milliseconds).iso8601 == expected)
    }

    @Test("Every day of a leap and a common year formats like Foundation's ISO 8601")
    func matchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        // 2023-12-31 through 2025-01-01, at an odd time of day.
        let start: Int64 = 1_703_980_800_000 + 45_296_500
        for day in Int64(0)..<368 {
            let milliseconds = start + day * 86_400_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(ms(milliseconds).iso8601 == formatter.string(from: date), "\(milliseconds)")
        }
    }

    @Test("Far-future years are written with more than four digits")
    func largeYears() {
        #expect(ms(253_402_300_800_000).iso8601 == "10000-01-01T00:00:00.000Z")
        #expect(ms(.max).iso8601.hasSuffix(".807Z"))
    }

    @Test("Years before year 1 are written as ISO 8601 expanded years")
    func negativeYears() {
        // Proleptic Gregorian: year 0 (1 BC) is a leap year, year -1 is not.
        #expect(ms(-62_167_219_200_000).iso8601 == "0000-01-01T00:00:00.000Z")
        #expect(ms(-62_198_755_200_000).iso8601 == "-0001-01-01T00:00:00.000Z")
    }

    @Test("The earliest representable timestamps format rather than trap")
    func int64MinDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            _ = Timestamp(millisecondsSince1970: .min).iso8601
        }
    }

    @Test("Timestamps order by their milliseconds")
    func ordering() {
        #expect(ms(-1) < ms(0))
        #expect(ms(0) < ms(1))
        #expect(ms(1_700_000_000_000) < ms(1_700_000_000_001))
        #expect(!(ms(5) < ms(5)))
        #expect(ms(5) <= ms(5))
        #expect(ms(.min) < ms(.max))
        #expect([ms(3), ms(-2), ms(1)].sorted() == [ms(-2), ms(1), ms(3)])
        #expect([ms(3), ms(-2), ms(1)].max() == ms(3))
    }

    @Test("Equality and hashing follow the milliseconds")
    func equality() {
        #expect(ms(42) == Timestamp(millisecondsSince1970: 42))
        #expect(ms(42) != ms(43))
        #expect(Set([ms(1), ms(1), ms(2)]).count == 2)
    }

    @Test("civilDate is Hinnant's days-to-date", arguments: [
        (Int64(0), Int64(1970), Int64(1), Int64(1)),
        (-1, 1969, 12, 31),
        (11_016, 2000, 2, 29),
        (11_017, 2000, 3, 1),
        (-719_468, 0, 3, 1),
    ])
    func civilDate(days: Int64, year: Int64, month: Int64, day: Int64) {
        let date = Timestamp.civilDate(daysSince1970: days)
        #expect(date.year == year)
        #expect(date.month == month)
        #expect(date.day == day)
    }

    @Test("ISO 8601 reads back what it writes, and offsets", arguments: [
        Int64(0), 1, 999, 1_767_225_600_123, -1, -86_400_001, 253_402_300_799_999, 951_782_400_000, -62_167_219_200_000,
    ])
    func readsWhatItWrites(milliseconds: Int64) throws {
        #expect(try Timestamp(iso8601: ms(milliseconds).iso8601) == ms(milliseconds))
    }

    @Test("ISO 8601 with an offset, a fraction of any length, and T and Z in either case")
    func readsOffsetsAndFractions() throws {
        let moment = try Timestamp(iso8601: "2026-12-02T10:07:46Z")
        #expect(moment == ms(1_796_206_066_000))
        #expect(try Timestamp(iso8601: "2026-12-02T11:07:46+01:00") == moment)
        #expect(try Timestamp(iso8601: "2026-12-02T05:37:46-0430") == moment)
        #expect(try Timestamp(iso8601: "2026-12-02t10:07:46z") == moment)
        #expect(try Timestamp(iso8601: "2026-12-02T10:07:46.1239Z") == ms(1_796_206_066_123), "further digits are dropped")
        #expect(try Timestamp(iso8601: "2026-12-02T10:07:46.5Z") == ms(1_796_206_066_500))
        #expect(try Timestamp(iso8601: "1969-12-31T23:59:59.9995Z") == ms(-1), "toward the past")
        #expect(try Timestamp(iso8601: "2024-02-29T00:00:00Z") == ms(1_709_164_800_000))
    }

    @Test("ISO 8601 without an offset, or naming no real moment, is refused", arguments: [
        "2026-12-02T10:07:46", "2026-12-02", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-12-02T24:00:00Z", "2026-12-02T10:60:00Z", "2026-12-02T10:07:60Z", "2026-12-02T10:07:46.Z",
        "2026-12-02 10:07:46Z", "2026-12-02T10:07:46Zx", "2026-12-02T10:07:46+01", "2026-12-02T10:07:46+24:00",
        "2026-12-02T10:07:46 +01:00", "2026-12-02T10:07:46GMT", "12026-12-02T10:07:46Z", "2026-1-02T10:07:46Z", "",
    ])
    func refusesOtherText(text: String) {
        #expect(throws: JournalError.invalidTimestamp) { try Timestamp(iso8601: text) }
    }

    @Test("The system clock agrees with Foundation's to within a few seconds")
    func systemClock() {
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let now = SystemClock().now().millisecondsSince1970
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(now >= before - 2_000)
        #expect(now <= after + 2_000)
        #expect(now > 1_700_000_000_000)
    }

    @Test("A Clock can be fixed for tests")
    func fixedClock() {
        let clock: any Clock = FixedClock(time: ms(1_234))
        #expect(clock.now() == ms(1_234))
    }
}
