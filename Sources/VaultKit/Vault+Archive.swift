import Applier
public import Archive
public import Journal
import Telemetry
import VaultStore

/// What `bmvault export` did.
public struct ExportReport: Sendable {
    public let archive: ArchiveSummary
    /// Records whose sealed fields did not open: reported by id, left out of the archive.
    public let unreadable: [UnreadableRecord]
    /// Live notes, quotes and sessions of deleted books, left out without `--include-deleted`
    /// (their book is not in the archive).
    public let leftOut: Int
    /// Book files listed, and (`withFiles`) the plain copies written under `files/`.
    public let filesListed: Int
    public let filesCopied: Int
    /// Book files `withFiles` could not copy (gone, damaged, or kept on another device), by
    /// id: listed without a copy.
    public let filesNotCopied: [EntityID]
}

/// What `bmvault import` did, or (a dry run) would do.
public struct ImportReport: Sendable {
    public let summary: ImportSummary
    public let dryRun: Bool
    public let formatVersion: Int
    /// True when there was no journal.json and everything came from the Markdown files.
    public let fromMarkdown: Bool
    /// Book Markdown files read because the reader edited them (or added them).
    public let editedMarkdownFiles: Int
    /// Files in books/ that are not a bmvault book, skipped.
    public let ignoredFiles: Int
}

extension Vault {
    /// Writes the journal as a plain-text archive at `destination` (which must not exist):
    /// journal.json, a Markdown file per live book, a README, the JSON Schema and a manifest
    /// (Docs/EXPORT-FORMAT.md). Everything is read in one snapshot and streamed, record by
    /// record, into a staging directory that becomes `destination` only when complete.
    /// `progress` hears how many notes and quotes were written so far. Each book's files
    /// are listed; `withFiles` also writes their plain copies under `files/`.
    ///
    /// One pass over every note and quote, in book order, feeds journal.json's notes and
    /// quotes sections (the quotes kept aside until the notes end) and the books' Markdown
    /// files, so each is decrypted once.
    public func exportArchive(to destination: String, includeDeleted: Bool, withFiles: Bool = false,
                              progress: (Int) -> Void = { _ in }) throws(VaultError) -> ExportReport {
        let store = try unlockedStore()
        let writer = try Self.archiveCall { () throws(ArchiveError) in
            try ArchiveWriter(destination: destination, includesDeleted: includeDeleted, generatorVersion: BuildInfo.version)
        }
        var unreadable: [UnreadableRecord] = []
        var leftOut = 0
        var filesListed = 0
        var bookFiles: ExportFileListings?
        let summary = try Self.archiveOrStoreCall {
            try store.withReadSnapshot {
                var exported = Set<EntityID>()
                var live: [Book] = []
                let bookTags = try store.read { tables throws(StoreError) in try tables.tags.shownByRecord(kind: .book) }
                let annotationTags = try store.read { tables throws(StoreError) in try tables.tags.shownByRecord(kind: .annotation) }
                var files = try ExportFileListings(store: store, withFiles: withFiles)
                var listings: [EntityID: [ArchiveBookFile]] = [:]
                writer.begin(.books)
                for result in try store.read({ tables throws(StoreError) in try tables.books.all(includeDeleted: includeDeleted) }) {
                    switch result {
                    case .success(let book):
                        let listing = try files.listing(of: book, store: store, writer: writer)
                        filesListed += listing.count
                        if !listing.isEmpty { listings[book.id] = listing }
                        writer.write(book, tags: bookTags[book.id] ?? [], files: listing)
                        exported.insert(book.id)
                        if book.deletedAt == nil { live.append(book) }
                    case .failure(let record):
                        unreadable.append(record)
                    }
                }
                // Sessions are few and small beside the notes: read once, for the books'
                // files and then for journal.json (about 8 MB at 40,000 sessions).
                var sessions: [ReadingSession] = []
                try store.read { tables throws(StoreError) in try tables.sessions.forEachLive { sessions.append($0) } }
                var written = 0
                bookFiles = files
                var markdown = ExportBookFiles(live, sessions: sessions, tags: bookTags, files: listings, writer: writer)
                writer.begin(.notes)
                try store.read { tables throws(StoreError) in try tables.annotations.forEach(AnnotationFilter(includeDeleted: includeDeleted)) { (result) throws(StoreError) in
                    switch result {
                    case .success(let annotation) where exported.contains(annotation.bookID):
                        writer.write(annotation, tags: annotationTags[annotation.id] ?? [])
                        written += 1
                        if written % 1000 == 0 { progress(written) }
                        if annotation.deletedAt == nil, markdown.open(annotation.bookID) { writer.addToBook(annotation) }
                    case .success:
                        leftOut += 1
                    case .failure(let record):
                        unreadable.append(record)
                    }
                } }
                markdown.finish()
                writer.begin(.sessions)
                for session in sessions {
                    if exported.contains(session.bookID) { writer.write(session) } else { leftOut += 1 }
                }
            }
            FaultInjection.reach("export:before-commit")
            return try writer.commit(exportedAt: clock.now())
        }
        log.notice("archive.exported", ["formatVersion": .integer(ArchiveFormat.currentVersion), "books": .integer(summary.counts.books),
                                        "sessions": .integer(summary.counts.sessions), "notes": .integer(summary.counts.notes),
                                        "quotes": .integer(summary.counts.quotes), "includesDeleted": .boolean(includeDeleted),
                                        "unreadable": .integer(unreadable.count), "files": .integer(filesListed),
                                        "filesCopied": .integer(bookFiles?.copied ?? 0), "filesNotCopied": .integer(bookFiles?.notCopied.count ?? 0)])
        return ExportReport(archive: summary, unreadable: unreadable, leftOut: leftOut, filesListed: filesListed,
                            filesCopied: bookFiles?.copied ?? 0, filesNotCopied: bookFiles?.notCopied ?? [])
    }

    /// Merges the archive at `path` (a directory, or a journal.json) into the vault in one
    /// transaction: all of it, or on any error nothing. Checks the format version and the
    /// manifest first (a differing file is an error unless `force`, except an edited book
    /// Markdown file); merges each record through the conflict policies sync uses (see
    /// ``ArchiveImport``); a record the vault already has as it is changes nothing. With
    /// `dryRun`, does everything and rolls it back.
    public func importArchive(from path: String, dryRun: Bool, force: Bool) throws(VaultError) -> ImportReport {
        let store = try unlockedStore()
        let reader = try Self.archiveCall { () throws(ArchiveError) in try ArchiveReader(path: path, force: force) }
        let now = clock.now()
        let summary = try Self.archiveOrStoreCall {
            try store.importArchive(dryRun: dryRun) { importer in
                // Books named before they appear (or never): the first record naming each.
                var missingBooks: [EntityID: (record: EntityID, origin: ArchiveRecordOrigin)] = [:]
                try reader.forEachRecord(now: now) { record, origin in
                    let id: EntityID
                    let bookID: EntityID?
                    let result: (outcome: ImportOutcome, bookKnown: Bool)
                    switch record {
                    case .book(let book):
                        (id, bookID) = (book.id, nil)
                        result = (try importer.add(book), true)
                        missingBooks[book.id] = nil
                    case .session(let session):
                        (id, bookID) = (session.id, session.bookID)
                        result = try importer.add(session)
                    case .annotation(let annotation):
                        (id, bookID) = (annotation.id, annotation.bookID)
                        result = try importer.add(annotation)
                    case .addition(let annotation):
                        (id, bookID) = (annotation.id, annotation.bookID)
                        result = try importer.addIfNew(annotation)
                    case .tags(let recordID, let kind, let names):
                        try importer.addTags(names, to: recordID, kind: kind)
                        return
                    case .bookFiles(let book, let files):
                        for file in files { try Self.importBookFile(file, of: book, from: reader, into: importer) }
                        return
                    }
                    if result.outcome == .duplicate {
                        throw ArchiveError.duplicateRecord(file: origin.file, line: origin.line, record: id.rawValue)
                    }
                    if !result.bookKnown, let bookID, missingBooks[bookID] == nil { missingBooks[bookID] = (id, origin) }
                }
                let first = missingBooks.min { ($0.value.origin.file, $0.value.origin.line) < ($1.value.origin.file, $1.value.origin.line) }
                if let (book, reference) = first, !(try importer.bookExists(book)) {
                    throw ArchiveError.unknownBook(file: reference.origin.file, line: reference.origin.line,
                                                   record: reference.record.rawValue, book: book.rawValue)
                }
            }
        }
        if !dryRun { cachedTitles = nil }   // books may have been added or renamed
        log.notice("archive.imported", ["formatVersion": .integer(reader.formatVersion), "source": .public(reader.source.rawValue),
                                        "dryRun": .boolean(dryRun), "added": .integer(summary.added.total),
                                        "updated": .integer(summary.updated.total), "unchanged": .integer(summary.unchanged),
                                        "conflicts": .integer(summary.conflicts)])
        return ImportReport(summary: summary, dryRun: dryRun, formatVersion: reader.formatVersion,
                            fromMarkdown: reader.source == .markdown, editedMarkdownFiles: reader.editedMarkdownFiles,
                            ignoredFiles: reader.ignoredFiles)
    }

    /// Re-attaches a book file the archive lists, from its plain copy when it holds one; a
    /// copy that is not the file listed is a damaged archive (nothing is imported).
    private static func importBookFile(_ file: ArchiveBookFile, of book: EntityID, from reader: ArchiveReader,
                                       into importer: ArchiveImport) throws {
        let imported = ImportedBookFile(id: file.id, book: book, format: file.format, size: file.size, checksum: file.sha256,
                                        metadata: encode(file.metadata.bookFileMetadata), locator: try file.locator.map { try Locator($0) },
                                        addedAt: file.addedAt, plainCopy: file.path.flatMap(reader.plainCopy(at:)))
        do throws(StoreError) {
            try importer.add(imported)
        } catch .fileChanged {
            throw ArchiveError.plainCopyDiffers(file: file.displayPath ?? ArchiveFormat.filesDirectory)
        } catch {
            throw error
        }
    }

    static func archiveCall<Result>(_ body: () throws(ArchiveError) -> Result) throws(VaultError) -> Result {
        do { return try body() } catch { throw .archive(error) }
    }

    /// For work that mixes the Store's and the archive's errors (and rethrows them as they are).
    static func archiveOrStoreCall<Result>(_ body: () throws -> Result) throws(VaultError) -> Result {
        do {
            return try body()
        } catch let error as ArchiveError {
            throw .archive(error)
        } catch let error as StoreError {
            throw .storage(error)
        } catch let error as VaultError {
            throw error
        } catch let error as JournalError {
            // A record another program's file holds that the journal's rules refuse (a text
            // past its limit, a title with a control character): the import changes nothing.
            throw .invalidInput(error)
        } catch {
            throw .storage(.database(code: 0, message: "unexpected \(type(of: error))"))
        }
    }
}
