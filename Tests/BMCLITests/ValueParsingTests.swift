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
        #expect(try ValueParsing.time(text, option: "start", now: Self.now).millisecondsSince1970 == milliseconds)
    }

    @Test(arguments: ["2026-12-02T10:00:00Zx", "2026-02-30T10:00:00Z", "2026-12-02T10:00:00+1:00", "2026-12-02T10:00:00UTC"])
    func notTimes(text: String) {
        #expect(throws: CLIError.invalidValue("--end takes a time: now, HH:MM, YYYY-MM-DD HH:MM, or ISO 8601 such as 2026-12-02T10:00:00+01:00")) {
            try ValueParsing.time(text, option: "end", now: Self.now)
        }
    }
}
