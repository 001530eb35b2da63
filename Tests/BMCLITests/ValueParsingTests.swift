import Foundation
import Journal
import Testing

@testable import BMCLI

/// The ISO 8601 forms `--start` and `--end` take: those `Timestamp(iso8601:)` reads, the
/// same as an archive's times. (Local times depend on the time zone; the end-to-end tests
/// cover them with a fixed `TZ`.)
@Suite struct ValueParsingTests {
    static let now = CommandContext(environment: [:]).clock.now()

    @Test(arguments: [
        ("2026-12-02T10:00:00Z", Int64(1_796_205_600_000)),
        ("2026-12-02T11:00:00+01:00", 1_796_205_600_000),
        ("2026-12-02T05:30:00-0430", 1_796_205_600_000),
        ("2026-12-02T10:00:00.25Z", 1_796_205_600_250),
        ("  2026-12-02T10:00:00.123456Z ", 1_796_205_600_123),
    ])
    func isoTimes(text: String, milliseconds: Int64) throws {
        #expect(try ValueParsing.time(text, option: "start", now: Self.now) == ValueParsing.GivenTime(
            timestamp: Timestamp(millisecondsSince1970: milliseconds), isTimeOfDay: false))
    }

    @Test(arguments: ["2026-12-02T10:00:00Zx", "2026-02-30T10:00:00Z", "2026-12-02T10:00:00+1:00", "2026-12-02T10:00:00UTC"])
    func notTimes(text: String) {
        #expect(throws: CLIError.invalidValue("--end takes a time: \(ValueParsing.timeForms)")) {
            try ValueParsing.time(text, option: "end", now: Self.now)
        }
    }

    // Local forms, in a fixed zone, at 08:00 UTC on 2026-12-05.
    static let utc = TimeZone(identifier: "UTC")!
    static let morning = Timestamp(millisecondsSince1970: 1_796_457_600_000)  // 2026-12-05T08:00:00Z

    static func at(_ iso: String) -> Timestamp {
        (try? Timestamp(iso8601: iso)) ?? Timestamp(millisecondsSince1970: -1)
    }

    @Test("Relative and local times name the moment a reader means", arguments: [
        ("23:00", "2026-12-04T23:00:00Z", true),     // later than now today: last night
        ("07:59", "2026-12-05T07:59:00Z", true),
        ("08:00", "2026-12-05T08:00:00Z", true),     // now itself is not the future
        ("today", "2026-12-05T00:00:00Z", false),
        ("Yesterday", "2026-12-04T00:00:00Z", false),
        ("yesterday 21:05", "2026-12-04T21:05:00Z", false),
        ("today 7:30", "2026-12-05T07:30:00Z", false),
        ("-7d", "2026-11-28T08:00:00Z", false),
        ("-1h30m", "2026-12-05T06:30:00Z", false),
        ("-45m", "2026-12-05T07:15:00Z", false),
        ("2026-11-02", "2026-11-02T00:00:00Z", false),
        ("2026-11-02 21:00", "2026-11-02T21:00:00Z", false),
        ("2026-11-02T21:00:30", "2026-11-02T21:00:30Z", false),
        ("now", "2026-12-05T08:00:00Z", false),
    ])
    func localTimes(text: String, expected: String, isTimeOfDay: Bool) throws {
        #expect(try ValueParsing.time(text, option: "start", now: Self.morning, timeZone: Self.utc)
                == ValueParsing.GivenTime(timestamp: Self.at(expected), isTimeOfDay: isTimeOfDay))
    }

    @Test(arguments: ["24:00", "7:60", "07:5x", "7", "-", "-0m", "-400d", "tomorrow", "yesterday 25:00", "today7:30", "last week"])
    func notLocalTimes(text: String) {
        #expect(throws: CLIError.invalidValue("--since takes a time: \(ValueParsing.timeForms)")) {
            try ValueParsing.time(text, option: "since", now: Self.morning, timeZone: Self.utc)
        }
    }

    @Test("A start of day after the end is the day before's; any other start stays where it was given")
    func sessionSpans() throws {
        let end = ValueParsing.GivenTime(timestamp: Self.at("2026-12-05T00:30:00Z"), isTimeOfDay: true)
        let lateStart = ValueParsing.GivenTime(timestamp: Self.at("2026-12-05T23:00:00Z"), isTimeOfDay: true)
        let span = ValueParsing.sessionSpan(start: lateStart, end: end, timeZone: Self.utc)
        #expect(span.start == Self.at("2026-12-04T23:00:00Z"))
        #expect(span.end == end.timestamp)

        let dated = ValueParsing.GivenTime(timestamp: Self.at("2026-12-05T23:00:00Z"), isTimeOfDay: false)
        #expect(ValueParsing.sessionSpan(start: dated, end: end, timeZone: Self.utc).start == dated.timestamp)
        let early = ValueParsing.GivenTime(timestamp: Self.at("2026-12-05T00:10:00Z"), isTimeOfDay: true)
        #expect(ValueParsing.sessionSpan(start: early, end: end, timeZone: Self.utc).start == early.timestamp)
        #expect(ValueParsing.sessionSpan(start: nil, end: end, timeZone: Self.utc) == (end.timestamp, end.timestamp))
    }

    /// 2026-12-05 is a Saturday: this week began on Monday 2026-11-30.
    @Test("Listing dates name whole days and weeks, or one moment", arguments: [
        ("today", "2026-12-05T00:00:00Z", "2026-12-06T00:00:00Z", true),
        ("YESTERDAY", "2026-12-04T00:00:00Z", "2026-12-05T00:00:00Z", true),
        ("this week", "2026-11-30T00:00:00Z", "2026-12-07T00:00:00Z", true),
        ("last  week", "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z", true),
        ("2026-02-28", "2026-02-28T00:00:00Z", "2026-03-01T00:00:00Z", true),
        ("-7d", "2026-11-28T08:00:00Z", "2026-11-28T08:00:00.001Z", false),
        ("2026-11-02 21:00", "2026-11-02T21:00:00Z", "2026-11-02T21:00:00.001Z", false),
        ("yesterday 21:05", "2026-12-04T21:05:00Z", "2026-12-04T21:05:00.001Z", false),
    ])
    func periods(text: String, start: String, end: String, isSpan: Bool) throws {
        #expect(try ValueParsing.period(text, option: "since", now: Self.morning, timeZone: Self.utc)
                == ValueParsing.Period(start: Self.at(start), end: Self.at(end), isSpan: isSpan))
    }

    @Test(arguments: ["next week", "2026-02-30", "week", "tomorrow", ""])
    func notPeriods(text: String) {
        #expect(throws: CLIError.invalidValue("--on takes \(ValueParsing.periodForms)")) {
            try ValueParsing.period(text, option: "on", now: Self.morning, timeZone: Self.utc)
        }
    }
}
