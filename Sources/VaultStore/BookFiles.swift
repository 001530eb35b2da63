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
    /// The book `find` finds, or adds, inside the file's own write transaction: the one
    /// the file's metadata names, as an import finds one (the applier's `matching(_:)`).
    case found(by: @Sendable (Tables) throws(StoreError) -> (id: EntityID, isNew: Bool))
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

/// The reader's book files, kept beside the journal: the rows in ``BookFileTable``, the
/// encrypted blobs in the ``FileStore``. Rows and blobs are changed in an order that a crash
/// at any point leaves no row without its blob (a blob without a row is swept by
/// ``sweep()``). Attachments sync like other records (``BookFileVersion``); the blobs stay
/// on the device that stored them, and a link is only its own device's. Not a table of
/// ``Tables``: a blob is written before its rows' transaction and kept or removed after it.
public struct BookFiles {
    let store: Store
    private var fileStore: FileStore { store.fileStore }

    /// Adds the book file at `path` (already inspected: `format`, `metadata`): stored
    /// encrypted in the file store, or with `linkOnly`, a handle to it where it lies. The
    /// same content twice is attached, not stored again. `progress`: bytes read.
    public func add(at path: String, format: String, metadata: String, linkOnly: Bool, book choice: FileBookChoice,
                    progress: (Int64) -> Void = { _ in }) throws(StoreError) -> FileAddition {
        let cipher = try store.requireCipher()
        let source = try Store.fileCall { () throws(FileIOError) in try FileDescriptor.open(path, .readOnly) }
        defer { try? source.close() }
        let status = try Store.fileCall { () throws(FileIOError) in try source.status() }
        let newID = EntityID.generate(at: store.clock.now())
        var incoming: FileStore.Incoming?
        var key: FileKey?
        let checksum: String, size: Int64
        if linkOnly {
            (checksum, size) = try FileStore.copy(from: source, into: nil, progress: progress)
        } else {
            let fileKey = try Store.cryptoCall { () throws(CryptoError) in try FileKey.generate() }
            let stored = try fileStore.store(from: source, id: newID.rawValue, key: fileKey, binding: store.blobBinding(newID), progress: progress)
            (incoming, key, checksum, size) = (stored.blob, fileKey, stored.checksum, stored.size)
        }
        defer { incoming?.discard() }
        let link = linkOnly ? FileLink(path: path, modifiedMilliseconds: status.modifiedMilliseconds) : nil
        let (addition, matchedLinkOnly) = try store.write { tables throws(StoreError) -> (FileAddition, Bool) in
            let (bookID, bookIsNew) = try book(choice, in: tables)
            let existing = try tables.bookFiles.reachableContentsByChecksum()[checksum]
            let content: FileContent
            if let existing {
                content = existing
            } else {
                content = FileContent(id: newID, format: format, size: size, checksum: checksum, metadata: metadata,
                                      isStored: !linkOnly, link: link, deviceID: store.deviceID, createdAt: store.clock.now())
                try tables.bookFiles.insertContent(content, sealedKey: try key.map { key throws(StoreError) in
                    try tables.bookFiles.sealFileKey(key, id: newID)
                }, cipher: cipher)
            }
            let (attached, wasAttached) = try tables.bookFiles.attach(content, to: bookID)
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
            let file = try store.read { tables throws(StoreError) in try tables.bookFiles.attached(addition.file.id) }
            return FileAddition(file: file, bookIsNew: addition.bookIsNew, contentIsNew: true,
                                wasAttached: addition.wasAttached)
        }
        return addition
    }

    /// Stores the blob of a content that was only linked, read again from `path`.
    private func storeContent(of id: EntityID, from path: String) throws(StoreError) {
        let source = try Store.fileCall { () throws(FileIOError) in try FileDescriptor.open(path, .readOnly) }
        defer { try? source.close() }
        let key = try Store.cryptoCall { () throws(CryptoError) in try FileKey.generate() }
        let stored = try fileStore.store(from: source, id: id.rawValue, key: key, binding: store.blobBinding(id), progress: { _ in })
        defer { stored.blob.finish() }
        do {
            try store.write { tables throws(StoreError) in try tables.bookFiles.giveKey(key, to: id) }
        } catch {
            stored.blob.discard()
            throw error
        }
    }

    /// The book `choice` names, live; or the one the metadata names, added when missing.
    private func book(_ choice: FileBookChoice, in tables: Tables) throws(StoreError) -> (EntityID, Bool) {
        switch choice {
        case .book(let id):
            try tables.books.requireLive(id)
            return (id, false)
        case .found(let find):
            let found = try find(tables)
            return (found.id, found.isNew)
        }
    }

    // MARK: - Reading a stored file

    /// Writes the plaintext of a book file to `output` (nil: only checks it), from the file
    /// store or, for a linked file, from where it lies; the SHA-256 of what was written must
    /// be the recorded one (``StoreError/fileChanged(id:stored:)`` otherwise); one that cannot be
    /// opened is ``StoreError/fileUnreachable(id:stored:errno:)``. `progress`: bytes so far.
    public func read(_ file: AttachedFile, into output: FileDescriptor?, progress: (Int64) -> Void = { _ in }) throws(StoreError) {
        let content = try store.read { tables throws(StoreError) in try tables.bookFiles.reachableContent(for: file.content) }
        let written: (checksum: String, size: Int64)
        let stored = content.isStored && (content.deviceID == store.deviceID || holdsBlob(of: content))
        if stored {
            let blob: FileDescriptor
            do {
                blob = try fileStore.openBlob(content.id.rawValue)
            } catch {
                throw .fileUnreachable(id: file.id.rawValue, stored: true, errno: error.errno.rawValue)
            }
            defer { try? blob.close() }
            let key = try store.read { tables throws(StoreError) in try tables.bookFiles.fileKey(of: content.id) }
            written = try fileStore.open(blob, key: key, binding: store.blobBinding(content.id),
                                         into: output, progress: progress)
        } else if let link = content.link, content.deviceID == store.deviceID {
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

    /// Detaches a book file from its book (``BookFileTable/remove(_:)``); the stored blob goes,
    /// once that has committed, when no book has its content any more.
    public func remove(_ id: EntityID) throws(StoreError) {
        let gone = try store.write { tables throws(StoreError) in try tables.bookFiles.remove(id) }
        for content in gone { fileStore.remove(content) }
    }

    /// Whether the file store holds the blob of a stored content.
    public func holdsBlob(of content: FileContent) -> Bool {
        content.isStored && FileSystem.exists(fileStore.blobPath(content.id.rawValue))
    }

    /// The SHA-256 of what `descriptor` reads to its end (a file `file verify --search` finds).
    public static func checksum(of descriptor: FileDescriptor) throws(StoreError) -> String {
        try FileStore.copy(from: descriptor, into: nil, progress: { _ in }).checksum
    }

    /// Removes blobs no attached file needs: a `file add` killed before its row committed,
    /// a file removed on another device.
    public func sweep() throws(StoreError) {
        try fileStore.sweep { (id) throws(StoreError) -> Bool in
            var named = false
            try store.database.forEachRow("""
                SELECT 1 FROM file WHERE id = ?1 AND file_key IS NOT NULL
                  AND EXISTS (SELECT 1 FROM book_file WHERE file_id = ?1 AND removed_at IS NULL)
                """, [.text(id)]) { _ in named = true }
            return named
        }
    }
}
