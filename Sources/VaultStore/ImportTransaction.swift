internal import FileIO
public import Journal
import Telemetry
import VaultCrypto

/// The one write transaction an import runs in (``Store/importing(dryRun:_:)``): its tables,
/// and the blobs of book files it stores, which are kept when it commits and removed when
/// it does not. What each record does to the vault is decided above the Store (the
/// applier, through ``JournalMerge``); this only holds the transaction.
public final class ImportTransaction {
    unowned let store: Store
    /// The time the import began, by the vault's clock: the creation time of what it adds.
    public let now: Timestamp
    /// Whether the vault held notes (or sessions) when the import began: one that held none
    /// holds only what this import added.
    public let hadAnnotations: Bool
    public let hadSessions: Bool
    /// Blobs stored by this import.
    private var incomingBlobs: [FileStore.Incoming] = []

    init(store: Store) throws(StoreError) {
        self.store = store
        self.now = store.clock.now()
        hadAnnotations = try store.database.integer("SELECT EXISTS (SELECT 1 FROM annotation)") == 1
        hadSessions = try store.database.integer("SELECT EXISTS (SELECT 1 FROM reading_session)") == 1
    }

    /// The tables of the import's transaction.
    public var tables: Tables { store.tablesOfThisTransaction }

    /// Stores the plain file at `path` as a new content of the vault, checked against what
    /// its source says of it (``StoreError/fileChanged(id:stored:)`` when it differs).
    public func storeContent(from path: String, format: String, metadata: String, checksum: String, size: Int64,
                             for file: EntityID) throws(StoreError) -> FileContent {
        let source = try Store.fileCall { () throws(FileIOError) in try FileDescriptor.open(path, .readOnly, options: [.noFollow]) }
        defer { try? source.close() }
        let id = EntityID.generate(at: now)
        let key = try Store.cryptoCall { () throws(CryptoError) in try FileKey.generate() }
        let stored = try store.fileStore.store(from: source, id: id.rawValue, key: key, binding: store.blobBinding(id), progress: { _ in })
        incomingBlobs.append(stored.blob)
        // The source's plain copy is what differs, not a copy the vault stored.
        guard stored.checksum == checksum, stored.size == size else { throw .fileChanged(id: file.rawValue, stored: false) }
        let content = FileContent(id: id, format: format, size: stored.size, checksum: stored.checksum, metadata: metadata,
                                  isStored: true, link: nil, deviceID: store.metadata.deviceID, createdAt: now)
        try tables.bookFiles.insertContent(content, sealedKey: try tables.bookFiles.sealFileKey(key, id: id), cipher: try store.requireCipher())
        return content
    }

    fileprivate func finish(committed: Bool) {
        incomingBlobs.forEach { committed ? $0.finish() : $0.discard() }
    }
}

extension Store {
    /// Runs an import in ONE write transaction: `body` is handed the transaction, and on
    /// return everything commits, or on any error (the Store's, or whatever `body` throws)
    /// nothing does. A `dryRun` does all the same work and rolls it back: what `body`
    /// returns is exactly what the import would do.
    ///
    /// Foreign keys are checked at commit, so an archive may list a book after its notes.
    ///
    /// A real import writes with a rollback journal when no other process has the vault
    /// open (``Database/withRollbackJournalIfAlone(_:)``): restoring a large archive then
    /// writes each new page once. A dry run leaves the file alone, in WAL mode.
    public func importing<Result>(dryRun: Bool, _ body: (ImportTransaction) throws -> Result) throws -> Result {
        _ = try requireCipher()
        if dryRun { return try importTransaction(dryRun: true, body) }
        return try database.withRollbackJournalIfAlone { () throws in
            try importTransaction(dryRun: false, body)
        }
    }

    /// The page cache of an import's transaction, in KiB (SQLite's default is 2,000).
    static let importCacheKiB = 4096

    private func importTransaction<Result>(dryRun: Bool, _ body: (ImportTransaction) throws -> Result) throws -> Result {
        try database.beginImmediate()
        do {
            try database.execute("PRAGMA defer_foreign_keys = ON")
            // A larger page cache while it writes: with SQLite's 2 MiB, an import of 20,000
            // books wrote each page about five times and read most back (the indexes'
            // pages, pushed out by the rows'); 4 MiB holds them, within the memory budget.
            try database.execute("PRAGMA cache_size = -\(Self.importCacheKiB)")
            defer { try? database.execute("PRAGMA cache_size = -2000") }
            let transaction = try ImportTransaction(store: self)
            do {
                let result = try withWriteBatch { try body(transaction) }
                if dryRun {
                    database.rollbackIfNeeded()
                    transaction.finish(committed: false)
                } else {
                    FaultInjection.reach("import:before-commit")
                    try database.execute("COMMIT")
                    transaction.finish(committed: true)
                }
                return result
            } catch {
                transaction.finish(committed: false)
                throw error
            }
        } catch {
            database.rollbackIfNeeded()
            throw error
        }
    }
}

// Not Sendable: an import's transaction is used on the thread that runs it.
@available(*, unavailable)
extension ImportTransaction: Sendable {}
