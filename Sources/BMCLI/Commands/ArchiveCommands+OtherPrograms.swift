import Journal
import VaultKit

/// What `bmvault import` says of another program's file: the same summary for a dry run
/// and a real one, a line per book, then what was added, updated, already there, merged and
/// only counted, so nothing the file holds goes unmentioned.
extension ArchiveCommands {
    /// `place`: the file's place on the reading device whose import it is part of (that
    /// import says once that a dry run changed nothing).
    static func humanSummary(_ report: OtherProgramImportReport, onDevice: Bool = false, place: String? = nil) -> String {
        let found = report.format == .koreader && report.files > 1 ? plural(report.files, "KOReader sidecar") : report.format.name
        let heading = onDevice ? (report.dryRun ? "Found " : "Imported ") + found + (place.map { " at " + HumanFormat.printable($0) } ?? "")
            : (report.dryRun ? "Dry run: nothing was changed. Found " : "Imported ") + found
        var text = heading + ": " + plural(report.books.count, "book") + ".\n"
        for book in report.books {
            var parts: [String] = []
            if book.added.quotes > 0 { parts.append(plural(book.added.quotes, "quote")) }
            if book.added.notes > 0 { parts.append(plural(book.added.notes, "note")) }
            if book.added.sessions > 0 { parts.append(plural(book.added.sessions, "session") + " (" + plural(book.pagesAdded, "page") + ")") }
            var what = parts.isEmpty ? "nothing new" : parts.joined(separator: " and ") + (report.dryRun ? " to add" : " added")
            if book.updated > 0 {
                what += report.format == .koreaderStatistics ? ", \(plural(book.updated, "session")) extended" : ", \(book.updated) with a newer comment"
            }
            if let status = book.recordedStatus {
                what += ", \(status.rawValue)" + (book.recordedDayKnown ? "" : " (day not known)")
            } else if book.progressed {
                what += report.dryRun ? ", its progress, rating or status to move" : ", its progress, rating or status moved"
            }
            if book.alreadyThere > 0 { what += ", \(book.alreadyThere) already in the vault" }
            let authors = book.authors.isEmpty ? "" : " — " + book.authors.map(HumanFormat.printable).joined(separator: ", ")
            text += "  \(HumanFormat.printable(book.title))\(authors)\(book.isNew ? " (new book)" : ""): \(what)\n"
        }
        let summary = report.summary
        if report.format == .koreaderStatistics { return text + sessionRows(report) }
        let rows = [
            (report.dryRun ? "Would add:" : "Added:", "\(plural(summary.added.books, "book")), \(plural(summary.added.quotes, "quote")), "
                + plural(summary.added.notes, "note")),
            (report.dryRun ? "Would update:" : "Updated:", "\(plural(report.books.filter(\.progressed).count, "book")) (progress, rating or status), "
                + "\(plural(summary.updated.quotes + summary.updated.notes, "quote or note", "quotes and notes")) (a newer comment)"),
            ("Already in the vault:", plural(summary.unchanged, "quote or note", "quotes and notes")),
        ] + (summary.tagsGiven == 0 ? [] : [(report.dryRun ? "Would tag:" : "Tagged:", plural(summary.tagsGiven, "tag"))])
            + countedOnly(report)
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows { text += label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value + "\n" }
        return text
    }

    /// The summary of KOReader's statistics: sessions and their pages, not quotes.
    private static func sessionRows(_ report: OtherProgramImportReport) -> String {
        let summary = report.summary
        let pages = report.books.reduce(0) { $0 + $1.pagesAdded }
        let rows = [
            (report.dryRun ? "Would add:" : "Added:", "\(plural(summary.added.books, "book")), \(plural(summary.added.sessions, "session")) (\(plural(pages, "page")))"),
            (report.dryRun ? "Would update:" : "Updated:", "\(plural(summary.updated.sessions, "session")) (extended by a later copy of the file)"),
            ("Already in the vault:", plural(summary.unchanged, "session")),
            ("Counted only:", "\(plural(report.tooShort, "session")) too short, \(plural(report.inFuture, "session")) ending in the future, "
                + "from \(plural(report.pageTurns, "page turn"))"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }

    /// What the file holds that is only counted, in the words of its format.
    private static func countedOnly(_ report: OtherProgramImportReport) -> [(String, String)] {
        let withoutText = plural(report.empty, "highlight or note", "highlights and notes") + " without text"
        switch report.format {
        case .kindle:
            return [(report.dryRun ? "Would merge:" : "Merged:", "\(plural(report.merged, "clipping")) into the quote it repeats (a re-highlight, a note saved twice)"),
                    ("Counted only:", "\(plural(report.bookmarks, "bookmark")) (progress hints), "
                        + "\(plural(report.placeholders, "clipping-limit placeholder")), \(withoutText)")]
        case .koreader:
            return [("Counted only:", "\(plural(report.bookmarks, "page bookmark")) (progress hints), \(withoutText)")]
        case .calibre:
            return [("Counted only:", "\(plural(report.removed, "highlight")) removed in calibre, "
                        + "\(plural(report.empty, "bookmark or empty highlight", "bookmarks and empty highlights"))")]
        case .readwise:
            return [("Counted only:", plural(report.empty, "row", "rows") + " without highlighted text")]
        case .goodreads:
            return [("Counted only:", "\(plural(report.ownShelves, "book")) on shelves of your own (no reading status; the shelf is a tag)")]
        case .kobo:
            return [("Counted only:", "\(plural(report.unopened, "book")) never opened on the device, "
                        + "\(plural(report.bookmarks, "dog-ear")) (progress hints), \(withoutText)")]
        case .jrnl, .bmvault, .koreaderStatistics, .device:
            return []
        }
    }

    /// `--verbose`: every record not added, book by book, by where it is (its locator), never
    /// by its text. On standard output, as the titles are (standard error never shows content).
    static func skippedListing(_ report: OtherProgramImportReport) -> String {
        var text = ""
        for book in report.books where !book.skipped.isEmpty {
            text += "Not added from \(HumanFormat.printable(book.title)):\n"
            for skipped in book.skipped { text += "  \(HumanFormat.printable(skipped.locator)): \(skipped.reason.rawValue)\n" }
        }
        return text
    }

    /// `import --json` of another program's file, documented in Docs/CLI.md.
    struct OtherProgramDocument: Encodable {
        struct BookDocument: Encodable {
            let title: String, authors: [String], new: Bool, added: JournalCounts, updated: Int, alreadyThere: Int, progressed: Bool
            /// bmvault 0.19, KOReader's statistics: the pages of the sessions added.
            let pagesAdded: Int
            /// The reading status the file recorded (Goodreads), and whether its day is known.
            let status: String?, dayKnown: Bool
            /// With `--verbose`: what was not added, by locator and reason.
            let skipped: [SkippedDocument]?
        }

        struct SkippedDocument: Encodable {
            let locator: String, reason: String
        }

        let format: String, dryRun: Bool
        let books: [BookDocument]
        let added: JournalCounts, updated: JournalCounts, alreadyThere: Int
        let merged: Int, bookmarks: Int, placeholders: Int, empty: Int
        /// calibre's highlights the reader removed there; Goodreads books on shelves of one's own.
        let removed: Int, ownShelves: Int
        /// bmvault 0.19: the tags given (Goodreads' shelves of the reader's own to books,
        /// Readwise's tags to the quotes an import adds).
        let tagsGiven: Int
        /// bmvault 0.19: KOReader's page turns, its sessions too short or ending in the
        /// future; a Kobo's books never opened.
        let pageTurns: Int, tooShort: Int, inFuture: Int, unopened: Int

        init(_ report: OtherProgramImportReport, listingSkipped: Bool) {
            format = report.format.rawValue
            dryRun = report.dryRun
            books = report.books.map {
                BookDocument(title: $0.title, authors: $0.authors, new: $0.isNew, added: $0.added, updated: $0.updated,
                             alreadyThere: $0.alreadyThere, progressed: $0.progressed, pagesAdded: $0.pagesAdded,
                             status: $0.recordedStatus?.rawValue, dayKnown: $0.recordedDayKnown,
                             skipped: listingSkipped ? $0.skipped.map { SkippedDocument(locator: $0.locator, reason: $0.reason.rawValue) } : nil)
            }
            added = report.summary.added
            updated = report.summary.updated
            alreadyThere = report.summary.unchanged
            (merged, bookmarks, placeholders, empty, removed) = (report.merged, report.bookmarks, report.placeholders, report.empty, report.removed)
            ownShelves = report.ownShelves
            tagsGiven = report.summary.tagsGiven
            (pageTurns, tooShort, inFuture, unopened) = (report.pageTurns, report.tooShort, report.inFuture, report.unopened)
        }
    }
}
