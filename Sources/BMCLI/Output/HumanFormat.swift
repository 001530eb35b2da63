import Foundation
import Journal
import VaultKit

/// The plain-text forms of records, for people at a terminal.
///
/// Every piece of journal text passes through ``printable(_:)``: a note imported from
/// elsewhere could hold terminal escape sequences, and printing them raw would let a
/// note rewrite the screen. JSON output escapes them instead.
enum HumanFormat {
    /// How a line shows a record's id: its short id (``RecordNames``) for a person.
    typealias IDNaming = (EntityID) -> String

    /// `text` with control characters shown as their Unicode control pictures (ESC as ␛),
    /// keeping line breaks and tabs.
    static func printable(_ text: String) -> String {
        guard containsControl(text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if !needsPicture(scalar) {
                scalars.append(scalar)
            } else if scalar.value < 0x20, let picture = Unicode.Scalar(0x2400 + scalar.value) {
                scalars.append(picture)
            } else if scalar.value == 0x7F {
                scalars.append("\u{2421}")
            } else {
                scalars.append("\u{FFFD}")
            }
        }
        return String(scalars)
    }

    /// A control character (general category Cc) other than a line break or a tab. Cc is
    /// U+0000–U+001F and U+007F–U+009F, and Unicode's stability policy keeps that set fixed.
    static func needsPicture(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether any scalar of `text` ``needsPicture(_:)``, read from its UTF-8 bytes.
    /// why bytes: this runs over every note listed, and asking each scalar its category
    /// cost more than the rest of the listing.
    private static func containsControl(_ text: String) -> Bool {
        var afterC2 = false
        for byte in text.utf8 {
            switch byte {
            case 0x0A, 0x09: break
            case ..<0x20, 0x7F: return true
            case 0x80...0x9F where afterC2: return true  // U+0080–U+009F is C2 80 ... C2 9F
            default: break
            }
            afterC2 = byte == 0xC2
        }
        return false
    }

    /// `2026-12-02 10:07` in the local time zone (``LocalTimeText``).
    static func localTime(_ timestamp: Timestamp) -> String {
        LocalTimeText.minute(timestamp)
    }

    /// `42%`, or `42.5%` when not whole: to a tenth (a page of a long book is a fraction).
    static func percent(_ value: Double) -> String {
        LocalTimeText.percent(value)
    }

    /// A book's position: `p. 120 of 317 (37.9%)` when its number of pages is known, else
    /// as ``percent(_:)`` gives it.
    static func position(_ book: Book) -> String {
        guard let pages = book.edition.pages, let page = book.edition.page(atPercent: book.progress) else {
            return percent(book.progress)
        }
        return "p. \(page) of \(pages) (\(percent(book.progress)))"
    }

    /// A book's edition on one line: `ISBN 9780156027328, 1961, 317 pages`, each part only
    /// when known (nil when none is).
    static func edition(_ edition: Edition) -> String? {
        let parts = [edition.isbn.map { "ISBN \($0)" }, edition.year.map(String.init), edition.pages.map { "\($0) pages" }]
            .compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// One line per book: id, progress, title and authors, then `[status, rating]` when
    /// there are any, then what the reader did with it (`12 notes, 3 sessions, last read
    /// 2026-12-01`) when anything.
    static func bookLine(_ book: Book, activity: BookActivity = BookActivity(), tags: [String] = [], name: IDNaming) -> String {
        let authors = book.authors.isEmpty ? "" : " — " + printable(book.authors.joined(separator: ", "))
        let shelf = [book.readingLog.status?.rawValue, book.rating.map(stars)].compactMap { $0 }
        var done = [(activity.notes, "note"), (activity.quotes, "quote"), (activity.sessions, "session")]
            .filter { $0.0 > 0 }.map { counted([$0]) }
        if let last = activity.lastSession { done.append("last read \(localDate(last))") }
        let shown = percent(book.progress)
        let column = shown + String(repeating: " ", count: max(0, 6 - shown.count))
        return "\(name(book.id))  \(column) \(printable(book.title))\(authors)"
            + (shelf.isEmpty ? "" : "  [\(shelf.joined(separator: ", "))]") + (done.isEmpty ? "" : "  · " + done.joined(separator: ", "))
            + tagList(tags) + "\n"
    }

    /// `  #fiction #to-reread`: the tags of a line, or nothing.
    static func tagList(_ tags: [String]) -> String {
        tags.isEmpty ? "" : "  " + tags.map { "#" + printable($0) }.joined(separator: " ")
    }

    /// `4.5/5`, `4/5`.
    static func stars(_ rating: Double) -> String {
        (rating.rounded() == rating ? String(Int(rating)) : String(rating)) + "/5"
    }

    /// A local date, `2026-12-05`.
    static func localDate(_ timestamp: Timestamp) -> String {
        String(localTime(timestamp).prefix(10))
    }

    /// One line per session: id, local start and end (the end's date only when it is
    /// another day), duration, pages (with where an import found it: `(koreader)`) and the
    /// book's title.
    static func sessionLine(_ listing: SessionListing, name: IDNaming) -> String {
        let session = listing.session
        let start = localTime(session.startedAt), end = localTime(session.endedAt)
        let endShown = start.prefix(10) == end.prefix(10) ? String(end.dropFirst(11)) : end
        let pages = (session.pagesRead == 1 ? "1 page" : "\(session.pagesRead) pages") + sourceSuffix(session)
        return "\(name(session.id))  \(start)–\(endShown)  \(duration(from: session.startedAt, to: session.endedAt))  \(pages)  "
            + printable(listing.bookTitle ?? "(title unreadable)") + "\n"
    }

    /// ` (koreader)` for a session an import recorded, nothing for one typed.
    static func sourceSuffix(_ session: ReadingSession) -> String {
        session.source.map { " (\($0))" } ?? ""
    }

    /// `1 h 30 min`, `45 min`, or `0 min`, whole minutes (``LocalTimeText``).
    static func duration(from start: Timestamp, to end: Timestamp) -> String {
        LocalTimeText.duration(from: start, to: end)
    }

    /// `1 h 30 min`, `45 min`.
    static func duration(minutes: Int) -> String {
        LocalTimeText.duration(minutes: minutes)
    }

    /// A header line (id, kind, date, book, locator), then the body indented four spaces,
    /// the reader's comment on it (if any) below it, then a blank line.
    static func annotationBlock(_ listing: AnnotationListing, highlights: [Range<String.Index>] = [], name: IDNaming,
                                style: TerminalStyle = .plain) -> String {
        let comment = listing.annotation.comment.map { "\n" + indentedPrintable(printable("Comment: " + $0)) } ?? ""
        return annotationHeader(listing, name: name, style: style) + "\n" + indentedPrintable(marked(listing.annotation.body, highlights))
            + comment + "\n\n"
    }

    /// `text` made ``printable(_:)``, with each of `ranges` (of `text`, in order, on one
    /// line each) in bold and underlined by terminal escapes, which are added after the
    /// text is made printable so that none can come from the text.
    static func marked(_ text: String, _ ranges: [Range<String.Index>]) -> String {
        guard !ranges.isEmpty else { return printable(text) }
        var shown = ""
        var rest = text.startIndex
        for range in ranges {
            shown += printable(String(text[rest..<range.lowerBound])) + "\u{1B}[1;4m" + printable(String(text[range])) + "\u{1B}[0m"
            rest = range.upperBound
        }
        return shown + printable(String(text[rest...]))
    }

    /// The first line of ``annotationBlock(_:)``: id, kind, time, book, locator, mark.
    private static func annotationHeader(_ listing: AnnotationListing, name: IDNaming, style: TerminalStyle) -> String {
        let annotation = listing.annotation
        let created = localTime(annotation.createdAt), edited = localTime(annotation.updatedAt)
        var header = "\(name(annotation.id))  \(style.kind(annotation.kind, annotation.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)))  \(created)"
        if edited != created { header += " (edited \(edited))" }
        if let title = listing.bookTitle { header += "  \(printable(title))" }
        if let locator = annotation.locator { header += " · \(printable(locator.text))" }
        header += tagList(listing.tags)
        switch annotation.conflictReason {
        case .bothEdited?: header += "  " + style.attention("[conflict copy of \(annotation.conflictOf.map(name) ?? "?")]")
        case .editedAfterDelete?: header += "  " + style.attention("[edited after it was deleted elsewhere]")
        case nil: break
        }
        return header
    }

    /// A conflict for `bmvault conflicts`: the flagged record's header, then each side with
    /// the device that wrote it and when, and which side `--keep mine` names here.
    static func conflictBlock(_ conflict: ConflictListing, name: IDNaming, style: TerminalStyle = .plain) -> String {
        let sides = conflict.sides
        var block = annotationHeader(conflict.listing, name: name, style: style) + "\n"
        block += "  in the note" + located(sides.note) + ", " + written(sides.note, here: conflict.noteWrittenHere) + ":\n"
            + (sides.note.text.map { indented($0) + "\n" } ?? "    —\n") + commented(sides.note)
        switch sides.reason {
        case .bothEdited:
            block += "  in this copy" + located(sides.other) + ", " + written(sides.other, here: conflict.otherWrittenHere) + ":\n"
                + (sides.other.text.map { indented($0) + "\n" } ?? "    —\n") + commented(sides.other)
        case .editedAfterDelete:
            block += "  deleted, " + written(sides.other, here: conflict.otherWrittenHere) + "\n"
        }
        switch (conflict.mine, sides.reason) {
        case (.note?, .bothEdited): block += "  --keep mine keeps the note's text, theirs the copy's.\n"
        case (.other?, .bothEdited): block += "  --keep mine keeps the copy's text, theirs the note's.\n"
        case (.note?, .editedAfterDelete): block += "  --keep mine keeps the note, theirs lets the deletion stand.\n"
        case (.other?, .editedAfterDelete): block += "  --keep mine lets the deletion stand, theirs keeps the note.\n"
        default: break
        }
        return block + "\n"
    }

    /// `by device 3f2a9c0e (this device), 2026-12-04 18:40`.
    private static func written(_ side: ConflictSides.Side, here: Bool) -> String {
        var text = side.deviceID.map { "by device \($0.prefix(8))" + (here ? " (this device)" : "") } ?? "by a device not known"
        if let at = side.at { text += ", " + localTime(at) }
        return text
    }

    /// ` at p. 12`: a side's locator, so sides that differ only there are told apart.
    private static func located(_ side: ConflictSides.Side) -> String {
        side.locator.map { " at " + printable($0.text) } ?? ""
    }

    /// A side's comment below its text, so sides that differ only there are told apart.
    private static func commented(_ side: ConflictSides.Side) -> String {
        side.comment.map { indented("Comment: " + $0) + "\n" } ?? ""
    }

    /// Every line of `text` indented by four spaces, empty ones left empty. A line feed is
    /// always a grapheme of its own (and a carriage return has become ␍), so splitting the
    /// bytes at 0x0A splits where the characters would, without reading them as characters.
    private static func indented(_ text: String) -> String {
        indentedPrintable(printable(text))
    }

    /// Each line of `text`, already printable, indented by four spaces.
    private static func indentedPrintable(_ text: String) -> String {
        var block = ""
        for (index, line) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { block += "\n" }
            if !line.isEmpty { block += "    " + Substring(line) }
        }
        return block
    }

    /// `1 book, 2 notes`: counts with their nouns, singular where it is one.
    /// `812 bytes`, `1.2 MB`, `203.4 MB`, `1.1 GB`: a file's size, in decimal units as `ls -h --si`.
    static func fileSize(_ bytes: Int64) -> String {
        guard bytes >= 1000 else { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    static func counted(_ counts: [(Int, String)]) -> String {
        counts.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
    }

    /// A labelled field for `show`; the value is made ``printable(_:)``.
    static func field(_ label: String, _ value: String) -> String {
        (label + ":").padding(toLength: 10, withPad: " ", startingAt: 0) + printable(value) + "\n"
    }
}
