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
        let text = raw.lowercased()
        let bytes = Array(text.utf8)
        guard let time = timeOfDay(in: bytes) else { return nil }
        guard let date = cjkDate(in: text) ?? westernDate(in: String(decoding: bytes[..<time.start], as: UTF8.self)) else { return nil }
        if text.containsBytes("greenwich mean time") || text.hasSuffix(" gmt") || text.hasSuffix(" utc") {
            return utc(year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute, second: time.second)
        }
        return LocalTimeText.timestamp(year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute,
                                       second: time.second)
    }

    // MARK: - Time of day

    /// The last `H:MM` or `H:MM:SS` of the text (its UTF-8 bytes, lowercased), on a 24-hour
    /// clock: a morning or afternoon mark after it, or just before it (`pm`, `p. m.`, `下午`,
    /// `午後`), moves it. Scanned by hand: this runs for every clipping of a file of tens of
    /// thousands.
    private static func timeOfDay(in text: [UInt8]) -> (hour: Int, minute: Int, second: Int, start: Int)? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.lowerBound >= 0, range.upperBound <= text.count, !range.isEmpty else { return nil }
            var value = 0
            for byte in text[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        var found: (hour: Int, minute: Int, second: Int, start: Int, end: Int)?
        for colon in text.indices where text[colon] == UInt8(ascii: ":") {
            guard let minute = number(colon + 1..<colon + 3) else { continue }
            let twoDigitHour = number(colon - 2..<colon)
            guard let hour = twoDigitHour ?? number(colon - 1..<colon) else { continue }
            let start = colon - (twoDigitHour == nil ? 1 : 2)
            // The minutes' colon of `12:11:21` is the hours' of `11:21`: the first match wins there.
            if let previous = found, start < previous.end { continue }
            var second = 0, end = colon + 3
            if end < text.count, text[end] == UInt8(ascii: ":"), let seconds = number(colon + 4..<colon + 6) { (second, end) = (seconds, colon + 6) }
            found = (hour, minute, second, start, end)
        }
        guard let (foundHour, minute, second, start, end) = found else { return nil }
        var hour = foundHour
        let after = text[end...], before = text[..<start]
        func marked(_ marks: [String]) -> Bool {
            marks.contains { mark in
                let pattern = Array(mark.utf8)
                return before.suffix(pattern.count).elementsEqual(pattern) || after.indices.contains { after[$0...].starts(with: pattern) }
            }
        }
        if marked(["pm", "p. m.", "p.m.", "下午", "午後"]), hour < 12 { hour += 12 }
        if marked(["am", "a. m.", "a.m.", "上午", "午前"]), hour == 12 { hour = 0 }
        guard hour < 24, minute < 60, second <= 60 else { return nil }
        return (hour, minute, second, start)
    }

    // MARK: - Dates

    /// `2020年5月11日` (Chinese and Japanese).
    private static func cjkDate(in text: String) -> (year: Int, month: Int, day: Int)? {
        guard let yearMark = text.firstByteRange(of: "年"), let monthMark = text[yearMark.upperBound...].firstByteRange(of: "月"),
              let dayMark = text[monthMark.upperBound...].firstByteRange(of: "日") else { return nil }
        func digits(before end: String.Index, from start: String.Index) -> Int? {
            let run = text.utf8[start..<end].reversed().prefix { (0x30...0x39).contains($0) }
            return run.isEmpty ? nil : Int(String(decoding: run.reversed(), as: UTF8.self))
        }
        guard let year = digits(before: yearMark.lowerBound, from: text.startIndex),
              let month = digits(before: monthMark.lowerBound, from: yearMark.upperBound),
              let day = digits(before: dayMark.lowerBound, from: monthMark.upperBound) else { return nil }
        return (year, month, day)
    }

    /// A month's name and two numbers, in either order: `11 May 2020`, `March 13, 2021`,
    /// `11. Mai 2020`, `2 de novembro de 2019`, `3 December 12` (a two-digit year, 2000s).
    private static func westernDate(in text: String) -> (year: Int, month: Int, day: Int)? {
        // Words by bytes: an ASCII byte that is no letter or digit separates; every byte of a
        // non-ASCII character (`é`, `ç`) belongs to a word.
        let words = text.utf8.split { $0 < 0x80 && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
            && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.map { Substring($0) }
        guard let month = words.lazy.compactMap({ monthNumber[String($0)] }).first else { return nil }
        let numbers = words.compactMap { Int($0) }
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
