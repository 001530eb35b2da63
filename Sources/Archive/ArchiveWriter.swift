public import Journal

/// What an export wrote.
public struct ArchiveSummary: Sendable, Equatable {
    public let path: String
    /// Records written to journal.json, by kind (tombstones included), and the tombstones.
    public let counts: JournalCounts
    public let deleted: JournalCounts
    /// Book Markdown files written (one per live book).
    public let markdownFiles: Int
    /// Staging directories of earlier exports to the same place, killed before they
    /// finished (plaintext), that this export removed.
    public let removedLeftovers: Int
}

/// Writes an archive of the current format into a staging directory beside `destination`,
/// and puts it in place only when every file is complete and on disk (``commit(exportedAt:)``).
///
/// The caller streams records in: journal.json by section (``begin(_:)``, then
/// ``write(_:)-(Book)`` and the others; quotes may come while the notes section is open, and
/// are kept aside until it closes), and each live book's Markdown file
/// (``beginBook(_:sessions:)``, ``addToBook(_:)``, ``finishBook()``), one book at a time but
/// at any point after the books section, so one pass over the notes and quotes in book
/// order can feed all of them. Nothing
/// but ``commit(exportedAt:)`` throws: the first I/O failure is kept and reported there,
/// and the staging directory is removed if the writer is dropped before it commits.
/// Files are created 0600 and directories 0700, so the plain-text journal is readable by
/// its owner only. Their bytes are hashed and written on a second thread (``BackgroundWriter``).
public final class ArchiveWriter {
    /// The arrays of journal.json, in the order they must be written.
    public enum Section: Sendable {
        case books, notes, quotes, sessions
    }

    private let staging: StagingDirectory
    private let background = BackgroundWriter()
    private let includesDeleted: Bool
    private let generatorVersion: String
    private var journal: JournalWriter?
    private var book: BookMarkdownWriter?
    /// Every file finished so far; their entries are read once the writer thread drains.
    private var finished: [FileSink] = []
    /// The first failure to create a file, or of the quotes kept aside (writes keep theirs
    /// in their ``FileSink``).
    private var failure: ArchiveError?
    /// The Markdown file name of each live book, given in the order the books are written
    /// to journal.json (oldest first), so a clash of names is settled the same way in
    /// every export, whatever order the files are written in.
    private var fileNames: [EntityID: String] = [:]
    private var takenNames = Set<String>()
    private var markdownFiles = 0
    /// The books written, for index.md.
    private var indexEntries: [ArchiveIndex.Entry] = []
    private var counts = JournalCounts()
    private var deleted = JournalCounts()
    private var madeFilesDirectory = false
    private var takenPlainCopyNames = Set<String>()
    /// The plain copies of book files written into `files/`, for the manifest.
    private var plainCopies: [ArchiveFileEntry] = []

    /// Refuses an existing `destination` before anything is written.
    public init(destination: String, includesDeleted: Bool, generatorVersion: String) throws(ArchiveError) {
        staging = try StagingDirectory(destination: destination)
        self.includesDeleted = includesDeleted
        self.generatorVersion = generatorVersion
        try staging.makeSubdirectory(ArchiveFormat.booksDirectory)
        journal = JournalWriter(file: try ArchiveFile(directory: staging.path, relativePath: ArchiveFormat.journalFile, writer: background),
                                includesDeleted: includesDeleted, directory: staging.path, writer: background)
    }

    deinit {
        // Nothing is still being written when the staging directory is removed.
        background.drain()
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

    /// `tags`: those the book shows (``Tag/shown(_:)``); `files`: its book files, oldest first.
    public func write(_ book: Book, tags: [String], files: [ArchiveBookFile] = []) {
        journal?.write(book, tags: tags, files: files)
        if book.deletedAt == nil { fileNames[book.id] = fileName(for: book) }
    }

    /// `tags`: those the note or quote shows (``Tag/shown(_:)``).
    public func write(_ annotation: Annotation, tags: [String]) { journal?.write(annotation, tags: tags) }
    public func write(_ session: ReadingSession) { journal?.write(session) }

    /// Closes journal.json.
    public func finishJournal() {
        guard let journal else { return }
        finished.append(journal.finish())
        if let error = journal.failure { failure = failure ?? error }
        counts = JournalCounts(books: journal.counts[.books] ?? 0, sessions: journal.counts[.sessions] ?? 0,
                               notes: journal.counts[.notes] ?? 0, quotes: journal.counts[.quotes] ?? 0)
        deleted = JournalCounts(books: journal.deleted[.books] ?? 0, notes: journal.deleted[.notes] ?? 0,
                                quotes: journal.deleted[.quotes] ?? 0)
        self.journal = nil
    }

    // MARK: - books/*.md

    /// Starts a live book's Markdown file, with its sessions in the order they started, its
    /// tags and its files.
    public func beginBook(_ book: Book, sessions: [ReadingSession], tags: [String], files: [ArchiveBookFile] = []) {
        precondition(self.book == nil, "book files are written one at a time")
        let name = fileNames[book.id] ?? fileName(for: book)
        markdownFiles += 1
        indexEntries.append(ArchiveIndex.Entry(title: book.title, authors: book.authors, status: book.readingLog.status, fileName: name))
        do {
            let file = try ArchiveFile(directory: staging.path, relativePath: "\(ArchiveFormat.booksDirectory)/\(name)",
                                       displayName: BookFileName.displayName(ofFile: name), writer: background)
            self.book = BookMarkdownWriter(file: file, book: book, sessions: sessions, tags: tags, files: files)
        } catch {
            failure = failure ?? error
        }
    }

    /// Adds a live note or quote to the book begun last, in reading order.
    public func addToBook(_ annotation: Annotation) { book?.write(annotation) }

    public func finishBook() {
        guard let book else { return }
        self.book = nil
        finished.append(book.finish())
    }

    /// A name no other book of this archive has.
    private func fileName(for book: Book) -> String {
        let name = BookFileName.name(for: book, taken: takenNames)
        takenNames.insert(name)
        return name
    }

    // MARK: - files/

    /// Where the plain copy of book file `id` (of `format`, attached to a book titled
    /// `bookTitle`) goes: `files/<slug>-<short id>.<format>`, unique in the archive.
    public func plainCopyPath(for id: EntityID, format: String, bookTitle: String) -> String {
        let name = BookFileName.plainCopyName(title: bookTitle, id: id, format: format, taken: takenPlainCopyNames)
        takenPlainCopyNames.insert(name)
        return ArchiveFormat.filesDirectory + "/" + name
    }

    /// The full path, in the staging directory, to write the plain copy at `relativePath`
    /// to (a new file the caller creates; `files/` is made on the first call).
    public func plainCopyDestination(_ relativePath: String) throws(ArchiveError) -> String {
        if !madeFilesDirectory {
            try staging.makeSubdirectory(ArchiveFormat.filesDirectory)
            madeFilesDirectory = true
        }
        return staging.path + "/" + relativePath
    }

    /// Lists a plain copy the caller wrote (and checked) in the manifest.
    public func addPlainCopy(_ relativePath: String, bytes: Int64, sha256: String) {
        plainCopies.append(ArchiveFileEntry(path: relativePath, bytes: bytes, sha256: sha256))
    }

    // MARK: - Completing

    /// Writes README.md, the schema and the manifest, puts everything on disk, and renames
    /// the staging directory to the destination. Throws the first failure of any file.
    public func commit(exportedAt: Timestamp) throws(ArchiveError) -> ArchiveSummary {
        finishJournal()
        finishBook()
        for (name, text) in [(ArchiveFormat.readmeFile, ArchiveReadme.text + "\n"), (ArchiveFormat.schemaFile, ArchiveSchema.current),
                             (ArchiveFormat.indexFile, ArchiveIndex.text(indexEntries))] {
            let file = try ArchiveFile(directory: staging.path, relativePath: name, writer: background)
            file.write(text)
            finished.append(file.finish())
        }
        background.drain()
        if let failure { throw failure }
        var entries: [ArchiveFileEntry] = plainCopies
        for sink in finished { entries.append(try sink.entry()) }
        let manifest = ArchiveManifest(formatVersion: ArchiveFormat.currentVersion, generatorVersion: generatorVersion,
                                       exportedAt: exportedAt, includesDeleted: includesDeleted, counts: counts, deleted: deleted,
                                       files: entries)
        let file = try ArchiveFile(directory: staging.path, relativePath: ArchiveFormat.manifestFile, writer: background)
        file.write(manifest.jsonText())
        let manifestSink = file.finish()
        background.drain()
        _ = try manifestSink.entry()
        try staging.commit()
        return ArchiveSummary(path: staging.destination, counts: counts, deleted: deleted, markdownFiles: markdownFiles,
                              removedLeftovers: staging.removedLeftovers)
    }
}
