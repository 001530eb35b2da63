import Foundation
import Journal
import VaultKit

/// `stats`: what the reader's sessions and status changes add up to.
enum StatsCommand {
    struct Input: CommandInput {
        var year: Int?
        var since: ValueParsing.Period?
        var json = false

        static var parameters: [Parameter<Input>] {
            [.option(\.year, OptionSpec(name: "year", valueName: "year", help: "Only this calendar year, such as 2026."), ValueParsing.year),
             .period(\.since, OptionSpec(name: "since", valueName: "date", help: "Only from this day or time: \(ValueParsing.periodForms).")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    /// Weeks and months shown in the human output (all of them are in `--json`).
    static let shownPeriods = 12
    /// Books shown by their totals.
    static let shownBooks = 10

    static func stats(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "stats", abstract: "Show pages, time, streaks and finished books.",
            discussion: "Pages and time per week and month, books finished per year, the reading streak, the average session "
                + "and totals per book, from the journal in memory; nothing about them is stored or logged. Charts on a "
                + "terminal, plain numbers otherwise.",
            parameters: Input.parameters
        ) { input in
            let (from, before) = try range(input)
            let report = try context.openVault().stats(from: from, before: before)
            if input.json {
                context.console.out(JSONDocuments.render(JSONDocuments.StatsDocument(report)))
            } else {
                let charts = context.console.stdoutShowsStyle   // decided on the terminal, before a pager takes the output
                context.startPaging()
                context.console.out(text(report, input: input, charts: charts))
            }
            try context.finishListing()
        }
    }

    /// `--year` and `--since` together: the later start, the year's end.
    private static func range(_ input: Input) throws(CLIError) -> (Timestamp?, Timestamp?) {
        var from = input.since?.start
        var before: Timestamp?
        if let year = input.year {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .process
            guard let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
                  let end = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1)) else {
                throw .invalidValue("--year takes a year from 1900 to 2100")
            }
            let yearStart = Timestamp(millisecondsSince1970: Int64(start.timeIntervalSince1970 * 1000))
            from = max(from ?? yearStart, yearStart)
            before = Timestamp(millisecondsSince1970: Int64(end.timeIntervalSince1970 * 1000))
        }
        return (from, before)
    }

    static func text(_ report: StatsReport, input: Input, charts: Bool) -> String {
        let stats = report.stats
        guard stats.sessions > 0 || !stats.finishedPerYear.isEmpty else { return "No reading sessions or finished books" + scope(input) + ".\n" }
        var text = "Reading" + scope(input) + "\n"
        text += "  sessions: \(stats.sessions), \(stats.pages) pages, \(HumanFormat.duration(minutes: stats.minutes))"
        if stats.sessions > 0 {
            text += "; on average \(Int(stats.averagePages.rounded())) pages and \(HumanFormat.duration(minutes: Int(stats.averageMinutes.rounded()))) a session"
        }
        text += "\n  streak:   \(days(stats.currentStreak)) (longest \(days(stats.longestStreak)))\n"
        if !stats.finishedPerYear.isEmpty {
            text += "  finished: " + stats.finishedPerYear.map { "\($0.books) in \($0.year)" }.joined(separator: ", ") + "\n"
        }
        let weeks = input.year == nil ? Array(stats.weeks.suffix(shownPeriods)) : stats.weeks
        let months = input.year == nil ? Array(stats.months.suffix(shownPeriods)) : stats.months
        if !weeks.isEmpty {
            text += "\nPages per week" + (weeks.count < stats.weeks.count ? " (the last \(weeks.count))" : "") + "\n"
            if charts {
                text += "  " + sparkline(weeks.map(\.pages)) + "  \(HumanFormat.localDate(weeks[0].start)) to now, most \(weeks.map(\.pages).max() ?? 0)\n"
            } else {
                for week in weeks { text += "  \(HumanFormat.localDate(week.start))  \(week.pages) pages  \(HumanFormat.duration(minutes: week.minutes))\n" }
            }
        }
        if !months.isEmpty {
            text += "\nPages per month" + (months.count < stats.months.count ? " (the last \(months.count))" : "") + "\n"
            let most = max(1, months.map(\.pages).max() ?? 1)
            for month in months {
                let label = String(HumanFormat.localDate(month.start).prefix(7))
                let bar = charts ? " " + String(repeating: "█", count: (month.pages * 30 + most - 1) / most) : ""
                text += "  \(label)  \(String(month.pages).leftPadded(to: 6)) pages  \(HumanFormat.duration(minutes: month.minutes).leftPadded(to: 12))\(bar)\n"
            }
        }
        if !stats.perBook.isEmpty {
            text += "\nBy book" + (stats.perBook.count > shownBooks ? " (the \(shownBooks) with most pages)" : "") + "\n"
            for total in stats.perBook.prefix(shownBooks) {
                let title = report.titles[total.bookID].map(HumanFormat.printable) ?? "(\(total.bookID))"
                text += "  \(String(total.pages).leftPadded(to: 6)) pages  \(HumanFormat.duration(minutes: total.minutes).leftPadded(to: 12))  "
                    + "\(HumanFormat.counted([(total.sessions, "session")]).leftPadded(to: 13))  \(title)\n"
            }
        }
        return text
    }

    private static func scope(_ input: Input) -> String {
        switch (input.year, input.since) {
        case (let year?, nil): " in \(year)"
        case (let year?, let since?): " in \(year) since \(HumanFormat.localDate(since.start))"
        case (nil, let since?): " since \(HumanFormat.localDate(since.start))"
        case (nil, nil): ""
        }
    }

    private static func days(_ count: Int) -> String { count == 1 ? "1 day" : "\(count) days" }

    /// One block character per value, from ▁ (none) to █ (the most).
    static func sparkline(_ values: [Int]) -> String {
        let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let most = max(1, values.max() ?? 1)
        return String(values.map { blocks[$0 == 0 ? 0 : max(1, ($0 * (blocks.count - 1) + most - 1) / most)] })
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
