public import Journal

/// What an export wrote.
public struct ArchiveSummary: Sendable, Equatable {
    public let path: String
    public let counts: ArchiveCounts
    /// Book Markdown files written (one per live book).
    public let markdownFiles: Int
}

/// Writes an archive of the current format into a staging directory beside `destination`,
/// and puts it in place only when every file is complete and on disk (``commit(exportedAt:)``).
///
/// The caller streams records in: first journal.json, by section (``begin(_:)``, then
/// ``write(_:)-(Book)`` and the others), then each live book's Markdown file
/// (``beginBook(_:sessions:)``, ``addToBook(_:)``, ``finishBook()``). Record writes never
/// throw; the first I/O failure is reported by the next call that can throw, and the
/// staging directory is removed if the writer is dropped before ``commit(exportedAt:)``.
/// Files are created 0600 and directories 0700, so the plain-text journal is readable by
/// its owner only.
public final class ArchiveWriter {
    /// The arrays of journal.json, in the order they must be written.
    public enum Section: Sendable {
        case books, notes, quotes, sessions
    }

    private let staging: StagingDirectory
    private let includesDeleted: Bool
    private let generatorVersion: String
    private var journal: JournalWriter?
    private var book: BookMarkdownWriter?
    private var entries: [ArchiveFileEntry] = []
    private var takenNames = Set<String>()
    private var counts = ArchiveCounts()

    /// Refuses an existing `destination` before anything is written.
    public init(destination: String, includesDeleted: Bool, generatorVersion: String) throws(ArchiveError) {
        staging = try StagingDirectory(destination: destination)
        self.includesDeleted = includesDeleted
        self.generatorVersion = generatorVersion
        try staging.makeSubdirectory(ArchiveFormat.booksDirectory)
        journal = JournalWriter(file: try ArchiveFile(directory: staging.path, relativePath: ArchiveFormat.journalFile),
                                includesDeleted: includesDeleted)
    }

    // MARK: - journal.json

    /// Starts a section of journal.json: books, notes, quotes, sessions, in that order.
    public func begin(_ section: Section) {
        switch section {
        case .books: journal?.begin(.books)
        case .notes: journal?.begin(.notes)
        case .quotes: journal?.begin(.quotes)
        case .sessions: journal?.begin(.sessions)
        }
    }

    public func write(_ book: Book) { journal?.write(book) }
    public func write(_ annotation: Annotation) { journal?.write(annotation) }
    public func write(_ session: ReadingSession) { journal?.write(session) }

    /// Closes journal.json.
    public func finishJournal() throws(ArchiveError) {
        guard let journal else { return }
        entries.append(try journal.finish())
        counts.books = journal.counts[.books] ?? 0
        counts.notes = journal.counts[.notes] ?? 0
        counts.quotes = journal.counts[.quotes] ?? 0
        counts.sessions = journal.counts[.sessions] ?? 0
        counts.deletedBooks = journal.deleted[.books] ?? 0
        counts.deletedNotes = journal.deleted[.notes] ?? 0
        counts.deletedQuotes = journal.deleted[.quotes] ?? 0
        self.journal = nil
    }

    // MARK: - books/*.md

    /// Starts a live book's Markdown file, with its sessions in the order they started.
    public func beginBook(_ book: Book, sessions: [ReadingSession]) throws(ArchiveError) {
        precondition(journal == nil && self.book == nil, "books are written after journal.json, one at a time")
        let name = BookFileName.name(for: book, taken: takenNames)
        takenNames.insert(name)
        let file = try ArchiveFile(directory: staging.path, relativePath: "\(ArchiveFormat.booksDirectory)/\(name)",
                                   displayName: BookFileName.displayName(ofFile: name))
        self.book = BookMarkdownWriter(file: file, book: book, sessions: sessions)
    }

    /// Adds a live note or quote to the book begun last, in reading order.
    public func addToBook(_ annotation: Annotation) { book?.write(annotation) }

    public func finishBook() throws(ArchiveError) {
        guard let book else { return }
        self.book = nil
        entries.append(try book.finish())
    }

    // MARK: - Completing

    /// Writes README.md, the schema and the manifest, flushes the directories, and renames
    /// the staging directory to the destination.
    public func commit(exportedAt: Timestamp) throws(ArchiveError) -> ArchiveSummary {
        try finishJournal()
        try finishBook()
        for (name, text) in [(ArchiveFormat.readmeFile, ArchiveReadme.text + "\n"), (ArchiveFormat.schemaFile, ArchiveSchema.v1)] {
            let file = try ArchiveFile(directory: staging.path, relativePath: name)
            file.write(text)
            entries.append(try file.finish())
        }
        let manifest = ArchiveManifest(formatVersion: ArchiveFormat.currentVersion, generatorVersion: generatorVersion,
                                       exportedAt: exportedAt, includesDeleted: includesDeleted, counts: counts, files: entries)
        let file = try ArchiveFile(directory: staging.path, relativePath: ArchiveFormat.manifestFile)
        file.write(manifest.jsonText())
        _ = try file.finish()
        try staging.commit(subdirectories: [ArchiveFormat.booksDirectory])
        return ArchiveSummary(path: staging.destination, counts: counts, markdownFiles: takenNames.count)
    }
}
