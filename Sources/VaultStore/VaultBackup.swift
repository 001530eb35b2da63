import Journal
import VaultCrypto

/// What `backup` wrote.
public struct BackupSummary: Sendable, Equatable {
    public let path: String
    /// The SHA-256 of the backup, also written beside it as `<path>.sha256` (the form
    /// `sha256sum -c` reads).
    public let sha256: String
    public let bytes: Int64
    /// The stored book files whose encrypted blobs the backup holds.
    public let bookFiles: Int
    /// The stored book files held here that `--without-files` left out (0 otherwise).
    public let bookFilesLeftOut: Int
}

/// A consistent copy of the vault that stays encrypted (``Store/backup(to:)``), and a vault
/// made again from one.
public enum VaultBackup {
    /// The checksum file beside a backup.
    public static func checksumPath(of backup: String) -> String { backup + ".sha256" }

    /// Copies the vault to `path`, as one consistent snapshot while other commands go on
    /// (SQLite's online backup, under a read transaction), sealed fields and keyslots as they
    /// are: the copy is as encrypted as the vault. Written under a temporary name, flushed,
    /// then given its name only if nothing has it (a backup never replaces a file), with its
    /// SHA-256 beside it. Needs no key. With `withFiles`, the copy also holds the encrypted
    /// blobs of the book files kept here that it names (``BackupBlobs``), so the one checksum
    /// covers them too.
    static func write(_ database: Database, files: FileStore, withFiles: Bool, to path: String) throws(StoreError) -> BackupSummary {
        let checksumPath = Self.checksumPath(of: path)
        for taken in [path, checksumPath] where FileSystem.exists(taken) { throw .backupExists(path: taken) }
        // SQLite would only say it cannot open the copy; a mistyped folder is the reader's to fix.
        guard FileSystem.isDirectory(FileSystem.directory(of: path)) else { throw .backupFolderMissing(path: path) }
        let partial = "\(path).partial-\(try FileSystem.uniqueSuffix())"
        defer { FileSystem.remove(partial) }
        try database.copy(to: partial)
        // A file in rollback-journal mode: one file, which a reader opens without making a
        // -wal and -shm beside it.
        var bookFiles = 0, leftOut = 0
        do {
            let copy: Database
            do { copy = try Database(path: partial, create: false) } catch { throw StoreError(error) }
            try copy.execute("PRAGMA journal_mode = DELETE")
            let held = try BackupBlobs.held(by: files, for: copy)
            if withFiles { bookFiles = try BackupBlobs.write(held, from: files, into: copy) } else { leftOut = held.count }
        }
        try FileSystem.restrictToOwner(partial)
        try FileSystem.synchronizeFile(partial)
        let sha256 = try FileSystem.sha256(of: partial)
        try FileSystem.renameBackupWithoutReplacing(partial, to: path)
        try FileSystem.createBackupFile(checksumPath, holding: "\(sha256)  \(FileSystem.fileName(of: path))\n")
        try FileSystem.synchronizeDirectory(FileSystem.directory(of: path))
        return BackupSummary(path: path, sha256: sha256, bytes: FileSystem.size(path), bookFiles: bookFiles, bookFilesLeftOut: leftOut)
    }

    /// Makes the vault at `path` again from the backup at `backup`: checked against the
    /// checksum beside it when there is one, by SQLite's integrity check, and its schema
    /// against the one shipped for its version; copied, brought
    /// to this build's schema, and given its name only if no vault has it. Open it afterwards.
    ///
    /// The restored vault is a **new device** of its vault: a new device id, an empty outbox,
    /// and every remote owed a snapshot. So its next sync takes in what the other devices
    /// hold, this device's own changes made after the backup among them (its old device
    /// folder is now another device's), and sends every remote the journal as it stands,
    /// whatever the backup had not sent yet.
    ///
    /// A backup that holds book files' blobs (``BackupBlobs``) brings them back into the
    /// file store beside the vault, before the vault gets its name; returns how many.
    @discardableResult
    public static func restore(from backup: String, to path: String, clock: any Clock = SystemClock(),
                               generatorVersion: String, events: (MigrationEvent) -> Void = { _ in }) throws(StoreError) -> Int {
        for existing in [path, path + "-wal", path + "-journal"] where FileSystem.exists(existing) {
            throw .vaultExists(path: existing)
        }
        try verifyChecksum(of: backup)
        try FileSystem.makePrivateDirectory(FileSystem.directory(of: path))
        let partial = "\(path).restoring-\(try FileSystem.uniqueSuffix())"
        defer {
            for leftover in ["", "-wal", "-shm", "-journal"] { FileSystem.remove(partial + leftover) }
        }
        var hasBlobs = false
        do throws(StoreError) {
            let source = try Store.openExisting(backup, readOnly: true)
            var integrity: [String] = []
            try source.forEachRow("PRAGMA integrity_check") { row in integrity.append(row.text("integrity_check")) }
            guard integrity == ["ok"] else { throw StoreError.backupDamaged(path: backup) }
            hasBlobs = try BackupBlobs.isPresent(in: source, path: backup)
            try verifySchema(of: source, backup: backup, clock: clock, generatorVersion: generatorVersion)
            try source.copy(to: partial)
        } catch where error.isDamagedDatabase {
            // A page SQLite cannot read (a backup cut short, a byte flipped) stops the check
            // itself before it can list what is wrong: the backup is damaged all the same.
            throw .backupDamaged(path: backup)
        }
        try FileSystem.restrictToOwner(partial)
        let files = FileStore(databasePath: path)
        var restoredBlobs: [String] = []
        do throws(StoreError) {
            if hasBlobs {
                let copy: Database
                do { copy = try Database(path: partial, create: false) } catch { throw StoreError(error) }
                restoredBlobs = try BackupBlobs.restore(from: copy, into: files)
            }
            let store = try Store.open(at: partial, clock: clock, generatorVersion: generatorVersion, events: events)
            try becomeNewDevice(store)
            try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            try FileSystem.synchronizeFile(partial)
            try FileSystem.linkWithoutReplacing(partial, to: path)
        } catch {
            // No vault came of it: the blobs it brought are no one's.
            for id in restoredBlobs { files.remove(id) }
            throw error
        }
        try FileSystem.synchronizeDirectory(FileSystem.directory(of: path))
        return restoredBlobs.count
    }

    /// A restored copy's new identity, in one transaction: a new device id, no outbox, and
    /// a snapshot owed to every remote (see ``restore(from:to:clock:generatorVersion:events:)``).
    private static func becomeNewDevice(_ store: Store) throws(StoreError) {
        let database = store.database
        let deviceID: String
        do { deviceID = encodeHex(try randomBytes(count: 16)) } catch { throw .crypto(error) }
        try database.writeTransaction { () throws(StoreError) in
            try database.run("UPDATE vault_meta SET value = ? WHERE key = 'device_id'", [.text(deviceID)])
            try database.execute("""
                DELETE FROM outbox;
                DELETE FROM sent_operation;
                UPDATE remote SET needs_snapshot = 1, last_synced_at = NULL;
                """)
        }
        let metadata = store.metadata
        store.metadata = VaultMetadata(vaultID: metadata.vaultID, keyID: metadata.keyID, createdAt: metadata.createdAt, deviceID: deviceID)
    }

    /// The backup's schema must be the one bmvault shipped for its version, compared as
    /// `check` compares a vault's: a trigger added by hand (one that deletes every later
    /// note, say) would otherwise come back with the backup and act unseen. A vault that
    /// records an earlier shipped text of a migration is left to the upgrade, which repairs
    /// its schema and then compares it; a newer one, to the open that refuses it.
    private static func verifySchema(of source: Database, backup: String, clock: any Clock,
                                     generatorVersion: String) throws(StoreError) {
        let version = try MigrationRunner.version(of: source)
        guard version <= Migrations.latestVersion else { return }
        let runner = MigrationRunner(migrations: Migrations.all, generatorVersion: generatorVersion, clock: clock)
        guard try runner.verifyHistory(of: source, upTo: version).isEmpty else { return }
        guard try SchemaText.isAsShipped(source, version: version, leavingOut: BackupBlobs.table) else { throw .backupAltered(path: backup) }
    }

    /// The checksum file beside `backup`, when there is one, must name its SHA-256.
    private static func verifyChecksum(of backup: String) throws(StoreError) {
        guard FileSystem.exists(checksumPath(of: backup)) else { return }
        let recorded = try FileSystem.readSmallFile(checksumPath(of: backup), limit: 4096)
        let expected = String(decoding: recorded.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard try FileSystem.sha256(of: backup) == expected.lowercased() else { throw .backupDamaged(path: backup) }
    }
}
