public import Journal

/// The moment a Kindle's date says (`Added on Monday, 11 May 2020 01:09:56`), in the UI
/// languages Kindle writes (English of both sides of the Atlantic, German, French, Spanish,
/// Italian, Portuguese, Chinese, Japanese) and the 2011-2013 firmware forms (a two-digit
/// year, `Greenwich Mean Time`). The device writes its local time without a zone: it is read
/// in this machine's. Only when the record was made, for the journal's dates: a record's
/// identity never depends on it (``KindleClipping/naturalKey``).
public enum KindleDate {
    /// Nil when the text holds no day, month, year and time that make a date: the import
    /// then dates the record by when it ran.
    public static func timestamp(_ raw: String) -> Timestamp? {
        let text = Array(raw.lowercased())
        guard let time = timeOfDay(in: text) else { return nil }
        let date = cjkDate(in: text) ?? westernDate(in: String(text[..<time.start]))
        guard let date else { return nil }
        let lowered = String(text)
        if lowered.contains("greenwich mean time") || lowered.hasSuffix(" gmt") || lowered.hasSuffix(" utc") {
            return utc(year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute, second: time.second)
        }
        return LocalTimeText.timestamp(year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute,
                                       second: time.second)
    }

    // MARK: - Time of day

    /// The last `H:MM` or `H:MM:SS` of the text, on a 24-hour clock: a morning or afternoon
    /// mark after it, or just before it (`PM`, `p. m.`, `下午`, `午後`), moves it. Scanned by
    /// hand: this runs for every clipping of a file of tens of thousands.
    private static func timeOfDay(in text: [Character]) -> (hour: Int, minute: Int, second: Int, start: Int)? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.lowerBound >= 0, range.upperBound <= text.count, text[range].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(String(text[range]))
        }
        var found: (hour: Int, minute: Int, second: Int, start: Int, end: Int)?
        for colon in text.indices where text[colon] == ":" {
            guard let minute = number(colon + 1..<colon + 3) else { continue }
            let twoDigitHour = number(colon - 2..<colon)
            guard let hour = twoDigitHour ?? number(colon - 1..<colon) else { continue }
            let start = colon - (twoDigitHour == nil ? 1 : 2)
            // The minutes' colon of `12:11:21` is the hours' of `11:21`: the first match wins there.
            if let previous = found, start < previous.end { continue }
            var second = 0, end = colon + 3
            if colon + 3 < text.count, text[colon + 3] == ":", let seconds = number(colon + 4..<colon + 6) { (second, end) = (seconds, colon + 6) }
            found = (hour, minute, second, start, end)
        }
        guard var (hour, minute, second, start, end) = found else { return nil }
        let after = String(text[end...]), before = String(text[..<start])
        let afternoon = ["pm", "p. m.", "p.m.", "下午", "午後"].contains { after.contains($0) || before.hasSuffix($0) }
        let morning = ["am", "a. m.", "a.m.", "上午", "午前"].contains { after.contains($0) || before.hasSuffix($0) }
        if afternoon, hour < 12 { hour += 12 }
        if morning, hour == 12 { hour = 0 }
        guard hour < 24, minute < 60, second <= 60 else { return nil }
        return (hour, minute, second, start)
    }

    // MARK: - Dates

    /// `2020年5月11日` (Chinese and Japanese).
    private static func cjkDate(in text: [Character]) -> (year: Int, month: Int, day: Int)? {
        guard let yearMark = text.firstIndex(of: "年"), let monthMark = text[yearMark...].firstIndex(of: "月"),
              let dayMark = text[monthMark...].firstIndex(of: "日") else { return nil }
        let digits = { (range: Range<Int>) in Int(String(text[range].reversed().prefix { $0.isASCII && $0.isNumber }.reversed())) }
        guard let year = digits(0..<yearMark), let month = digits(yearMark + 1..<monthMark),
              let day = digits(monthMark + 1..<dayMark) else { return nil }
        return (year, month, day)
    }

    /// A month's name and two numbers, in either order: `11 May 2020`, `March 13, 2021`,
    /// `11. Mai 2020`, `2 de novembro de 2019`, `3 December 12` (a two-digit year, 2000s).
    private static func westernDate(in text: String) -> (year: Int, month: Int, day: Int)? {
        let words = text.split { !$0.isLetter && !$0.isNumber }
        guard let month = words.lazy.compactMap({ monthNumber[String($0)] }).first else { return nil }
        let numbers = words.filter { $0.allSatisfy(\.isNumber) }.compactMap { Int($0) }
        guard numbers.count >= 2 else { return nil }
        let pair = Array(numbers.suffix(2))
        let (day, year): (Int, Int)
        if pair[1] >= 1000 || pair[0] < 1000 && pair[1] > 31 {
            (day, year) = (pair[0], pair[1])
        } else if pair[0] >= 1000 {
            (day, year) = (pair[1], pair[0])
        } else {
            (day, year) = (pair[0], pair[1])   // `3 December 12`: day first, then the year
        }
        return (year < 100 ? 2000 + year : year, month, day)
    }

    /// Month names as Kindle writes them, in every language read here (lowercased).
    private static let monthNumber: [String: Int] = {
        let names = [
            ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"],
            ["januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"],
            ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"],
            ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"],
            ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"],
            ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"],
        ]
        var table: [String: Int] = ["jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                                    "oct": 10, "nov": 11, "dec": 12, "setiembre": 9]
        for language in names { for (index, name) in language.enumerated() { table[name] = index + 1 } }
        return table
    }()

    /// The moment a UTC date and time names (days from the civil calendar, as in
    /// Howard Hinnant's `days_from_civil`); nil for a day the month does not have.
    private static func utc(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Timestamp? {
        let lengths = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...lengths[month - 1]).contains(day) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Timestamp(millisecondsSince1970: Int64(((days * 24 + hour) * 60 + minute) * 60 + min(second, 59)) * 1000)
    }
}
