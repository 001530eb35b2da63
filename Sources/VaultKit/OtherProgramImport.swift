import Applier
internal import FileIO
public import Importers
public import Journal
import VaultStore
import VaultCrypto

/// What an import of another program's file did (or, a dry run, would do), book by book,
/// and what the file holds that was only counted: nothing it holds goes unmentioned.
public struct OtherProgramImportReport: Sendable {
    /// One book the file names, in the file's order.
    public struct BookLine: Sendable, Equatable {
        /// The title as the source writes it.
        public let title: String
        public let authors: [String]
        /// Whether this import added the book (else the vault had it: matched).
        public let isNew: Bool
        /// Quotes, notes and sessions added to it.
        public var added = JournalCounts()
        /// Records imported before that took a comment the source has since; sessions
        /// imported before that the file extends.
        public var updated = 0
        /// The pages of the reading sessions added (KOReader's statistics).
        public var pagesAdded = 0
        /// Records the vault has already (imported before, or the same text).
        public var alreadyThere = 0
        /// Whether the file moved the book's position forward, rated it or changed its
        /// reading status (a book the vault had; a new one takes them as it is added).
        public var progressed = false
        /// The reading status the file recorded for the book (Goodreads' shelf), and whether
        /// its day is known.
        public var recordedStatus: ReadingStatus?
        public var recordedDayKnown = true
        /// What of the book's records was not added, by where it is (never by its text).
        public var skipped: [Skipped] = []
    }

    /// A record of the file that was not added, and why: for `--verbose`.
    public struct Skipped: Sendable, Equatable {
        public enum Reason: String, Sendable {
            case alreadyThere = "already in the vault"
            case merged = "merged into the quote it repeats"
            case bookmark = "a bookmark (a progress hint)"
            case placeholder = "the clipping-limit placeholder"
            case empty = "no text"
            case removed = "removed in calibre"
        }

        /// The locator it would have had (`loc 12-14`, `p. 48 · Chapter V`), or `no location`.
        public let locator: String
        public let reason: Reason
    }

    public let format: ImportFormat
    public let dryRun: Bool
    public internal(set) var books: [BookLine] = []
    /// The Store's count of every change, books' progress, ratings and statuses included.
    public internal(set) var summary = ImportSummary()
    /// Clippings merged into the quote they repeat (a re-highlight, the same note saved twice).
    public internal(set) var merged = 0
    /// Page bookmarks: progress hints, not notes.
    public internal(set) var bookmarks = 0
    /// Kindle's placeholder for a highlight past the publisher's clipping limit.
    public internal(set) var placeholders = 0
    /// Highlights and notes without text.
    public internal(set) var empty = 0
    /// Sidecars read (KOReader), files otherwise.
    public internal(set) var files = 1
    /// Highlights the reader removed in the other program (calibre's `removed`): not imported.
    public internal(set) var removed = 0
    /// Goodreads books on a shelf of the reader's own (no reading status bmvault has).
    public internal(set) var ownShelves = 0
    /// KOReader's statistics: page turns read, and sessions shorter than the rules keep, or
    /// ending after the import's time (a device's clock ahead): counted only.
    public internal(set) var pageTurns = 0
    public internal(set) var tooShort = 0
    public internal(set) var inFuture = 0
    /// A Kobo's books never opened nor highlighted: counted only.
    public internal(set) var unopened = 0
}

extension Vault {
    /// Imports a Kindle's `My Clippings.txt`, a KOReader sidecar or folder of them, calibre's
    /// highlights, a Readwise export or a jrnl journal, in ONE
    /// transaction through the same import as an archive's (``Applier/ArchiveImport``, `Store.importArchive(dryRun:_:)`):
    /// each book found by the names the source gives it or added, each record added unless
    /// the vault holds its import key, every change with its outbox operation. All or
    /// nothing; a `dryRun` does the same work and rolls it back. `progress` hears, after each
    /// book, how many of the file's highlights and notes were taken in, of how many.
    ///
    /// `book` names the book (a BOOK reference) for the formats that do not: calibre's (it
    /// must be given) and jrnl's (else a book called Journal, found or added); refused for
    /// the others, whose files name their books.
    ///
    /// `sessions` are the rules by which KOReader's page turns become sessions (`--gap`,
    /// `--min-session`).
    public func importOtherProgram(at path: String, format: ImportFormat, dryRun: Bool, book reference: String? = nil,
                                   sessions rules: KOReaderStatistics.Rules = .standard,
                                   progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws(VaultError) -> OtherProgramImportReport {
        let store = try unlockedStore()
        var report = OtherProgramImportReport(format: format, dryRun: dryRun)
        if reference != nil, ![.calibre, .jrnl].contains(format) { throw .importBookNotAsked(format: format) }
        // The book named, looked up once the file has been read (a file that is not one
        // changes nothing, not even the title cache a lookup may rebuild).
        func named() throws(VaultError) -> Book? {
            try reference.map { (reference) throws(VaultError) in try book(named: reference) }
        }
        let now = clock.now()
        switch format {
        case .koreader where Self.filePrefix(at: path).map(KOReaderExport.isExport) == true:
            let export = try Self.importedFile(at: path) { (bytes) throws(ImportError) in try KOReaderExport.read(bytes) }
            let total = export.documents.reduce(0) { $0 + $1.entries.count }
            var done = 0
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    for document in export.documents {
                        report.books.append(try Self.importKOReaderExport(document, into: importer, at: now))
                        done += document.entries.count
                        progress(done, total)
                    }
                }
            }
            report.empty = export.documents.reduce(0) { $0 + $1.entries.filter { $0.highlight.text.allSatisfy(\.isWhitespace) }.count }
        case .kindle, .koreader, .koreaderStatistics, .kobo:
            // A device's folder given with `--from`: its file of that format.
            let file = try OtherProgramFile.read(at: ReadingDevice.place(of: format, in: path).map { path + "/" + $0 } ?? path,
                                                 format: format, rules: rules)
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    try file.importBooks(into: importer, report: &report, at: now) { progress($0, file.total) }
                }
            }
        case .calibre:
            let calibre = try Self.importedFile(at: path) { (bytes) throws(ImportError) in try CalibreHighlights.read(bytes) }
            guard let named = try named() else { throw .importNeedsBook(format: .calibre) }
            guard calibre.calibreBooks.count <= 1 else { throw .importSeveralBooks(count: calibre.calibreBooks.count) }
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    report.books.append(try Self.importCalibre(calibre, into: importer, book: named, at: now))
                    progress(calibre.highlights.count, calibre.highlights.count)
                }
            }
            (report.removed, report.empty) = (calibre.removed, calibre.other)
        case .readwise:
            let export = try Self.importedFile(at: path) { (bytes) throws(ImportError) in try ReadwiseExport.read(bytes) }
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    report.books = try Self.importReadwise(export, into: importer, at: now) { progress($0, export.highlights.count) }
                }
            }
            report.empty = export.empty
        case .jrnl:
            let journal = try Self.importedFile(at: path) { (bytes) throws(ImportError) in try JrnlExport.read(bytes) }
            let named = try named()
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    report.books.append(try Self.importJrnl(journal, into: importer, book: named, at: now))
                    progress(journal.entries.count, journal.entries.count)
                }
            }
        case .goodreads:
            let export = try Self.importedFile(at: path) { (bytes) throws(ImportError) in try GoodreadsExport.read(bytes) }
            var done = 0
            var days = GoodreadsDays()
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    for book in export.books {
                        report.books.append(try Self.importGoodreads(book, into: importer, days: &days, at: now))
                        if !GoodreadsExport.readingShelves.contains(book.shelf) { report.ownShelves += 1 }
                        done += 1
                        if done % 100 == 0 || done == export.books.count { progress(done, export.books.count) }
                    }
                }
            }
        case .bmvault, .device:
            // An archive is imported by ``importArchive(from:dryRun:force:)``, a device's
            // folder by ``importDevice(at:dryRun:sessions:progress:)``, never here.
            throw .notImportable(path: path)
        }
        return report
    }

    /// Reads another program's file with `read`, its errors the import's.
    private static func importedFile<T>(at path: String, _ read: ([UInt8]) throws(ImportError) -> T) throws(VaultError) -> T {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readRegularFile(at: path, limit: largestImportFile) } catch { throw .notImportable(path: path) }
        do { return try read(bytes) } catch { throw .importFile(error) }
    }

    // MARK: - Goodreads

    /// One row of a Goodreads export: the book (found by its Goodreads id or ISBN once
    /// recorded, else by title and authors, else added with its edition), its shelf as a
    /// reading status, and its rating when the book has none here. `read` with a Date Read is
    /// finished on that day; without one, finished on a day not known (placed at Date Added);
    /// `currently-reading` is reading since a day not known; `to-read` wanted since Date
    /// Added. A shelf of the reader's own is no status; it and every other shelf of the
    /// reader's own become the book's tags. `My Review` and `Private Notes` become notes.
    private static func importGoodreads(_ row: GoodreadsExport.Book, into importer: ArchiveImport, days: inout GoodreadsDays,
                                        at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let isbn = [row.isbn13, row.isbn].compactMap { $0 }.lazy.compactMap { try? Edition.checkedISBN($0) }.first
        let edition = Edition(isbn: isbn, year: row.yearPublished.flatMap { try? Edition.checkedYear($0) },
                              pages: row.pages.flatMap { try? Edition.checkedPages($0) })
        let source = ImportedBook(title: row.title, authors: row.authors,
                                  identifiers: ["goodreads:" + row.goodreadsID] + (isbn.map { ["isbn:" + $0] } ?? []), edition: edition)
        let added = row.dateAdded.flatMap { days.day($0) } ?? now
        let status: ImportedStatus? = switch row.shelf {
        case "read": row.dateRead.flatMap { days.day($0) }.map { ImportedStatus(.finished, on: $0, dayKnown: true) }
            ?? ImportedStatus(.finished, on: added, dayKnown: false)
        case "currently-reading": ImportedStatus(.reading, on: added, dayKnown: false)
        case "to-read": ImportedStatus(.wantToRead, on: added, dayKnown: true)
        default: nil
        }
        let outcome = try importer.book(for: source, reading: ImportedReading(rating: row.rating.map(Double.init), status: status))
        var line = OtherProgramImportReport.BookLine(title: row.title, authors: row.authors, isNew: outcome.isNew)
        if let recorded = outcome.reading?.status { (line.recordedStatus, line.recordedDayKnown) = (recorded.status, recorded.dayKnown) }
        line.progressed = outcome.reading != nil && !outcome.isNew
        // The reader's own writing: the review dated by the day they finished (else the day
        // they shelved it), the private notes a note of their own, each keyed by the book's
        // Goodreads id so a later export adds nothing twice.
        let written = row.dateRead.flatMap { days.day($0) } ?? added
        for (text, part) in [(row.review, "review"), (row.privateNotes, "private-notes")] {
            guard let text else { continue }
            let note = try imported(.note, text, comment: nil, locator: nil, key: "goodreads:\(row.goodreadsID):\(part)",
                                    book: outcome.id, at: written)
            count(try importer.addImported(note), note, into: &line)
        }
        // Shelves of the reader's own are tags of the book.
        let tags = row.shelves.compactMap(Tag.madeSafe)
        if !tags.isEmpty { try importer.addTags(tags, to: outcome.id, kind: .book) }
        return line
    }

    /// `2024/03/01` (Goodreads' dates) as that day's local midnight, each day worked out
    /// once per import: `mktime` reads the time zone again at every call, and a 20,000-row
    /// export holds a few thousand days.
    struct GoodreadsDays {
        private var known: [String: Timestamp?] = [:]

        mutating func day(_ text: String) -> Timestamp? {
            if let day = known[text] { return day }
            let parts = text.split(separator: "/").compactMap { Int($0) }
            let day = parts.count == 3
                ? LocalTimeText.timestamp(year: parts[0], month: parts[1], day: parts[2], hour: 0, minute: 0, second: 0) : nil
            known[text] = day
            return day
        }
    }

    // MARK: - calibre

    private static func importCalibre(_ calibre: CalibreHighlights, into importer: ArchiveImport, book: Book,
                                      at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        var line = OtherProgramImportReport.BookLine(title: book.title, authors: book.authors, isNew: false)
        for highlight in calibre.highlights {
            let at = highlight.timestamp.flatMap { try? Timestamp(iso8601: $0) } ?? now
            let annotation = try imported(.quote, highlight.text, comment: highlight.note, locator: highlight.chapter ?? "calibre highlight",
                                          key: "calibre:" + SHA256.hex(of: Array(highlight.uuid.utf8)), book: book.id, at: at)
            count(try importer.addImported(annotation), annotation, into: &line)
        }
        line.skipped += Array(repeating: .init(locator: "no location", reason: .removed), count: calibre.removed)
        return line
    }

    // MARK: - Readwise

    private static func importReadwise(_ export: ReadwiseExport, into importer: ArchiveImport, at now: Timestamp,
                                       progress: (Int) -> Void) throws -> [OtherProgramImportReport.BookLine] {
        var lines: [OtherProgramImportReport.BookLine] = []
        var lineOfBook: [String: Int] = [:]
        var done = 0
        for highlight in export.highlights {
            let source = ImportedBook(title: highlight.title, authors: highlight.author.map { [$0] } ?? [],
                                      identifiers: highlight.asin.map { ["asin:" + $0] } ?? [])
            let (bookID, isNew) = try importer.book(for: source)
            let index = lineOfBook[bookID.rawValue] ?? {
                lines.append(OtherProgramImportReport.BookLine(title: source.title, authors: source.authors, isNew: isNew))
                lineOfBook[bookID.rawValue] = lines.count - 1
                return lines.count - 1
            }()
            let at = highlight.highlightedAt.flatMap { try? Timestamp(iso8601: $0.replacingOccurrences(of: " ", with: "T")) } ?? now
            let annotation = try imported(.quote, highlight.text, comment: highlight.note, locator: highlight.locatorText,
                                          key: "readwise:" + highlight.naturalKey, book: bookID, at: at)
            let outcome = try importer.addImported(annotation)
            count(outcome, annotation, into: &lines[index])
            // Its tags come with a quote this import adds, made tag-safe (Readwise's may hold spaces).
            if outcome == .added {
                let tags = highlight.tags.compactMap(Tag.madeSafe)
                if !tags.isEmpty { try importer.addTags(tags, to: annotation.id, kind: .annotation) }
            }
            done += 1
            if done % 500 == 0 || done == export.highlights.count { progress(done) }
        }
        return lines
    }

    // MARK: - jrnl

    private static func importJrnl(_ journal: JrnlExport, into importer: ArchiveImport, book: Book?,
                                   at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let (bookID, isNew) = try book.map { ($0.id, false) } ?? importer.book(for: ImportedBook(title: "Journal", authors: []))
        var line = OtherProgramImportReport.BookLine(title: book?.title ?? "Journal", authors: book?.authors ?? [], isNew: isNew)
        for entry in journal.entries {
            let at = entry.localTime.flatMap { LocalTimeText.timestamp(year: $0.year, month: $0.month, day: $0.day, hour: $0.hour,
                                                                       minute: $0.minute, second: 0) } ?? now
            let annotation = try imported(.note, entry.text, comment: nil, locator: nil, key: "jrnl:" + entry.naturalKey, book: bookID, at: at)
            let outcome = try importer.addImported(annotation)
            count(outcome, annotation, into: &line)
            // Its tags come with a note this import adds (one a tag's rules refuse is left out).
            if outcome == .added {
                let tags = entry.tags.compactMap { try? Tag.checked($0) }
                if !tags.isEmpty { try importer.addTags(tags, to: annotation.id, kind: .annotation) }
            }
        }
        return line
    }

    // MARK: - Kindle

    static func importKindle(_ book: KindleImportPlan.Book, into importer: ArchiveImport,
                                     at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let source = ImportedBook(title: book.title, authors: book.author.map { [$0] } ?? [])
        let (bookID, isNew) = try importer.book(for: source)
        var line = OtherProgramImportReport.BookLine(title: book.title, authors: source.authors, isNew: isNew)
        func skip(_ clipping: KindleClipping, _ reason: OtherProgramImportReport.Skipped.Reason) {
            line.skipped.append(.init(locator: clipping.position.locatorText ?? "no location", reason: reason))
        }
        for quote in book.quotes {
            let comment = quote.comments.isEmpty ? nil : quote.comments.map(\.body).joined(separator: "\n\n")
            // Every quote has a locator: a clipping with neither page nor location gets one that says so.
            let annotation = try imported(.quote, quote.highlight.body, comment: comment,
                                          locator: quote.highlight.position.locatorText ?? "Kindle highlight",
                                          key: "kindle:" + quote.highlight.naturalKey, book: bookID,
                                          at: quote.highlight.rawDate.flatMap(KindleDate.timestamp) ?? now)
            // The shorter versions' keys too: a quote imported from one of them is this one.
            let earlierKeys = quote.replaced.map { "kindle:" + $0.naturalKey }
            count(try importer.addImported(annotation, earlierKeys: earlierKeys), annotation, into: &line)
            for replaced in quote.replaced { skip(replaced, .merged) }
        }
        for note in book.notes {
            let annotation = try imported(.note, note.body, comment: nil, locator: note.position.locatorText,
                                          key: "kindle:" + note.naturalKey, book: bookID, at: note.rawDate.flatMap(KindleDate.timestamp) ?? now)
            count(try importer.addImported(annotation), annotation, into: &line)
        }
        for bookmark in book.bookmarks { skip(bookmark, .bookmark) }
        line.skipped += Array(repeating: .init(locator: "no location", reason: .placeholder), count: book.clippingLimitPlaceholders)
        line.skipped += Array(repeating: .init(locator: "no location", reason: .empty), count: book.empty)
        return line
    }

    // MARK: - KOReader

    static func importKOReader(_ sidecar: KOReaderSidecar, from path: String, into importer: ArchiveImport,
                                       at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let title = sidecar.title ?? Self.koreaderBookName(path)
        let source = ImportedBook(title: title, authors: sidecar.authors, identifiers: sidecar.partialMD5.map { ["koreader:" + $0] } ?? [])
        // KOReader says where the reader stands, not since when: the import's day only places a status.
        let reading = ImportedReading(progress: sidecar.percentFinished, rating: sidecar.rating.map(Double.init),
                                      status: sidecar.readingStatus.map { ImportedStatus($0, on: now, dayKnown: false) })
        let outcome = try importer.book(for: source, reading: reading)
        let bookID = outcome.id
        var line = OtherProgramImportReport.BookLine(title: title, authors: sidecar.authors, isNew: outcome.isNew)
        line.progressed = outcome.reading != nil && !outcome.isNew
        for highlight in sidecar.highlights {
            guard !highlight.text.allSatisfy(\.isWhitespace) else {
                line.skipped.append(.init(locator: highlight.locatorText, reason: .empty))
                continue
            }
            let at = highlight.createdAt ?? now
            let annotation = try imported(.quote, highlight.text, comment: highlight.note, locator: highlight.locatorText,
                                          key: "koreader:" + highlight.naturalKey, book: bookID, at: at)
            count(try importer.addImported(annotation), annotation, into: &line)
        }
        return line
    }

    /// One book of KOReader's exporter JSON: its highlights as a sidecar's would be, keyed by
    /// the exporter's own key (a highlight read from both keeps one copy when its text, place
    /// and note are the same: the book holds that text already).
    private static func importKOReaderExport(_ document: KOReaderExport.Document, into importer: ArchiveImport,
                                             at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let title = document.title ?? "KOReader export"
        let authors = document.author.map { $0.split(separator: "\n").map(String.init) } ?? []
        let (bookID, isNew) = try importer.book(for: ImportedBook(title: title, authors: authors))
        var line = OtherProgramImportReport.BookLine(title: title, authors: authors, isNew: isNew)
        for entry in document.entries {
            let highlight = entry.highlight
            guard !highlight.text.allSatisfy(\.isWhitespace) else {
                line.skipped.append(.init(locator: highlight.locatorText, reason: .empty))
                continue
            }
            let annotation = try imported(.quote, highlight.text, comment: highlight.note, locator: highlight.locatorText,
                                          key: "koreader:" + highlight.naturalKey, book: bookID, at: entry.createdAt ?? now)
            count(try importer.addImported(annotation), annotation, into: &line)
        }
        return line
    }

    /// The book a sidecar without a title is about: its folder's name, `<book>.sdr`.
    private static func koreaderBookName(_ path: String) -> String {
        let folder = path.split(separator: "/").dropLast().last.map(String.init) ?? path
        return folder.hasSuffix(".sdr") ? String(folder.dropLast(4)) : folder
    }

    // MARK: - KOReader's statistics

    /// One book of KOReader's statistics: found by its partial MD5 (the name a sidecar of the
    /// same book records too), else by title and authors, else added with its pages when it
    /// has a session to keep; then each session through the one merge. A book whose
    /// sessions are all too short is not added (nil: no line).
    static func importKOReaderStatistics(_ book: KOReaderStatistics.Book, into importer: ArchiveImport,
                                                 report: inout OtherProgramImportReport,
                                                 at now: Timestamp) throws -> OtherProgramImportReport.BookLine? {
        // A device whose clock ran ahead: what ends after now is no session bmvault records.
        let sessions = book.sessions.filter { $0.endedAt <= now }
        report.inFuture += book.sessions.count - sessions.count
        guard !sessions.isEmpty else { return nil }
        let edition = Edition(isbn: nil, year: nil, pages: book.pages.flatMap { try? Edition.checkedPages($0) })
        let source = ImportedBook(title: book.title, authors: book.authors, identifiers: book.partialMD5.map { ["koreader:" + $0] } ?? [],
                                  edition: edition)
        let (bookID, isNew) = try importer.book(for: source)
        var line = OtherProgramImportReport.BookLine(title: book.title, authors: book.authors, isNew: isNew)
        for session in sessions {
            let incoming = ReadingSession(id: .generate(at: session.startedAt), bookID: bookID, startedAt: session.startedAt,
                                          endedAt: session.endedAt, pagesRead: session.pages, source: KOReaderStatistics.sessionSource)
            switch try importer.addImported(incoming) {
            case .added:
                line.added.sessions += 1
                line.pagesAdded += session.pages
            case .updated: line.updated += 1
            case .unchanged, .conflict, .duplicate: line.alreadyThere += 1
            }
        }
        return line
    }

    // MARK: - Kobo

    /// One book of a Kobo's database: found by the id Kobo gives it (kept as a name of the
    /// book), its ISBN, or title and author, else added; with its position, and its status
    /// (reading, finished) placed on the day Kobo gives; then its highlights as quotes, a
    /// note typed on one as its comment.
    static func importKobo(_ book: KoboDatabase.Book, into importer: ArchiveImport,
                                   at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let source = ImportedBook(title: book.title, authors: book.authors, identifiers: book.identifiers,
                                  edition: Edition(isbn: book.isbn, year: nil, pages: nil))
        let status = book.status.map { ImportedStatus($0, on: book.statusDay ?? now, dayKnown: book.statusDayKnown) }
        let outcome = try importer.book(for: source, reading: ImportedReading(progress: book.percentRead, status: status))
        var line = OtherProgramImportReport.BookLine(title: book.title, authors: book.authors, isNew: outcome.isNew)
        if let recorded = outcome.reading?.status { (line.recordedStatus, line.recordedDayKnown) = (recorded.status, recorded.dayKnown) }
        line.progressed = outcome.reading != nil && !outcome.isNew
        for highlight in book.highlights {
            let annotation = try imported(.quote, highlight.text, comment: highlight.note, locator: highlight.locatorText,
                                          key: highlight.importKey, book: outcome.id, at: highlight.createdAt ?? now)
            count(try importer.addImported(annotation), annotation, into: &line)
        }
        line.skipped += Array(repeating: .init(locator: "no location", reason: .bookmark), count: book.dogEars)
        line.skipped += Array(repeating: .init(locator: "no location", reason: .empty), count: book.withoutText)
        return line
    }

    // MARK: - Helpers

    /// A note or quote as a source gives it, checked as one typed here is.
    private static func imported(_ kind: AnnotationKind, _ body: String, comment: String?, locator: String?, key: String,
                                 book: EntityID, at time: Timestamp) throws(JournalError) -> Annotation {
        Annotation(id: .generate(at: time), bookID: book, kind: kind, body: try TextRules.body(body, field: kind.rawValue),
                   locator: try locator.map { (text) throws(JournalError) in try Locator(text) }, createdAt: time, updatedAt: time,
                   deletedAt: nil, version: 1,
                   comment: try comment.map { (text) throws(JournalError) in try TextRules.body(text, field: "comment") },
                   importKey: try TextRules.importKey(key))
    }

    private static func count(_ outcome: ImportOutcome, _ annotation: Annotation, into line: inout OtherProgramImportReport.BookLine) {
        switch outcome {
        case .added where annotation.kind == .quote: line.added.quotes += 1
        case .added: line.added.notes += 1
        case .updated: line.updated += 1
        case .unchanged, .conflict, .duplicate:
            line.alreadyThere += 1
            line.skipped.append(.init(locator: annotation.locator?.text ?? "no location", reason: .alreadyThere))
        }
    }
}
