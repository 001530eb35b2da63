import Foundation
import Testing
@testable import Journal

/// `stats`' numbers, computed from sessions and reading logs in a fixed time zone.
@Suite struct ReadingStatsTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let book = EntityID.generate(at: ms(1_700_000_000_000))
    static let other = EntityID.generate(at: ms(1_700_000_000_001))

    static func at(_ iso: String) -> Timestamp {
        (try? Timestamp(iso8601: iso)) ?? Timestamp(millisecondsSince1970: -1)
    }

    static func session(_ start: String, minutes: Int64, pages: Int, book: EntityID = book) -> ReadingSession {
        let started = at(start)
        return ReadingSession(id: .generate(at: started), bookID: book, startedAt: started,
                              endedAt: Timestamp(millisecondsSince1970: started.millisecondsSince1970 + minutes * 60_000), pagesRead: pages)
    }

    // 2026-12-05 is a Saturday; its week began on Monday 2026-11-30.
    static let now = at("2026-12-05T20:00:00Z")
    static let sessions = [
        session("2026-11-20T21:00:00Z", minutes: 30, pages: 10),
        session("2026-11-21T21:00:00Z", minutes: 45, pages: 20, book: other),
        session("2026-11-22T21:00:00Z", minutes: 60, pages: 30),
        session("2026-12-03T08:00:00Z", minutes: 20, pages: 5),
        session("2026-12-04T08:00:00Z", minutes: 20, pages: 5),
        session("2026-12-04T22:00:00Z", minutes: 10, pages: 2),
    ]

    @Test func totalsAveragesAndBooks() {
        let stats = ReadingStats(sessions: Self.sessions, logs: [], from: nil, before: nil, now: Self.now, timeZone: Self.utc)
        #expect(stats.sessions == 6 && stats.pages == 72 && stats.minutes == 185)
        #expect(stats.averagePages == 12 && abs(stats.averageMinutes - 185.0 / 6) < 1e-9)
        #expect(stats.perBook.map(\.bookID) == [Self.book, Self.other])
        #expect(stats.perBook.map(\.pages) == [52, 20] && stats.perBook.map(\.sessions) == [5, 1])
    }

    @Test func weeksAndMonthsRunFromTheFirstSessionToNowWithEmptyOnesIncluded() {
        let stats = ReadingStats(sessions: Self.sessions, logs: [], from: nil, before: nil, now: Self.now, timeZone: Self.utc)
        #expect(stats.weeks.map { $0.start.iso8601.prefix(10) } == ["2026-11-16", "2026-11-23", "2026-11-30"])
        #expect(stats.weeks.map(\.pages) == [60, 0, 12])
        #expect(stats.months.map { $0.start.iso8601.prefix(10) } == ["2026-11-01", "2026-12-01"])
        #expect(stats.months.map(\.minutes) == [135, 50])
    }

    @Test func streaksCountDaysInARowUpToYesterday() {
        let stats = ReadingStats(sessions: Self.sessions, logs: [], from: nil, before: nil, now: Self.now, timeZone: Self.utc)
        #expect(stats.longestStreak == 3)
        #expect(stats.currentStreak == 2, "the 3rd and the 4th; none yet on the 5th")
        let later = ReadingStats(sessions: Self.sessions, logs: [], from: nil, before: nil, now: Self.at("2026-12-07T10:00:00Z"), timeZone: Self.utc)
        #expect(later.currentStreak == 0)
        // Days are local: 22:00 UTC on the 4th is the 5th in Tokyo, which makes the 5th a day read.
        let tokyo = ReadingStats(sessions: Self.sessions, logs: [], from: nil, before: nil, now: Self.now,
                                 timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(tokyo.currentStreak == 3)
    }

    @Test func aRangeCountsOnlyWhatFallsInIt() {
        let event = { (status: ReadingStatus, day: String, wall: Int64) in
            ReadingEvent(status: status, on: Self.at(day), clock: HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: "a"))
        }
        let logs = [ReadingLog(events: [event(.finished, "2025-06-01T00:00:00Z", 1), event(.finished, "2026-02-01T00:00:00Z", 2)]),
                    ReadingLog(events: [event(.finished, "2026-11-01T00:00:00Z", 3), event(.abandoned, "2026-11-02T00:00:00Z", 4)])]
        let all = ReadingStats(sessions: [], logs: logs, from: nil, before: nil, now: Self.now, timeZone: Self.utc)
        #expect(all.finishedPerYear.map(\.year) == [2025, 2026] && all.finishedPerYear.map(\.books) == [1, 2])
        #expect(all.weeks.isEmpty && all.currentStreak == 0 && all.averagePages == 0)

        let december = ReadingStats(sessions: Self.sessions, logs: logs, from: Self.at("2026-12-01T00:00:00Z"),
                                    before: Self.at("2027-01-01T00:00:00Z"), now: Self.now, timeZone: Self.utc)
        #expect(december.sessions == 3 && december.pages == 12)
        #expect(december.finishedPerYear.isEmpty)
        #expect(december.weeks.first?.start == Self.at("2026-11-30T00:00:00Z") && december.weeks.count == 1)
        #expect(december.months.count == 1)
    }
}
