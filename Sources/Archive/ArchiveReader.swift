import Dispatch
internal import FileIO
public import Journal
import Synchronization
import VaultCrypto

/// Opens an archive for import and hands out its records one at a time.
///
/// `init` does every check that needs no vault, before anything is merged: the format and
/// version (a newer one is refused, naming both), and every file against the manifest's
/// size and SHA-256. A differing book Markdown file is an edit; any other difference is an
/// error unless `force`. It also decides where records come from: journal.json (with the
/// books whose Markdown was edited read from their Markdown), or, without journal.json,
/// the Markdown files alone.
public final class ArchiveReader {
    public enum Source: String, Sendable {
        case journal
        case markdown
    }

    /// The format version of what is read.
    public let formatVersion: Int
    public let source: Source
    /// Book Markdown files read because they differ from the manifest (or are not in it).
    public var editedMarkdownFiles: Int { source == .journal ? markdownFiles.count : 0 }
    /// Files in books/ that are not a bmvault book (no `bmvault-archive` front matter): skipped.
    public private(set) var ignoredFiles = 0

    private let journalPath: String?
    /// The archive's folder: where its plain copies of book files are.
    private let directory: String
    /// Whether journal.json is the path the reader typed (which may be a link), not a file
    /// inside an archive folder (which may not).
    private var journalIsTyped = false
    /// journal.json against the manifest, checked while its records are read.
    private var journalCheck: BackgroundChecksum?
    /// Full path and display name of each Markdown file to read, in name order.
    private var markdownFiles: [(path: String, name: String)] = []

    public init(path: String, force: Bool) throws(ArchiveError) {
        guard let status = try? FileSystem.status(path) else { throw .notFound(path: path) }
        guard status.kind == .directory else {
            journalPath = path
            // The typed journal.json's folder: ".", "/" or the part before its last "/".
            directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            journalIsTyped = true
            source = .journal
            formatVersion = try Self.journalVersion(path: path, file: ArchiveFormat.journalFile, followingLinks: true)
            return
        }
        let directory = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.directory = directory
        let journal = directory + "/" + ArchiveFormat.journalFile
        let manifestPath = directory + "/" + ArchiveFormat.manifestFile
        var edited = Set<String>()
        var listed = Set<String>()
        var manifestVersion: Int?
        if FileSystem.exists(manifestPath) {
            let manifest = try ArchiveManifest.read(path: manifestPath)
            manifestVersion = manifest.formatVersion
            listed = Set(manifest.files.map(\.path))
            // No journal.json: the Markdown is the archive. With `force` it need not match.
            // Entries are numbered from 1 in the manifest's order, for a message that names one.
            let numbered = manifest.files.enumerated().map { (number: $0.offset + 1, entry: $0.element) }
            if let journalEntry = numbered.first(where: { $0.entry.path == ArchiveFormat.journalFile }), FileSystem.exists(journal), !force {
                journalCheck = BackgroundChecksum(path: journal, entry: journalEntry.entry, number: journalEntry.number)
            }
            // index.md is shown, never read: a reader's note tool may rewrite it freely.
            let others = numbered.filter { $0.entry.path != ArchiveFormat.journalFile && $0.entry.path != ArchiveFormat.indexFile }
            for ((number, entry), result) in zip(others, Self.matchAll(others.map(\.entry), in: directory)) {
                let matches = try result.get()
                if entry.path.hasPrefix(ArchiveFormat.booksDirectory + "/") && entry.path.hasSuffix(".md") {
                    if matches == false { edited.insert(entry.path) }
                } else if matches != true && !force {
                    throw .checksumMismatch(entry: number)
                }
            }
        }
        let books = directory + "/" + ArchiveFormat.booksDirectory
        if (try? FileSystem.status(books, followingLinks: false))?.kind == .symbolicLink {
            throw .malformed(file: ArchiveFormat.booksDirectory, line: 1, reason: "a link where the archive's folder belongs; nothing inside an archive is followed")
        }
        var bookFiles: [(path: String, name: String)] = []
        for name in Self.entries(of: books) where name.hasSuffix(".md") {
            let relative = ArchiveFormat.booksDirectory + "/" + name
            let full = books + "/" + name
            guard Self.isBookFile(full) else {
                ignoredFiles += 1
                continue
            }
            bookFiles.append((full, BookFileName.displayName(ofFile: name)))
            if !listed.contains(relative) { edited.insert(relative) }
        }
        if FileSystem.exists(journal) {
            journalPath = journal
            source = .journal
            do {
                formatVersion = try Self.journalVersion(path: journal, file: ArchiveFormat.journalFile)
            } catch {
                try journalCheck?.verify()   // a damaged journal.json is reported as such
                throw error
            }
            markdownFiles = bookFiles.filter { file in edited.contains { directory + "/" + $0 == file.path } }
        } else {
            guard !bookFiles.isEmpty else { throw .notAnArchive(path: path) }
            journalPath = nil
            source = .markdown
            formatVersion = manifestVersion ?? ArchiveFormat.currentVersion
            markdownFiles = bookFiles
        }
    }

    /// The full path of the plain copy of a book file the archive lists at `path`
    /// (``ArchiveBookFile/path``, already checked to be in `files/`): nil when the archive
    /// does not hold it as a regular file (a link is never followed out of an archive).
    public func plainCopy(at path: String) -> String? {
        let full = directory + "/" + path
        guard (try? FileSystem.status(directory + "/" + ArchiveFormat.filesDirectory, followingLinks: false))?.kind == .directory,
              (try? FileSystem.status(full, followingLinks: false))?.kind == .regular else { return nil }
        return full
    }

    // MARK: - Records

    /// Hands every record to `body`, books before what belongs to them where the archive
    /// allows. Throws ``ArchiveError`` for what is malformed, or what `body` throws; but
    /// first, whatever happened, ``ArchiveError/checksumMismatch(entry:)`` if journal.json
    /// differs from the manifest (checked meanwhile on another thread), so nothing of a
    /// damaged archive is kept. `now` dates the notes a reader added to a Markdown file.
    public func forEachRecord(now: Timestamp, _ body: (ArchiveRecord, ArchiveRecordOrigin) throws -> Void) throws {
        do {
            try readRecords(now: now, body)
        } catch {
            try journalCheck?.verify()
            throw error
        }
        try journalCheck?.verify()
    }

    private func readRecords(now: Timestamp, _ body: (ArchiveRecord, ArchiveRecordOrigin) throws -> Void) throws {
        // Edited books: read first, to take the place of their records in journal.json.
        var edits: [MarkdownBook] = []
        var editedAnnotations: [EntityID: (annotation: MarkdownAnnotation, file: String, used: Bool)] = [:]
        var editedBooks: [EntityID: Int] = [:]
        if source == .journal {
            for file in markdownFiles {
                let book = try BookMarkdownReader.read(path: file.path, displayName: file.name)
                guard editedBooks[book.book.id] == nil else {
                    throw ArchiveError.duplicateRecord(file: book.file, line: 1, record: book.book.id.rawValue)
                }
                editedBooks[book.book.id] = edits.count
                for annotation in book.annotations {
                    guard let id = annotation.id, editedAnnotations[id] == nil else {
                        throw ArchiveError.duplicateRecord(file: book.file, line: annotation.line, record: annotation.id?.rawValue ?? "")
                    }
                    editedAnnotations[id] = (annotation, book.file, false)
                }
                edits.append(book)
            }
        }
        var booksSeen = Set<EntityID>()
        var sessionsSeen = Set<EntityID>()
        if let journalPath {
            try readJournal(journalPath) { record, origin in
                switch record {
                case .book(var book):
                    if let index = editedBooks[book.id] {
                        let edited = edits[index].book
                        book.title = edited.title
                        book.authors = edited.authors
                        book.progress = edited.progress
                        booksSeen.insert(book.id)
                        try body(.book(book), ArchiveRecordOrigin(file: edits[index].file, line: 1))
                        return
                    }
                    try body(record, origin)
                case .annotation(var annotation):
                    guard let edit = editedAnnotations[annotation.id] else { return try body(record, origin) }
                    editedAnnotations[annotation.id]?.used = true
                    annotation.body = edit.annotation.body
                    annotation.locator = edit.annotation.locator
                    annotation.comment = edit.annotation.comment
                    if annotation.kind == .quote, annotation.locator == nil {
                        throw ArchiveError.missingField(file: edit.file, line: edit.annotation.line, record: annotation.id.rawValue, field: "locator")
                    }
                    try body(.annotation(annotation), ArchiveRecordOrigin(file: edit.file, line: edit.annotation.line))
                case .session(let session):
                    if !edits.isEmpty { sessionsSeen.insert(session.id) }
                    try body(record, origin)
                case .addition, .tags, .bookFiles:
                    try body(record, origin)
                }
            }
        }
        if source == .journal {
            for book in edits {
                try emit(book, skipBook: booksSeen.contains(book.book.id), skipSessions: sessionsSeen,
                         skipAnnotations: { editedAnnotations[$0]?.used == true }, now: now, body)
            }
        } else {
            for file in markdownFiles {
                let book = try BookMarkdownReader.read(path: file.path, displayName: file.name)
                try emit(book, skipBook: false, skipSessions: [], skipAnnotations: { _ in false }, now: now, body)
            }
        }
    }

    /// The records of one book's Markdown file that journal.json did not already give.
    private func emit(_ book: MarkdownBook, skipBook: Bool, skipSessions: Set<EntityID>, skipAnnotations: (EntityID) -> Bool,
                      now: Timestamp, _ body: (ArchiveRecord, ArchiveRecordOrigin) throws -> Void) throws {
        let file = book.file
        if !skipBook { try body(.book(book.book), ArchiveRecordOrigin(file: file, line: 1)) }
        for (session, line) in book.sessions where !skipSessions.contains(session.id) {
            try body(.session(session), ArchiveRecordOrigin(file: file, line: line))
        }
        for annotation in book.annotations {
            guard let id = annotation.id, !skipAnnotations(id) else { continue }
            let record = id.rawValue
            guard let created = annotation.createdAt else { throw ArchiveError.missingField(file: file, line: annotation.line, record: record, field: "created") }
            guard let updated = annotation.updatedAt else { throw ArchiveError.missingField(file: file, line: annotation.line, record: record, field: "updated") }
            guard let version = annotation.version else { throw ArchiveError.missingField(file: file, line: annotation.line, record: record, field: "version") }
            try body(.annotation(Annotation(id: id, bookID: book.book.id, kind: annotation.kind, body: annotation.body, locator: annotation.locator,
                                            createdAt: created, updatedAt: updated, deletedAt: nil, version: version,
                                            conflictOf: annotation.conflictOf, conflictReason: annotation.conflictReason,
                                            comment: annotation.comment, importKey: annotation.importKey)),
                     ArchiveRecordOrigin(file: file, line: annotation.line))
        }
        for addition in book.additions {
            try body(.addition(Annotation(id: .generate(at: now), bookID: book.book.id, kind: addition.kind, body: addition.body,
                                          locator: addition.locator, createdAt: now, updatedAt: now, deletedAt: nil, version: 1)),
                     ArchiveRecordOrigin(file: file, line: addition.line))
        }
    }

    // MARK: - journal.json

    /// Streams journal.json's records (version 1) to `body`, in file order. They are parsed
    /// on another thread (``BackgroundRecords``) while `body` merges the ones before them.
    private func readJournal(_ path: String, _ body: (ArchiveRecord, ArchiveRecordOrigin) throws -> Void) throws {
        let followingLinks = journalIsTyped
        let records = BackgroundRecords { emit throws(ArchiveError) in try Self.parseJournal(path, followingLinks: followingLinks, emit) }
        defer { records.stop() }
        while let batch = try records.next() {
            for (record, origin) in batch { try body(record, origin) }
        }
    }

    /// Parses journal.json (version 1), handing each record to `emit` in file order, until
    /// the end or until `emit` returns false.
    private static func parseJournal(_ path: String, followingLinks: Bool, _ emit: BackgroundRecords.Emit) throws(ArchiveError) {
        let file = ArchiveFormat.journalFile
        let reader = try JSONStreamReader(path: path, displayName: file, followingLinks: followingLinks)
        let records = JournalReader(file: file)
        try reader.beginObject()
        // Each top-level member once: a second `notes` (or `archive`) would otherwise be read
        // as well, or not at all, depending on the reader.
        var seen = Set<String>()
        while let key = try reader.nextKey() {
            guard seen.insert(key).inserted else {
                let known = ["archive", "books", "sessions", "notes", "quotes"].contains(key)
                throw .malformed(file: file, line: reader.line,
                                 reason: "the top-level member \(known ? "\"\(key)\"" : "of an unknown name") appears twice")
            }
            let kind: AnnotationKind?
            switch key {
            case "books", "sessions": kind = nil
            case "notes": kind = .note
            case "quotes": kind = .quote
            default:
                try reader.skipValue()   // `archive` (read before) or a member a newer bmvault added
                continue
            }
            try reader.beginArray()
            while try reader.nextElement() {
                let line = try reader.lineOfNextValue()
                let value = try reader.readValue()
                let origin = ArchiveRecordOrigin(file: file, line: line)
                let record: ArchiveRecord
                var tagged: (EntityID, TaggedKind)?
                if let kind {
                    let annotation = try records.annotation(value, kind: kind, line: line)
                    record = .annotation(annotation)
                    tagged = (annotation.id, .annotation)
                } else if key == "books" {
                    let book = try records.book(value, line: line)
                    record = .book(book)
                    tagged = (book.id, .book)
                } else {
                    record = .session(try records.session(value, line: line))
                }
                guard emit(record, origin) else { return }
                if let (id, kind) = tagged {
                    let names = try records.tags(value, line: line)
                    if !names.isEmpty { guard emit(.tags(recordID: id, kind: kind, names: names), origin) else { return } }
                    if kind == .book {
                        let files = try records.bookFiles(value, line: line)
                        if !files.isEmpty { guard emit(.bookFiles(bookID: id, files: files), origin) else { return } }
                    }
                }
            }
        }
        try reader.finish()
    }

    /// The format version in journal.json's `archive` header, wherever in the object it is
    /// (first, as bmvault writes it; a tool may have moved it).
    private static func journalVersion(path: String, file: String, followingLinks: Bool = false) throws(ArchiveError) -> Int {
        let reader = try JSONStreamReader(path: path, displayName: file, followingLinks: followingLinks)
        try reader.beginObject()
        while let key = try reader.nextKey() {
            guard key == "archive" else {
                try reader.skipValue()
                continue
            }
            let line = try reader.lineOfNextValue()
            let header = try reader.readValue()
            guard header["format"]?.stringValue == ArchiveFormat.name else { throw .notAnArchive(path: file) }
            guard let version = header["formatVersion"]?.integerValue.flatMap({ Int(exactly: $0) }) else {
                throw .missingField(file: file, line: line, record: nil, field: "archive.formatVersion")
            }
            try ArchiveFormat.checkReadable(version, file: file)
            return version
        }
        throw .notAnArchive(path: file)
    }

    // MARK: - Files

    /// Whether each file matches its manifest entry (nil when it is missing), in order,
    /// hashed on every core: the books' files decide what is read from Markdown, so all of
    /// them are needed before the first record (2,000 of them take a third of a second on one).
    private static func matchAll(_ entries: [ArchiveFileEntry], in directory: String) -> [Result<Bool?, ArchiveError>] {
        let results = Mutex<[Result<Bool?, ArchiveError>]>(Array(repeating: .success(nil), count: entries.count))
        DispatchQueue.concurrentPerform(iterations: entries.count) { index in
            let entry = entries[index]
            let result = Result { () throws(ArchiveError) -> Bool? in try matches(directory + "/" + entry.path, entry) }
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0 }
    }

    /// Whether a file matches its manifest entry: nil when it is missing.
    static func matches(_ path: String, _ entry: ArchiveFileEntry) throws(ArchiveError) -> Bool? {
        guard let status = try? FileSystem.status(path, followingLinks: false) else { return nil }
        guard status.kind == .regular, status.size == entry.bytes else { return false }
        // A book's file is named in errors by its short id: its name holds words of the title.
        let name = BookFileName.displayName(ofArchivePath: entry.path)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: [.noFollow])
        } catch where error.operation == .type {
            // What was opened, not what the path named a moment before, must be a regular file.
            return false
        } catch {
            throw .io(error, path: name)
        }
        defer { try? descriptor.close() }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do { count = try descriptor.read(into: &buffer) } catch { throw .io(error, path: name) }
            if count == 0 { break }
            hasher.update(buffer[0..<count])
        }
        return hasher.finalizeHex() == entry.sha256
    }

    /// A Markdown file that starts with a front matter holding `bmvault-archive:`.
    private static func isBookFile(_ path: String) -> Bool {
        guard let bytes = try? FileBytes(path: path, displayName: path) else { return false }
        guard let first = try? bytes.nextLine(), String(decoding: first, as: UTF8.self).trimmingCharacters(in: " \u{FEFF}\t\r") == "---" else {
            return false
        }
        for _ in 0..<64 {
            guard let line = try? bytes.nextLine() else { return false }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("---") { return false }
            if text.hasPrefix(ArchiveFormat.markdownVersionKey + ":") { return true }
        }
        return false
    }

    /// Names in `directory` in byte order (the same in every locale); none when it cannot be read.
    private static func entries(of directory: String) -> [String] {
        ((try? FileSystem.entries(of: directory)) ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
