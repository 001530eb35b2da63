internal import FileIO
public import Journal
public import VaultCrypto

/// The vault's SQLite database, and the only code that reads or writes it.
///
/// Every mutation writes the entity and its outbox operation in one transaction. Titles,
/// authors, bodies, locators and outbox payloads are sealed before they reach SQLite; ids,
/// kinds, timestamps, progress and page counts stay in the clear (see Docs/SECURITY.md).
///
/// A Store opens locked: metadata, keyslots and counts are readable at once, journal
/// records only after ``attach(_:)`` has been given the vault key.
public final class Store {
    /// The bmvault version recorded with each migration this build applies.
    public let generatorVersion: String
    public let path: String
    public internal(set) var metadata: VaultMetadata
    let database: Database
    let clock: any Clock
    var cipher: RecordCipher?
    /// Set while a transaction of many records runs (``withWriteBatch(_:)``).
    var writeBatch: WriteBatch?
    /// The random bits of the ids this Store makes (an idempotency key per operation).
    var randomIDs = RandomPool()
    /// The write transaction whose first operation was enqueued, and whether the vault had
    /// a remote then (see ``enqueue(_:_:clock:at:baseVersion:base:state:)``).
    var outboxTransaction: (number: Int, hasRemote: Bool)?

    private init(database: Database, metadata: VaultMetadata, clock: any Clock, generatorVersion: String) {
        self.database = database
        self.path = database.path
        self.metadata = metadata
        self.clock = clock
        self.generatorVersion = generatorVersion
    }

    // MARK: - Opening

    /// Opens the vault database at `path`, applying any pending migrations.
    ///
    /// A missing file is ``StoreError/vaultNotFound(path:)``; a vault from a newer bmvault is
    /// refused with ``StoreError/newerSchema(found:supported:)`` and left untouched.
    public static func open(at path: String, clock: any Clock = SystemClock(), generatorVersion: String,
                            events: (MigrationEvent) -> Void = { _ in }) throws(StoreError) -> Store {
        let database = try openExisting(path)
        database.restoreWriteAheadLog()
        let version = try MigrationRunner.version(of: database)
        guard version <= Migrations.latestVersion else {
            throw .newerSchema(found: version, supported: Migrations.latestVersion)
        }
        let runner = MigrationRunner(migrations: Migrations.all, generatorVersion: generatorVersion, clock: clock)
        try runner.verifyHistory(of: database, upTo: version)
        if version < Migrations.latestVersion {
            try VaultUpgrade(path: path, runner: runner).run(database, events: events)
        } else {
            VaultUpgrade.removeLeftoversIfIdle(of: path, version: version)
        }
        let metadata = try readMetadata(database, path: path)
        return Store(database: database, metadata: metadata, clock: clock, generatorVersion: generatorVersion)
    }

    /// Creates a vault database at `path` holding `metadata` and `keyslots`, then opens it.
    ///
    /// The database is built under a temporary name, flushed, and only then linked to
    /// `path`, so a crash never leaves a half-made vault, and an existing vault (even one
    /// created by a racing process) is never replaced.
    public static func create(at path: String, metadata: VaultMetadata, keyslots: [Keyslot],
                              clock: any Clock = SystemClock(), generatorVersion: String) throws(StoreError) -> Store {
        // A leftover -wal or -journal would be replayed into the new database by SQLite.
        for existing in [path, path + "-wal", path + "-journal"] where FileSystem.exists(existing) {
            throw .vaultExists(path: existing)
        }
        try FileSystem.makePrivateDirectory(FileSystem.directory(of: path))
        let temporaryPath = "\(path).creating-\(try FileSystem.uniqueSuffix())"
        defer {
            for leftover in ["", "-wal", "-shm", "-journal"] { FileSystem.remove(temporaryPath + leftover) }
        }
        try build(at: temporaryPath, metadata: metadata, keyslots: keyslots, clock: clock, generatorVersion: generatorVersion)
        try FileSystem.restrictToOwner(temporaryPath)
        try FileSystem.synchronizeFile(temporaryPath)
        try FileSystem.linkWithoutReplacing(temporaryPath, to: path)
        try FileSystem.synchronizeDirectory(FileSystem.directory(of: path))
        return try open(at: path, clock: clock, generatorVersion: generatorVersion)
    }

    private static func build(at path: String, metadata: VaultMetadata, keyslots: [Keyslot],
                              clock: any Clock, generatorVersion: String) throws(StoreError) {
        let database: Database
        do { database = try Database(path: path, create: true) } catch { throw StoreError(error) }
        try database.execute("PRAGMA journal_mode = WAL")
        try MigrationRunner(migrations: Migrations.all, generatorVersion: generatorVersion, clock: clock).migrate(database)
        try database.writeTransaction { () throws(StoreError) in
            for (key, value) in [("vault_id", metadata.vaultID), ("key_id", metadata.keyID.description),
                                 ("created_at", String(metadata.createdAt.millisecondsSince1970)),
                                 (TombstoneTable.purgeCheckedAtKey, String(metadata.createdAt.millisecondsSince1970))] {
                try database.run("INSERT INTO vault_meta (key, value) VALUES (?, ?)", [.text(key), .text(value)])
            }
            for slot in keyslots { try KeyTable.insert(slot, into: database, at: metadata.createdAt) }
        }
        // Fold the WAL into the main file before it is flushed and linked into place.
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    static func readMetadata(_ database: Database, path: String) throws(StoreError) -> VaultMetadata {
        var values: [String: String] = [:]
        try database.forEachRow("SELECT key, value FROM vault_meta") { row in values[row.text("key")] = row.text("value") }
        guard let vaultID = values["vault_id"], let keyHex = values["key_id"],
              let keyID = try? KeyID(hex: keyHex),
              let createdText = values["created_at"], let created = Int64(createdText) else {
            throw .notAVault(path: path)
        }
        return VaultMetadata(vaultID: vaultID, keyID: keyID, createdAt: Timestamp(millisecondsSince1970: created),
                             deviceID: values["device_id"] ?? "")
    }

    /// Opens the database at `path` if it is a bmvault vault; any other file, whatever its
    /// `user_version`, is refused as ``StoreError/notAVault(path:)`` and not touched.
    static func openExisting(_ path: String, readOnly: Bool = false) throws(StoreError) -> Database {
        guard FileSystem.exists(path) else { throw .vaultNotFound(path: path) }
        let database: Database
        do { database = try Database(path: path, create: false, readOnly: readOnly) } catch {
            throw error.isNotADatabase ? .notAVault(path: path) : StoreError(error)
        }
        var isVault = false
        do {
            try database.forEachRow("SELECT count(*) AS count FROM sqlite_master WHERE type = 'table' AND name = 'vault_meta'") { row in
                isVault = row.int64("count") == 1
            }
        } catch .database(code: let code, message: _) where ResultCode(primaryOf: code) == .notADatabase {
            throw .notAVault(path: path)
        }
        guard isVault else { throw .notAVault(path: path) }
        return database
    }

    // MARK: - The key

    /// Lets journal records be read and written with `key`, after checking it is this
    /// vault's key.
    public func attach(_ key: VaultKey) throws(StoreError) {
        // Mid-rekey, fields are under two keys: the journal waits until `rekey` finishes.
        guard try rekey.pending() == nil else { throw .rekeyInProgress }
        guard key.id == metadata.keyID else { throw .keyMismatch }
        cipher = RecordCipher(sealer: FieldSealer(key: key, vaultID: metadata.vaultID))
    }

    /// The cipher for journal records, or ``StoreError/locked``.
    func requireCipher() throws(StoreError) -> RecordCipher {
        guard let cipher else { throw .locked }
        return cipher
    }

    /// Runs `body` inside one read transaction, so that every ``read(_:)`` it makes (books,
    /// notes, quotes, sessions, one after another) sees the same state of the vault: an
    /// export taken while another process writes is still whole. Rethrows what `body` throws.
    public func withReadSnapshot<Result>(_ body: () throws -> Result) throws -> Result {
        try database.execute("BEGIN DEFERRED")
        defer { database.rollbackIfNeeded() }
        return try body()
    }

    /// The schema version the vault is at.
    public func schemaVersion() throws(StoreError) -> Int {
        try MigrationRunner.version(of: database)
    }
}

// MARK: - What is not a table

extension Store {
    /// Copies the vault to `path`, as one consistent snapshot, as encrypted as the vault,
    /// with its SHA-256 beside it (``VaultBackup``), and the encrypted blobs of the book
    /// files kept here unless `withFiles` is false. Needs no key.
    public func backup(to path: String, withFiles: Bool = true) throws(StoreError) -> BackupSummary {
        try VaultBackup.write(database, files: fileStore, withFiles: withFiles, to: path)
    }

    /// Verifies the whole vault: SQLite's integrity, the schema as shipped, the keyslots, and
    /// that every sealed field opens where it is bound (``VaultCheck``). Reads only; the key
    /// must be attached.
    public func check() throws(StoreError) -> VaultCheckReport {
        try VaultCheck(store: self).run()
    }

    /// The purge of deleted records' content (``TombstonePurge``).
    public var purge: TombstonePurge { TombstonePurge(store: self) }

    /// The rekey under way, begun, followed or resumed (``VaultRekey``).
    public var rekey: VaultRekey { VaultRekey(store: self) }

    /// The titles of the live books, from their sealed cache (``BookTitleCache``).
    public var bookTitles: BookTitleCache { BookTitleCache(store: self) }
}

// MARK: - Book files

extension Store {
    /// The reader's book files and their blobs (``BookFiles``).
    public var files: BookFiles { BookFiles(store: self) }

    /// The encrypted blobs beside the vault file.
    var fileStore: FileStore { FileStore(databasePath: path) }

    /// Where a content's blob is bound: the vault, the `file` table, the content's id.
    func blobBinding(_ id: EntityID) -> Binding {
        Binding(vaultID: metadata.vaultID, table: "file", recordID: id.rawValue, field: "blob")
    }

    /// Whether this device can read `content`'s bytes: its blob is here, or it is linked here.
    func isReachableHere(_ content: FileContent) -> Bool {
        content.isStored ? files.holdsBlob(of: content) : content.link != nil && content.deviceID == metadata.deviceID
    }

    /// What this device reads `content`'s bytes from, given the contents it can read by
    /// SHA-256 (``BookFileTable/reachableContentsByChecksum()``, read once for a listing):
    /// see ``BookFileTable/reachableContent(for:)``.
    public func reachableContent(for content: FileContent, among reachable: [String: FileContent]) -> FileContent {
        isReachableHere(content) ? content : reachable[content.checksum] ?? content
    }

    /// Runs a FileIO call, its failure a ``StoreError`` (a full disk, a file too large...).
    static func fileCall<Result>(_ body: () throws(FileIOError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw StoreError(error) }
    }

    /// Runs a VaultCrypto call, its failure ``StoreError/crypto(_:)``.
    static func cryptoCall<Result>(_ body: () throws(CryptoError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw .crypto(error) }
    }
}

// MARK: - The clock

extension Store {
    /// This device's id, bound into every clock reading it makes.
    public var deviceID: String { metadata.deviceID }

    /// This store's clock reading: what the engine stamps on acknowledgements.
    public var now: Timestamp { clock.now() }

    /// The next reading of this device's hybrid logical clock (``DeviceClock/tick()``).
    /// Call inside a write transaction.
    func tick() throws(StoreError) -> HybridTimestamp {
        try DeviceClock(store: self).tick()
    }

    /// Moves this device's clock past a reading seen on another device
    /// (``DeviceClock/observe(_:)``). Call inside a write transaction.
    package func observe(_ reading: HybridTimestamp) throws(StoreError) {
        try DeviceClock(store: self).observe(reading)
    }

    /// The clock of a record's current version (`nil` when the record does not exist).
    func recordClock(table: String, id: EntityID) throws(StoreError) -> HybridTimestamp? {
        var reading: HybridTimestamp?
        try database.forEachRow("SELECT hlc FROM \(table) WHERE id = ?", [.text(id.rawValue)]) { row in
            if !row.isNull("hlc") { reading = try? HybridTimestamp(parsing: row.text("hlc")) }
        }
        return reading
    }
}

// Not Sendable: one thread at a time uses a Store (its connection, caches and batch state are unsynchronized).
@available(*, unavailable)
extension Store: Sendable {}
