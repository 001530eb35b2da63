public import Importers
public import Journal
public import VaultStore

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
        /// Quotes and notes added to it.
        public var added = JournalCounts()
        /// Records imported before that took a comment the source has since.
        public var updated = 0
        /// Records the vault has already (imported before, or the same text).
        public var alreadyThere = 0
        /// Whether the file moved the book's position forward, rated it or changed its
        /// reading status (a book the vault had; a new one takes them as it is added).
        public var progressed = false
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
}

extension Vault {
    /// Imports a Kindle's `My Clippings.txt`, or a KOReader sidecar or folder of them, in ONE
    /// transaction through the same import as an archive's (``Store/importArchive(dryRun:_:)``):
    /// each book found by the names the source gives it or added, each record added unless
    /// the vault holds its import key, every change with its outbox operation. All or
    /// nothing; a `dryRun` does the same work and rolls it back. `progress` hears, after each
    /// book, how many of the file's highlights and notes were taken in, of how many.
    public func importOtherProgram(at path: String, format: ImportFormat, dryRun: Bool,
                                   progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws(VaultError) -> OtherProgramImportReport {
        let store = try unlockedStore()
        var report = OtherProgramImportReport(format: format, dryRun: dryRun)
        switch format {
        case .kindle:
            let plan = try Self.kindleImportPlan(at: path)
            let now = clock.now()
            let total = plan.totals.quotes + plan.totals.notes
            var done = 0
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    for book in plan.books {
                        report.books.append(try Self.importKindle(book, into: importer, at: now))
                        done += book.quotes.count + book.notes.count
                        progress(done, total)
                    }
                }
            }
            let totals = plan.totals
            (report.merged, report.bookmarks, report.placeholders, report.empty) =
                (totals.replaced + totals.repeatedNotes, totals.bookmarks, totals.placeholders, totals.empty)
        case .koreader:
            var paths = Self.koreaderSidecars(under: path)
            if paths.isEmpty { paths = [path] }
            var sidecars: [(sidecar: KOReaderSidecar, path: String)] = []
            for path in paths { sidecars.append((try Self.koreaderSidecar(at: path), path)) }
            report.files = sidecars.count
            let now = clock.now()
            let total = sidecars.reduce(0) { $0 + $1.sidecar.highlights.count }
            var done = 0
            report.summary = try Self.archiveOrStoreCall {
                try store.importArchive(dryRun: dryRun) { importer in
                    for (sidecar, path) in sidecars {
                        report.books.append(try Self.importKOReader(sidecar, from: path, into: importer, at: now))
                        done += sidecar.highlights.count
                        progress(done, total)
                    }
                }
            }
            report.bookmarks = sidecars.reduce(0) { $0 + $1.sidecar.bookmarks }
            report.empty = sidecars.reduce(0) { $0 + $1.sidecar.highlights.filter { $0.text.allSatisfy(\.isWhitespace) }.count }
        case .bmvault, .goodreads:
            throw .importNotBuilt(format: format)
        }
        return report
    }

    // MARK: - Kindle

    private static func importKindle(_ book: KindleImportPlan.Book, into importer: ArchiveImport,
                                     at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let source = ImportedBook(title: book.title, authors: book.author.map { [$0] } ?? [])
        let (bookID, isNew) = try importer.book(for: source)
        var line = OtherProgramImportReport.BookLine(title: book.title, authors: source.authors, isNew: isNew)
        func skip(_ clipping: KindleClipping, _ reason: OtherProgramImportReport.Skipped.Reason) {
            line.skipped.append(.init(locator: clipping.position.locatorText ?? "no location", reason: reason))
        }
        for quote in book.quotes {
            let comment = quote.comments.isEmpty ? nil : quote.comments.map(\.body).joined(separator: "\n\n")
            let annotation = try imported(.quote, quote.highlight.body, comment: comment, locator: quote.highlight.position.locatorText,
                                          key: "kindle:" + quote.highlight.naturalKey, book: bookID,
                                          at: quote.highlight.rawDate.flatMap(KindleDate.timestamp) ?? now)
            count(try importer.addImported(annotation), annotation, into: &line)
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

    private static func importKOReader(_ sidecar: KOReaderSidecar, from path: String, into importer: ArchiveImport,
                                       at now: Timestamp) throws -> OtherProgramImportReport.BookLine {
        let title = sidecar.title ?? Self.koreaderBookName(path)
        let source = ImportedBook(title: title, authors: sidecar.authors, identifiers: sidecar.partialMD5.map { ["koreader:" + $0] } ?? [])
        let (bookID, isNew) = try importer.book(for: source)
        var line = OtherProgramImportReport.BookLine(title: title, authors: sidecar.authors, isNew: isNew)
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
        var moved = false
        if let percent = sidecar.percentFinished { moved = try importer.raiseProgress(of: bookID, to: percent) || moved }
        if let rating = sidecar.rating { moved = try importer.rateIfUnrated(bookID, stars: Double(rating)) || moved }
        if let status = sidecar.readingStatus { moved = try importer.recordStatus(status, of: bookID, on: now) || moved }
        line.progressed = moved && !isNew
        return line
    }

    /// The book a sidecar without a title is about: its folder's name, `<book>.sdr`.
    private static func koreaderBookName(_ path: String) -> String {
        let folder = path.split(separator: "/").dropLast().last.map(String.init) ?? path
        return folder.hasSuffix(".sdr") ? String(folder.dropLast(4)) : folder
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
