import Foundation
import Journal
import VaultKit

/// Turns option and argument text into values. Errors name the option and the forms it
/// accepts, never the text given (it could be a note typed in the wrong place).
enum ValueParsing {
    /// A time as the reader gave it, and whether it named only a time of day (`23:00`),
    /// which ``sessionSpan(start:end:timeZone:)`` may move to the day before.
    struct GivenTime: Equatable, Sendable {
        var timestamp: Timestamp
        var isTimeOfDay: Bool
    }

    /// The forms every time option takes, for its help and its error.
    static let timeForms = "now, HH:MM, today, yesterday [HH:MM], -7d, -45m, YYYY-MM-DD [HH:MM], or ISO 8601 such as 2026-12-02T10:00:00+01:00"

    /// A time for `session add --start/--end` and `session list --since`, in local time
    /// unless it carries an offset:
    /// - `now`; `HH:MM`, the latest such moment that is not in the future (at 08:00, `23:00`
    ///   is last night's); `today` and `yesterday` (midnight), optionally with `HH:MM`;
    /// - `-DURATION` before now, in ``duration(_:)``'s units (`-7d`, `-45m`, `-1h30m`);
    /// - `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` or `YYYY-MM-DDTHH:MM[:SS]`;
    /// - ISO 8601 with an offset (`2026-12-02T10:00:00+01:00`, `...Z`), read as an
    ///   archive's times are (``Timestamp/init(iso8601:)``).
    static func time(_ text: String, option: String, now: Timestamp,
                     timeZone: TimeZone = .process) throws(CLIError) -> GivenTime {
        let failure = CLIError.invalidValue("--\(option) takes a time: \(timeForms)")
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "now" { return GivenTime(timestamp: now, isTimeOfDay: false) }
        if let timestamp = try? Timestamp(iso8601: trimmed.uppercased()) { return GivenTime(timestamp: timestamp, isTimeOfDay: false) }
        if trimmed.hasPrefix("-") {
            guard let seconds = try? duration(String(trimmed.dropFirst())) else { throw failure }
            return GivenTime(timestamp: Timestamp(millisecondsSince1970: now.millisecondsSince1970 - seconds * 1000), isTimeOfDay: false)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let nowDate = date(now)
        for (word, daysBack) in [("today", 0), ("yesterday", 1)] where trimmed == word || trimmed.hasPrefix(word + " ") {
            guard let day = calendar.date(byAdding: .day, value: -daysBack, to: calendar.startOfDay(for: nowDate)) else { throw failure }
            let clock = trimmed.dropFirst(word.count).trimmingCharacters(in: .whitespaces)
            if clock.isEmpty { return GivenTime(timestamp: timestamp(day), isTimeOfDay: false) }
            guard let moment = timeOfDay(clock, on: day, calendar: calendar) else { throw failure }
            return GivenTime(timestamp: timestamp(moment), isTimeOfDay: false)
        }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = timeZone
        for format in ["yyyy-MM-dd't'HH:mm:ss", "yyyy-MM-dd't'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            local.dateFormat = format
            if let date = local.date(from: trimmed) { return GivenTime(timestamp: timestamp(date), isTimeOfDay: false) }
        }
        guard let today = timeOfDay(trimmed, on: nowDate, calendar: calendar) else { throw failure }
        guard today > nowDate else { return GivenTime(timestamp: timestamp(today), isTimeOfDay: true) }
        guard let dayBefore = timeOfDay(trimmed, on: calendar.date(byAdding: .day, value: -1, to: today) ?? today, calendar: calendar) else {
            throw failure
        }
        return GivenTime(timestamp: timestamp(dayBefore), isTimeOfDay: true)
    }

    /// A span of time a listing filter names: a whole day, a whole week, or one moment.
    struct Period: Equatable, Sendable {
        var start: Timestamp
        /// The first moment after it (for a moment, a millisecond later).
        var end: Timestamp
        /// A day or a week, not a moment: what `--on` needs.
        var isSpan: Bool
    }

    /// The forms every date filter (`list --since/--until/--on`) takes, for its help and its error.
    static let periodForms = "today, yesterday, this week, last week, YYYY-MM-DD, -7d, or a time (YYYY-MM-DD HH:MM, ISO 8601)"

    /// A date for the listing filters, in local time: `today`, `yesterday` and `YYYY-MM-DD`
    /// are whole days, `this week` and `last week` whole weeks (from Monday, as ISO 8601
    /// counts them), and anything else ``time(_:option:now:timeZone:)`` reads is one moment
    /// (`-7d` is seven days before now, to the minute).
    static func period(_ text: String, option: String, now: Timestamp, timeZone: TimeZone = .process) throws(CLIError) -> Period {
        let failure = CLIError.invalidValue("--\(option) takes \(periodForms)")
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased().split(separator: " ").joined(separator: " ")
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: date(now))
        func span(from start: Date?, days: Int) throws(CLIError) -> Period {
            guard let start, let end = calendar.date(byAdding: .day, value: days, to: start) else { throw failure }
            return Period(start: timestamp(start), end: timestamp(end), isSpan: true)
        }
        switch trimmed {
        case "today": return try span(from: today, days: 1)
        case "yesterday": return try span(from: calendar.date(byAdding: .day, value: -1, to: today), days: 1)
        case "this week", "last week":
            let monday = calendar.dateInterval(of: .weekOfYear, for: today)?.start
            let start = trimmed == "this week" ? monday : monday.flatMap { calendar.date(byAdding: .day, value: -7, to: $0) }
            return try span(from: start, days: 7)
        default:
            let day = DateFormatter()
            day.locale = Locale(identifier: "en_US_POSIX")
            day.timeZone = timeZone
            day.dateFormat = "yyyy-MM-dd"
            if trimmed.count == 10, let date = day.date(from: trimmed) { return try span(from: calendar.startOfDay(for: date), days: 1) }
            guard let moment = try? time(text, option: option, now: now, timeZone: timeZone) else { throw failure }
            return Period(start: moment.timestamp, end: Timestamp(millisecondsSince1970: moment.timestamp.millisecondsSince1970 + 1),
                          isSpan: false)
        }
    }

    /// A session's start and end: a start given as a time of day that falls after the end
    /// is the day before's (`--start 23:00 --end 00:30` crosses midnight).
    static func sessionSpan(start: GivenTime?, end: GivenTime,
                            timeZone: TimeZone = .process) -> (start: Timestamp, end: Timestamp) {
        guard let start else { return (end.timestamp, end.timestamp) }
        guard start.isTimeOfDay, start.timestamp > end.timestamp else { return (start.timestamp, end.timestamp) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let dayBefore = calendar.date(byAdding: .day, value: -1, to: date(start.timestamp)) else {
            return (start.timestamp, end.timestamp)
        }
        return (timestamp(dayBefore), end.timestamp)
    }

    /// `given`, if it named only a time of day, at that time on `reference`'s local day (what
    /// `session edit --start 21:30` means: the session's own day); any other time as given.
    static func onDayOf(_ reference: Timestamp, _ given: GivenTime, timeZone: TimeZone = .process) -> Timestamp {
        guard given.isTimeOfDay else { return given.timestamp }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date(given.timestamp))
        guard let moved = calendar.date(bySettingHour: parts.hour ?? 0, minute: parts.minute ?? 0, second: 0, of: date(reference)) else {
            return given.timestamp
        }
        return timestamp(moved)
    }

    /// `HH:MM` (24-hour clock) on the day of `day`, or nil when `text` is not one.
    private static func timeOfDay(_ text: String, on day: Date, calendar: Calendar) -> Date? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute) else {
            return nil
        }
        return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day)
    }

    /// A duration for `unlock --timeout`: units `d`, `h`, `m`, `s`, combined (`1h30m`), or
    /// plain seconds. Between one second and 366 days.
    static func duration(_ text: String) throws(CLIError) -> Int64 {
        let failure = CLIError.invalidValue("--timeout takes a duration such as 8h, 30m, 1h30m or 2d (at most 366d)")
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { throw failure }
        var total: Int64 = 0
        var digits = ""
        for character in trimmed {
            if character.isASCII && character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Int64
            switch character {
            case "d": unit = 86_400
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: throw failure
            }
            guard let value = Int64(digits), digits.count <= 9 else { throw failure }
            total += value * unit
            digits = ""
        }
        if !digits.isEmpty {
            guard let value = Int64(digits), digits.count <= 9 else { throw failure }
            total += value
        }
        guard total >= 1, total <= 366 * 86_400 else { throw failure }
        return total
    }

    /// `import --gap` and `--min-session`: a duration as ``duration(_:)`` reads one (`15m`,
    /// `90s`, `1h`), or 0, at most a day.
    static func sessionRule(_ text: String, option: String) throws(CLIError) -> Int64 {
        let failure = CLIError.invalidValue("--\(option) takes a duration such as 15m, 90s or 1h (0 to a day)")
        if text.trimmingCharacters(in: .whitespaces) == "0" { return 0 }
        guard let seconds = try? duration(text), seconds <= 86_400 else { throw failure }
        return seconds
    }

    /// Progress in percent: `42`, `42.5` or `42%`.
    static func percent(_ text: String) throws(CLIError) -> Double {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("%") { trimmed.removeLast() }
        guard let value = Double(trimmed), value.isFinite, (0...100).contains(value) else {
            throw .invalidValue("PERCENT takes a number from 0 to 100, such as 42 or 42.5%")
        }
        return value
    }

    /// A rating for `book rate`: 1 to 5 stars in halves (`4`, `3.5`, `4.5/5`).
    static func stars(_ text: String) throws(CLIError) -> Double? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("/5") { trimmed.removeLast(2) }
        guard let value = Double(trimmed), (try? Rating.checked(value)) != nil else {
            throw .invalidValue("STARS takes 1 to 5 in halves, such as 4 or 3.5")
        }
        return value
    }

    /// `session add --minutes`: a whole number of minutes, 0 to a week.
    static func minutes(_ text: String) throws(CLIError) -> Int? {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), (0...10_080).contains(value) else {
            throw .invalidValue("--minutes takes a whole number of minutes from 0 to 10080 (a week)")
        }
        return value
    }

    /// How far through a book for `book progress`: a percent (`42`, `42.5%`) or a page
    /// (`p. 120`, `p.120`, `page 120`).
    enum Position: Equatable {
        case percent(Double)
        case page(Int)
    }

    static func position(_ text: String) throws(CLIError) -> Position {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        for prefix in ["page", "p."] where trimmed.hasPrefix(prefix) {
            guard let page = Int(trimmed.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)), page >= 0 else {
                throw .invalidValue("a page is given as p. 120 (or page 120)")
            }
            return .page(page)
        }
        do {
            return .percent(try percent(trimmed))
        } catch {
            throw .invalidValue("POSITION takes a percent from 0 to 100 (42 or 42.5%) or a page (p. 120)")
        }
    }

    /// `--isbn` as typed (checked by the journal); "" removes it.
    static func isbn(_ text: String) throws(CLIError) -> String?? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return .some(trimmed.isEmpty ? nil : trimmed)
    }

    /// `--year`: a whole number (checked by the journal); "" removes it.
    static func year(_ text: String) throws(CLIError) -> Int?? {
        try removableNumber(text, otherwise: "--year takes a whole number, such as 1961")
    }

    /// `--pages-total`: a whole number (checked by the journal); "" removes it.
    static func pagesTotal(_ text: String) throws(CLIError) -> Int?? {
        try removableNumber(text, otherwise: "--pages-total takes a whole number of pages, such as 317")
    }

    /// A whole number, or nil for "" (what removes an edition's part in `book edit`).
    private static func removableNumber(_ text: String, otherwise message: String) throws(CLIError) -> Int?? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return .some(nil) }
        guard let number = Int(trimmed) else { throw .invalidValue(message) }
        return .some(number)
    }

    /// A page of a book for `--from-page` and `--to-page`, 0 or more.
    static func page(_ text: String) throws(CLIError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), (0...ReadingSession.maximumPages).contains(value) else {
            throw .invalidValue("a page is a whole number from 0 to \(ReadingSession.maximumPages)")
        }
        return value
    }

    /// A whole number of pages, 0 or more.
    static func pages(_ text: String) throws(CLIError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0,
              value <= ReadingSession.maximumPages else {
            throw .invalidValue("--pages takes a whole number from 0 to \(ReadingSession.maximumPages)")
        }
        return value
    }

    /// An Argon2id preset: `interactive`, `moderate` or `sensitive`.
    static func kdfStrength(_ text: String) throws(CLIError) -> KDFStrength {
        guard let strength = KDFStrength(rawValue: text.lowercased()) else {
            throw .invalidValue("--kdf takes interactive, moderate or sensitive")
        }
        return strength
    }

    /// Records per transaction for `rekey --batch-size`: 1 or more.
    static func batchSize(_ text: String) throws(CLIError) -> Int {
        guard let size = Int(text), size > 0 else { throw .invalidValue("--batch-size takes a positive whole number") }
        return size
    }

    /// DAYS for `remote retention`; the vault checks the range, and says it with the same words.
    static func days(_ text: String) throws(CLIError) -> Int {
        guard let days = Int(text) else { throw .invalidValue("DAYS must be a whole number of days from 1 to 3650") }
        return days
    }

    /// `on` or `off` (`remote files NAME on|off`), in any case.
    static func onOff(_ text: String) throws(CLIError) -> Bool {
        switch text.lowercased() {
        case "on": return true
        case "off": return false
        default: throw .invalidValue("say on or off")
        }
    }

    /// What `conflicts resolve` says without a valid `--keep`.
    static let conflictChoiceNeeded = "conflicts resolve needs --keep note, copy, both, mine or theirs"

    /// `conflicts resolve --keep`: `note`, `copy`, `both`, `mine` or `theirs`, in any case.
    /// The words of bmvault 0.6 and older, `local` and `remote`, meant different texts on
    /// different devices; they are refused, saying so.
    static func conflictKeep(_ text: String) throws(CLIError) -> ConflictKeep {
        let word = text.lowercased()
        if word == "local" || word == "remote" {
            throw .invalidValue("--keep \(word) is gone (it meant different texts on different devices): use note, copy, both, mine or theirs")
        }
        guard let keep = ConflictKeep(rawValue: word) else { throw .invalidValue(conflictChoiceNeeded) }
        return keep
    }

    /// `stats --year`: a year from 1900 to 2100.
    static func year(_ text: String) throws(CLIError) -> Int? {
        guard let year = Int(text.trimmingCharacters(in: .whitespaces)), (1900...2100).contains(year) else {
            throw .invalidValue("--year takes a year from 1900 to 2100")
        }
        return year
    }

    /// `list -n`: a whole number of entries, 1 or more.
    static func count(_ text: String) throws(CLIError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 else {
            throw .invalidValue("-n takes a whole number of entries, 1 or more")
        }
        return value
    }

    /// `list --sort`: `created`, `updated`, `book` or `locator`.
    static func listingOrder(_ text: String) throws(CLIError) -> ListingOrder {
        guard let order = ListingOrder(rawValue: text.lowercased()), order != .bookAdded else {
            throw .invalidValue("--sort takes created, updated, book or locator")
        }
        return order
    }

    /// A reading status for `book list --status`.
    static func status(_ text: String) throws(CLIError) -> ReadingStatus {
        guard let status = ReadingStatus(rawValue: text.lowercased()) else {
            throw .invalidValue("--status takes want-to-read, reading, finished or abandoned")
        }
        return status
    }

    /// The format `import --from` names.
    static func importFormat(_ text: String) throws(CLIError) -> ImportFormat {
        guard let format = ImportFormat(rawValue: text.lowercased()) else {
            throw .invalidValue("--from takes kindle, koreader, koreader-stats, kobo, device, calibre, readwise, jrnl, goodreads or bmvault")
        }
        return format
    }

    /// An annotation kind for `list --kind`.
    static func kind(_ text: String) throws(CLIError) -> AnnotationKind {
        guard let kind = AnnotationKind(rawValue: text.lowercased()) else {
            throw .invalidValue("--kind takes note or quote")
        }
        return kind
    }

    private static func timestamp(_ date: Date) -> Timestamp {
        Timestamp(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    private static func date(_ timestamp: Timestamp) -> Date {
        Date(timeIntervalSince1970: Double(timestamp.millisecondsSince1970) / 1000)
    }
}
