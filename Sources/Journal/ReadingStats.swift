import Foundation

/// What the reader's sessions and status changes add up to: pages and time per week and
/// per month, books finished per year, the reading streak, the average session and totals
/// per book. Computed in memory from the journal each time it is asked for; never stored
/// and never logged.
public struct ReadingStats: Sendable, Equatable {
    /// One week (from Monday, as ISO 8601 counts) or one calendar month, in local time.
    public struct Period: Sendable, Equatable {
        public let start: Timestamp
        public let pages: Int
        public let minutes: Int
        public let sessions: Int
    }

    /// Books finished in one year.
    public struct YearCount: Sendable, Equatable {
        public let year: Int
        public let books: Int
    }

    /// One book's sessions added up.
    public struct BookTotal: Sendable, Equatable {
        public let bookID: EntityID
        public let pages: Int
        public let minutes: Int
        public let sessions: Int
    }

    /// Every week and month from the first session counted to the last (or to now), those
    /// without sessions included, oldest first.
    public let weeks: [Period]
    public let months: [Period]
    /// Books finished in each year (a re-read counts again), oldest year first.
    public let finishedPerYear: [YearCount]
    /// Days in a row with a session, up to today (or yesterday, when today has none yet).
    public let currentStreak: Int
    public let longestStreak: Int
    public let sessions: Int
    public let pages: Int
    public let minutes: Int
    /// Most pages first.
    public let perBook: [BookTotal]

    public var averagePages: Double { sessions == 0 ? 0 : Double(pages) / Double(sessions) }
    public var averageMinutes: Double { sessions == 0 ? 0 : Double(minutes) / Double(sessions) }

    /// The statistics of the sessions that started, and the finishes dated, at or after
    /// `from` and before `before` (either may be nil), in `timeZone`'s days.
    public init(sessions all: [ReadingSession], logs: [ReadingLog], from: Timestamp?, before: Timestamp?,
                now: Timestamp, timeZone: TimeZone) {
        func counted(_ time: Timestamp) -> Bool {
            from.map { time >= $0 } ?? true && before.map { time < $0 } ?? true
        }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let sessions = all.filter { counted($0.startedAt) }
        let minutesOf = { (session: ReadingSession) in
            Int((session.endedAt.millisecondsSince1970 - session.startedAt.millisecondsSince1970 + 30_000) / 60_000)
        }

        // Each session's local day, found once: days are what weeks, months and streaks count.
        var byDay: [Date: (pages: Int, minutes: Int, sessions: Int)] = [:]
        var perBook: [EntityID: (pages: Int, minutes: Int, sessions: Int)] = [:]
        for session in sessions {
            let day = calendar.startOfDay(for: Self.date(session.startedAt))
            let minutes = minutesOf(session)
            byDay[day, default: (0, 0, 0)].pages += session.pagesRead
            byDay[day, default: (0, 0, 0)].minutes += minutes
            byDay[day, default: (0, 0, 0)].sessions += 1
            perBook[session.bookID, default: (0, 0, 0)].pages += session.pagesRead
            perBook[session.bookID, default: (0, 0, 0)].minutes += minutes
            perBook[session.bookID, default: (0, 0, 0)].sessions += 1
        }
        self.sessions = sessions.count
        pages = sessions.reduce(0) { $0 + $1.pagesRead }
        minutes = sessions.reduce(0) { $0 + minutesOf($1) }
        self.perBook = perBook.map { BookTotal(bookID: $0.key, pages: $0.value.pages, minutes: $0.value.minutes, sessions: $0.value.sessions) }
            .sorted { ($0.pages, $1.bookID) > ($1.pages, $0.bookID) }

        let days = byDay.keys.sorted()
        // From the start asked for (else the first session), to the end asked for (else now).
        let first = from.map(Self.date) ?? days.first
        let last = min(before.map { Self.date($0).addingTimeInterval(-0.001) } ?? Self.date(now), Self.date(now))
        weeks = Self.periods(of: .weekOfYear, days: days, byDay: byDay, from: first, through: last, calendar: calendar)
        months = Self.periods(of: .month, days: days, byDay: byDay, from: first, through: last, calendar: calendar)

        var finished: [Int: Int] = [:]
        for log in logs {
            for day in log.finishedOn where counted(day) {
                finished[calendar.component(.year, from: Self.date(day)), default: 0] += 1
            }
        }
        finishedPerYear = finished.sorted { $0.key < $1.key }.map { YearCount(year: $0.key, books: $0.value) }

        var longest = 0, run = 0
        var previous: Date?
        for day in days {
            run = previous.flatMap { calendar.date(byAdding: .day, value: 1, to: $0) } == day ? run + 1 : 1
            longest = max(longest, run)
            previous = day
        }
        longestStreak = longest
        let today = calendar.startOfDay(for: Self.date(now))
        let yesterday = calendar.date(byAdding: .day, value: -1, to: today)
        currentStreak = previous == today || previous == yesterday ? run : 0
    }

    /// Every period (week or month) from `first`'s to `last`'s, with what its days add up to.
    private static func periods(of unit: Calendar.Component, days: [Date], byDay: [Date: (pages: Int, minutes: Int, sessions: Int)],
                                from first: Date?, through last: Date, calendar: Calendar) -> [Period] {
        guard let first, var start = calendar.dateInterval(of: unit, for: first)?.start else { return [] }
        var totals: [Date: (pages: Int, minutes: Int, sessions: Int)] = [:]
        for day in days {
            guard let period = calendar.dateInterval(of: unit, for: day)?.start, let value = byDay[day] else { continue }
            totals[period, default: (0, 0, 0)].pages += value.pages
            totals[period, default: (0, 0, 0)].minutes += value.minutes
            totals[period, default: (0, 0, 0)].sessions += value.sessions
        }
        let end = max(last, days.last ?? last)
        var periods: [Period] = []
        while start <= end {
            let total = totals[start] ?? (0, 0, 0)
            periods.append(Period(start: timestamp(start), pages: total.pages, minutes: total.minutes, sessions: total.sessions))
            guard let next = calendar.date(byAdding: unit, value: 1, to: start) else { break }
            start = next
        }
        return periods
    }

    private static func date(_ timestamp: Timestamp) -> Date {
        Date(timeIntervalSince1970: Double(timestamp.millisecondsSince1970) / 1000)
    }

    private static func timestamp(_ date: Date) -> Timestamp {
        Timestamp(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
