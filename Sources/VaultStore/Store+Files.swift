public import FileIO
public import Journal
import Telemetry
import VaultCrypto

/// A book file's content (schema v17, `file`): one per distinct SHA-256.
public struct FileContent: Sendable, Equatable {
    public let id: EntityID
    /// `epub`, `mobi`, `azw3` or `pdf`.
    public let format: String
    public let size: Int64
    /// The SHA-256 of the plaintext, 64 hex digits: identical content is recognised by it.
    public let checksum: String
    /// What the file says of itself (title, creators, identifiers...), as JSON.
    public let metadata: String
    /// True when the vault's file store holds it, encrypted.
    public let isStored: Bool
    /// Where it lies on ``deviceID``, when it was added with `--link`.
    public let link: FileLink?
    /// The device that added it: a link is only meaningful there.
    public let deviceID: String
    public let createdAt: Timestamp
}

/// A device-local handle to a book file left where it lies: its path, and the mtime it had
/// when last hashed (a file whose mtime moved is hashed again).
public struct FileLink: Sendable, Equatable {
    public let path: String
    public let modifiedMilliseconds: Int64

    public init(path: String, modifiedMilliseconds: Int64) {
        self.path = path
        self.modifiedMilliseconds = modifiedMilliseconds
    }
}

/// A content attached to a book (`book_file`): what `file list` lists, and what a file id names.
public struct AttachedFile: Sendable, Equatable {
    public let id: EntityID
    public let book: EntityID
    public let content: FileContent
    /// The reader's current place in this file (`epubcfi(...)`, `p. 120`, `42%`).
    public let locator: String?
    public let createdAt: Timestamp
    public let updatedAt: Timestamp
}

/// Which book a file added goes to.
public enum FileBookChoice: Sendable {
    /// The book the reader named.
    case book(EntityID)
    /// The book the file's metadata names (by identifier, then title and authors, as an
    /// import finds one), added when the vault has none.
    case matching(ImportedBook)
}

/// What `file add` did.
public struct FileAddition: Sendable, Equatable {
    public let file: AttachedFile
    /// The book was added from the file's metadata.
    public let bookIsNew: Bool
    /// False when the same content was there already (no second copy was kept); true when
    /// content that was only linked is now stored (its first copy was kept).
    public let contentIsNew: Bool
    /// True when this content was already attached to this book: nothing changed, unless
    /// ``contentIsNew`` (a linked content stored now).
    public let wasAttached: Bool
}

/// The reader's book files, kept beside the journal: the rows here, the encrypted blobs in
/// the ``FileStore``. Rows and blobs are changed in an order that a crash at any point
/// leaves no row without its blob (a blob without a row is swept by ``sweepFileStore()``).
/// Attachments sync like other records (``BookFileVersion``, Store+BookFileRecords); the
/// blobs stay on the device that stored them, and a link is only its own device's.
extension Store {
    var fileStore: FileStore { FileStore(databasePath: path) }

    /// Adds the book file at `path` (already inspected: `format`, `metadata`): stored
    /// encrypted in the file store, or with `linkOnly`, a handle to it where it lies. The
    /// same content twice is attached, not stored again. `progress`: bytes read.
    public func addFile(at path: String, format: String, metadata: String, linkOnly: Bool, book choice: FileBookChoice,
                        progress: (Int64) -> Void = { _ in }) throws(StoreError) -> FileAddition {
        let cipher = try requireCipher()
        let source = try Self.fileCall { () throws(FileIOError) in try FileDescriptor.open(path, .readOnly) }
        defer { try? source.close() }
        let status = try Self.fileCall { () throws(FileIOError) in try source.status() }
        let newID = EntityID.generate(at: clock.now())
        var incoming: FileStore.Incoming?
        var key: FileKey?
        let checksum: String, size: Int64
        if linkOnly {
            (checksum, size) = try FileStore.copy(from: source, into: nil, progress: progress)
        } else {
            let fileKey = try Self.cryptoCall { () throws(CryptoError) in try FileKey.generate() }
            let stored = try fileStore.store(from: source, id: newID.rawValue, key: fileKey, binding: blobBinding(newID), progress: progress)
            (incoming, key, checksum, size) = (stored.blob, fileKey, stored.checksum, stored.size)
        }
        defer { incoming?.discard() }
        let link = linkOnly ? FileLink(path: path, modifiedMilliseconds: status.modifiedMilliseconds) : nil
        let (addition, matchedLinkOnly) = try database.writeTransaction { () throws(StoreError) -> (FileAddition, Bool) in
            let (bookID, bookIsNew) = try fileBook(choice)
            let existing = try reachableContentsByChecksum()[checksum]
            let content: FileContent
            if let existing {
                content = existing
            } else {
                content = FileContent(id: newID, format: format, size: size, checksum: checksum, metadata: metadata,
                                      isStored: !linkOnly, link: link, deviceID: self.metadata.deviceID, createdAt: clock.now())
                try insertFileContent(content, sealedKey: try key.map { key throws(StoreError) in try sealFileKey(key, id: newID) }, cipher: cipher)
            }
            let (attached, wasAttached) = try attach(content, to: bookID)
            FaultInjection.reach("file-add:before-commit")
            return (FileAddition(file: attached, bookIsNew: bookIsNew, contentIsNew: existing == nil, wasAttached: wasAttached),
                    existing.map { !$0.isStored } ?? false)
        }
        if addition.contentIsNew {
            incoming?.finish()
            incoming = nil
        }
        // The same content was only linked: now it is stored too, under its own id.
        if matchedLinkOnly && !linkOnly {
            incoming?.discard()
            incoming = nil
            try storeContent(of: addition.file.content.id, from: path)
            // Its first copy: new, even when the content was attached already.
            return FileAddition(file: try attachedFile(addition.file.id), bookIsNew: addition.bookIsNew, contentIsNew: true,
                                wasAttached: addition.wasAttached)
        }
        return addition
    }

    /// Stores the blob of a content that was only linked, read again from `path`.
    private func storeContent(of id: EntityID, from path: String) throws(StoreError) {
        let source = try Self.fileCall { () throws(FileIOError) in try FileDescriptor.open(path, .readOnly) }
        defer { try? source.close() }
        let key = try Self.cryptoCall { () throws(CryptoError) in try FileKey.generate() }
        let stored = try fileStore.store(from: source, id: id.rawValue, key: key, binding: blobBinding(id), progress: { _ in })
        defer { stored.blob.finish() }
        do {
            try database.writeTransaction { () throws(StoreError) in
                let sealed = try sealFileKey(key, id: id)
                try database.run("UPDATE file SET file_key = ? WHERE id = ?", [.blob(sealed), .text(id.rawValue)])
                // Its key goes to the other devices with each attachment of it.
                for attached in try readBookFiles(where: "b.file_id = ? AND b.removed_at IS NULL", [.text(id.rawValue)]) {
                    try changeBookFile(attached) { file, _ in file.content.sealedKey = sealed }
                }
            }
        } catch {
            stored.blob.discard()
            throw error
        }
    }

    /// The book `choice` names, live; or the one the metadata names, added when missing.
    private func fileBook(_ choice: FileBookChoice) throws(StoreError) -> (EntityID, Bool) {
        switch choice {
        case .book(let id):
            try tablesOfThisTransaction.books.requireLive(id)
            return (id, false)
        case .matching(let source):
            let importer = try ArchiveImport(store: self, now: clock.now())
            let found = try importer.book(for: source)
            return (found.id, found.isNew)
        }
    }

    /// Inserts a content's row; `sealedKey` is its key sealed under the vault key (``sealFileKey(_:id:)``).
    func insertFileContent(_ content: FileContent, sealedKey: [UInt8]?, cipher: RecordCipher) throws(StoreError) {
        let id = content.id.rawValue
        try database.run("""
            INSERT INTO file (id, format, size, checksum, metadata, file_key, link_path, link_mtime, device_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(id), .text(content.format), .integer(content.size),
                  .blob(try cipher.seal(content.checksum, table: "file", id: id, field: "checksum")),
                  .blob(try cipher.seal(content.metadata, table: "file", id: id, field: "metadata")),
                  sealedKey.map { .blob($0) } ?? .null,
                  try content.link.map { link throws(StoreError) in .blob(try cipher.seal(link.path, table: "file", id: id, field: "link_path")) } ?? .null,
                  content.link.map { .integer($0.modifiedMilliseconds) } ?? .null,
                  .text(content.deviceID), .integer(content.createdAt.millisecondsSince1970)])
    }

    /// Attaches `content` to `book`, unless it is attached already; returns the attachment
    /// as listings show it (the same file attached by another device, whose copy is not
    /// here, is attached again with this device's copy, and shown once with it).
    private func attach(_ content: FileContent, to book: EntityID) throws(StoreError) -> (AttachedFile, Bool) {
        let attached = try readBookFiles(where: "b.book_id = ? AND b.file_id = ? AND b.removed_at IS NULL",
                                         [.text(book.rawValue), .text(content.id.rawValue)])
        if attached.isEmpty {
            let now = clock.now()
            _ = try insertAttachment(id: EntityID.generate(at: now), content: content, to: book, locator: nil, createdAt: now)
        }
        guard let shown = try attachedFiles(of: book).first(where: { $0.content.checksum == content.checksum }) else {
            throw .recordNotFound(id: content.id.rawValue)
        }
        return (shown, !attached.isEmpty)
    }

    // MARK: - Reading

    /// Every content, with its sealed fields opened (a row that does not open is left out:
    /// `check` reports it).
    func fileContents() throws(StoreError) -> [FileContent] {
        try fileContents(where: "", [])
    }

    private func fileContents(where condition: String, _ bindings: [SQLValue]) throws(StoreError) -> [FileContent] {
        let cipher = try requireCipher()
        var contents: [FileContent] = []
        try database.forEachRow("""
            SELECT id, format, size, checksum, metadata, file_key IS NOT NULL, link_path, link_mtime, device_id, created_at
            FROM file \(condition) ORDER BY created_at, id
            """, bindings) { row in
            let id = row.text(0)
            guard let entity = try? EntityID(validating: id),
                  let checksum = try? cipher.open(row.blob(3), table: "file", id: id, field: "checksum"),
                  let metadata = Self.openMetadata(row.blob(4), of: id, with: cipher) else { return }
            var link: FileLink?
            if !row.isNull(6) {
                guard let path = try? cipher.open(row.blob(6), table: "file", id: id, field: "link_path") else { return }
                link = FileLink(path: path, modifiedMilliseconds: row.isNull(7) ? 0 : row.int64(7))
            }
            contents.append(FileContent(id: entity, format: row.text(1), size: row.int64(2), checksum: checksum, metadata: metadata,
                                        isStored: row.int64(5) != 0, link: link, deviceID: row.text(8),
                                        createdAt: Timestamp(millisecondsSince1970: row.int64(9))))
        }
        return contents
    }

    /// Every book file attached (or one book's), oldest first. The same content attached to
    /// a book twice (two devices that each attached it before they synced) is shown once:
    /// under the attachment with the smaller id, at the place recorded last in either, so
    /// every device shows the same.
    public func attachedFiles(of book: EntityID? = nil) throws(StoreError) -> [AttachedFile] {
        var contents: [EntityID: FileContent] = [:]
        for content in try fileContents() { contents[content.id] = content }
        let live = try readBookFiles(where: book == nil ? "b.removed_at IS NULL" : "b.removed_at IS NULL AND b.book_id = ?",
                                     book.map { [.text($0.rawValue)] } ?? [])
        var groups: [String: [BookFileVersion]] = [:]
        for version in live { groups[version.file.bookID.rawValue + "/" + version.file.content.checksum, default: []].append(version) }
        return live.compactMap { version -> AttachedFile? in
            let group = groups[version.file.bookID.rawValue + "/" + version.file.content.checksum] ?? [version]
            guard version.file.id == group.map(\.file.id).min(), let content = contents[version.file.content.id] else { return nil }
            let placed = group.max { $0.locatorClock < $1.locatorClock } ?? version
            return AttachedFile(id: version.file.id, book: version.file.bookID, content: content, locator: placed.file.locator?.text,
                                createdAt: version.file.createdAt, updatedAt: group.map(\.file.updatedAt).max() ?? version.file.updatedAt)
        }
    }

    /// One book file, by its id.
    public func attachedFile(_ id: EntityID) throws(StoreError) -> AttachedFile {
        guard let file = try attachedFiles().first(where: { $0.id == id }) else { throw .recordNotFound(id: id.rawValue) }
        return file
    }

    // MARK: - Reading a stored file

    /// Writes the plaintext of a book file to `output` (nil: only checks it), from the file
    /// store or, for a linked file, from where it lies; the SHA-256 of what was written must
    /// be the recorded one (``StoreError/fileChanged(id:stored:)`` otherwise); one that cannot be
    /// opened is ``StoreError/fileUnreachable(id:stored:errno:)``. `progress`: bytes so far.
    public func readFile(_ file: AttachedFile, into output: FileDescriptor?, progress: (Int64) -> Void = { _ in }) throws(StoreError) {
        let content = try reachableContent(for: file.content)
        let written: (checksum: String, size: Int64)
        let stored = content.isStored && (content.deviceID == metadata.deviceID || holdsBlob(of: content))
        if stored {
            let blob: FileDescriptor
            do {
                blob = try fileStore.openBlob(content.id.rawValue)
            } catch {
                throw .fileUnreachable(id: file.id.rawValue, stored: true, errno: error.errno.rawValue)
            }
            defer { try? blob.close() }
            written = try fileStore.open(blob, key: try fileKey(of: content.id), binding: blobBinding(content.id),
                                         into: output, progress: progress)
        } else if let link = content.link, content.deviceID == metadata.deviceID {
            let source: FileDescriptor
            do {
                source = try FileDescriptor.open(link.path, .readOnly)
            } catch {
                throw .fileUnreachable(id: file.id.rawValue, stored: false, errno: error.errno.rawValue)
            }
            defer { try? source.close() }
            written = try FileStore.copy(from: source, into: output, progress: progress)
        } else {
            throw .fileElsewhere(id: file.id.rawValue)
        }
        guard written.checksum == content.checksum else { throw .fileChanged(id: file.id.rawValue, stored: stored) }
    }

    // MARK: - Changing

    /// Records the reader's current place in a book file, with its operation.
    public func setFileLocator(_ id: EntityID, to locator: Locator) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            guard let before = try localBookFile(id), !before.file.isRemoved else { throw .recordNotFound(id: id.rawValue) }
            try changeBookFile(before, movesLocator: true) { file, _ in file.locator = locator }
        }
    }

    /// Records where a linked file lies now (`file verify --repair` found it moved).
    public func relinkFile(_ content: EntityID, to link: FileLink) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            let sealed = try requireCipher().seal(link.path, table: "file", id: content.rawValue, field: "link_path")
            try database.run("UPDATE file SET link_path = ?, link_mtime = ? WHERE id = ? AND device_id = ?",
                             [.blob(sealed), .integer(link.modifiedMilliseconds), .text(content.rawValue), .text(metadata.deviceID)])
        }
    }

    /// Detaches a book file from its book (every attachment of that content to that book,
    /// each with its operation: the removal syncs); the stored blob goes when no book has
    /// its content any more. The rows stay, removed, so other devices learn of it. A linked
    /// file is never touched where it lies.
    public func removeFile(_ id: EntityID) throws(StoreError) {
        let gone = try database.writeTransaction { () throws(StoreError) -> [String] in
            guard let shown = try localBookFile(id), !shown.file.isRemoved else { throw .recordNotFound(id: id.rawValue) }
            let same = try readBookFiles(where: "b.book_id = ? AND b.removed_at IS NULL", [.text(shown.file.bookID.rawValue)])
                .filter { $0.file.content.checksum == shown.file.content.checksum }
            for attached in same {
                try changeBookFile(attached, movesAttachment: true) { file, now in file.removedAt = now }
            }
            return try unattachedContents(among: same.map(\.file.content.id))
        }
        for content in gone { fileStore.remove(content) }
    }

    /// Of `contents`, those no live attachment has any more (their blobs may go). Inside a transaction.
    func unattachedContents(among contents: [EntityID]) throws(StoreError) -> [String] {
        var gone: [String] = []
        for content in Set(contents) {
            var attached = false
            try database.forEachRow("SELECT 1 FROM book_file WHERE file_id = ? AND removed_at IS NULL LIMIT 1",
                                    [.text(content.rawValue)]) { _ in attached = true }
            if !attached { gone.append(content.rawValue) }
        }
        return gone
    }

    /// Whether this device can read `content`'s bytes: its blob is here, or it is linked here.
    func isReachableHere(_ content: FileContent) -> Bool {
        content.isStored ? holdsBlob(of: content) : content.link != nil && content.deviceID == metadata.deviceID
    }

    /// The contents whose bytes this device can read, by SHA-256 (the oldest of each): how
    /// identical content is recognised, whichever device added it.
    public func reachableContentsByChecksum() throws(StoreError) -> [String: FileContent] {
        var found: [String: FileContent] = [:]
        for content in try fileContents() where found[content.checksum] == nil && isReachableHere(content) {
            found[content.checksum] = content
        }
        return found
    }

    /// What this device reads a content's bytes from: the content itself when it can, else
    /// another with the same SHA-256 that it can (two devices that added the same file made
    /// two contents, each with its blob on its own device), else the content itself.
    /// `reachable`: ``reachableContentsByChecksum()``, when the caller has it for many.
    public func reachableContent(for content: FileContent,
                                 among reachable: [String: FileContent]? = nil) throws(StoreError) -> FileContent {
        if isReachableHere(content) { return content }
        if let reachable { return reachable[content.checksum] ?? content }
        return try reachableContentsByChecksum()[content.checksum] ?? content
    }

    /// Whether the file store holds the blob of a stored content.
    public func holdsBlob(of content: FileContent) -> Bool {
        content.isStored && FileSystem.exists(fileStore.blobPath(content.id.rawValue))
    }

    /// The SHA-256 of what `descriptor` reads to its end (a file `file verify --search` finds).
    public static func checksum(of descriptor: FileDescriptor) throws(StoreError) -> String {
        try FileStore.copy(from: descriptor, into: nil, progress: { _ in }).checksum
    }

    /// Detaches every file of `book` (a purged book), as removed when the book was deleted,
    /// and empties what a content no other book has still says (its metadata names the book;
    /// its key opens a blob that goes); returns those contents' ids, whose blobs the caller
    /// removes once the transaction commits. The rows stay, removed, as every tombstone does:
    /// they tell the remotes that carry files which blobs can go (``fileBlobsToForget()``).
    /// Inside a write transaction.
    func detachFiles(ofBook book: EntityID) throws(StoreError) -> [String] {
        var contents: [String] = []
        try database.forEachRow("SELECT DISTINCT file_id FROM book_file WHERE book_id = ?", [.text(book.rawValue)]) { row in
            contents.append(row.text(0))
        }
        try database.run("""
            UPDATE book_file SET locator = NULL, removed_at = COALESCE(removed_at, (SELECT deleted_at FROM book WHERE id = ?1))
            WHERE book_id = ?1
            """, [.text(book.rawValue)])
        var gone: [String] = []
        for content in contents {
            try database.run("""
                UPDATE file SET metadata = X'', file_key = NULL, link_path = NULL, link_mtime = NULL
                WHERE id = ?1 AND (length(metadata) > 0 OR file_key IS NOT NULL OR link_path IS NOT NULL)
                  AND NOT EXISTS (SELECT 1 FROM book_file WHERE file_id = ?1 AND removed_at IS NULL)
                """, [.text(content)])
            if database.changes > 0 { gone.append(content) }
        }
        return gone
    }

    /// Removes blobs no attached file needs: a `file add` killed before its row committed,
    /// a file removed on another device.
    public func sweepFileStore() throws(StoreError) {
        try fileStore.sweep { (id) throws(StoreError) -> Bool in
            var named = false
            try database.forEachRow("""
                SELECT 1 FROM file WHERE id = ?1 AND file_key IS NOT NULL
                  AND EXISTS (SELECT 1 FROM book_file WHERE file_id = ?1 AND removed_at IS NULL)
                """, [.text(id)]) { _ in named = true }
            return named
        }
    }

    // MARK: - Keys

    /// Where a content's blob is bound: the vault, the `file` table, the content's id.
    func blobBinding(_ id: EntityID) -> Binding {
        Binding(vaultID: metadata.vaultID, table: "file", recordID: id.rawValue, field: "blob")
    }

    func sealFileKey(_ key: FileKey, id: EntityID) throws(StoreError) -> [UInt8] {
        let sealer = try requireCipher().sealer
        return try Self.cryptoCall { () throws(CryptoError) in
            try key.withUnsafeBytes { bytes throws(CryptoError) in
                try sealer.seal(UnsafeRawBufferPointer(bytes), table: "file", recordID: id.rawValue, field: "file_key")
            }
        }
    }

    func fileKey(of id: EntityID) throws(StoreError) -> FileKey {
        var sealed: [UInt8]?
        try database.forEachRow("SELECT file_key FROM file WHERE id = ? AND file_key IS NOT NULL", [.text(id.rawValue)]) { row in
            sealed = row.blob(0)
        }
        guard let sealed else { throw .recordNotFound(id: id.rawValue) }
        let sealer = try requireCipher().sealer
        return try Self.cryptoCall { () throws(CryptoError) in
            var plain = try sealer.open(sealed, table: "file", recordID: id.rawValue, field: "file_key")
            return try FileKey(opened: &plain)
        }
    }

    static func fileCall<Result>(_ body: () throws(FileIOError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw StoreError(error) }
    }

    static func cryptoCall<Result>(_ body: () throws(CryptoError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw .crypto(error) }
    }
}
