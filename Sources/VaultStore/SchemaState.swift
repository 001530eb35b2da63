public import Journal

/// A migration this build knows, by id and summary.
public struct MigrationInfo: Sendable, Equatable {
    public let id: String
    public let summary: String
}

/// One row of a vault's migration history.
public struct MigrationRecord: Sendable, Equatable {
    public let id: String
    public let checksum: String
    public let appliedAt: Timestamp
    public let durationMilliseconds: Int64
    /// The bmvault version that applied it.
    public let bmvaultVersion: String
}

/// Where a vault's schema stands, read without changing anything.
public struct SchemaState: Sendable {
    public let version: Int
    public let latestVersion: Int
    public let history: [MigrationRecord]
    public let pending: [MigrationInfo]
}

/// A migration a vault applied from a text that shipped and was edited afterwards, which an
/// upgrade brings to the schema of today's text (Docs/MIGRATIONS.md).
public struct MigrationRepair: Sendable, Equatable {
    public let id: String
    /// The commit whose build applied the earlier text.
    public let commit: String
}

/// What upgrading a vault would do, found by upgrading a throwaway copy of it.
public struct UpgradeRehearsal: Sendable {
    public let from: Int
    public let to: Int
    /// Migrations applied from an earlier shipped text, brought to today's first.
    public let repairs: [MigrationRepair]
    public let pending: [MigrationInfo]
    /// Tables, indexes and triggers the upgrade adds or removes, as `table name`.
    public let added: [String]
    public let removed: [String]
    /// How long the migrations took on the copy.
    public let milliseconds: Int64
}

extension SchemaState {
    /// The schema version and migration history of the vault at `path`. Never migrates.
    public init(ofVaultAt path: String) throws(StoreError) {
        let database = try Store.openExisting(path)
        let version = try MigrationRunner.version(of: database)
        var history: [MigrationRecord] = []
        try database.forEachRow("""
            SELECT id, checksum, applied_at, duration_ms, bmvault_version FROM schema_migration ORDER BY id
            """) { row in
            history.append(MigrationRecord(id: row.text("id"), checksum: row.text("checksum"),
                                           appliedAt: Timestamp(millisecondsSince1970: row.int64("applied_at")),
                                           durationMilliseconds: row.int64("duration_ms"), bmvaultVersion: row.text("bmvault_version")))
        }
        let pending = Migrations.all.dropFirst(min(version, Migrations.latestVersion)).map { MigrationInfo(id: $0.id, summary: $0.summary) }
        self.init(version: version, latestVersion: Migrations.latestVersion, history: history, pending: pending)
    }
}

extension UpgradeRehearsal {
    /// Upgrades a copy of the vault at `path` (beside it, so it stays on the same disk
    /// with the same permissions), verifies it, reports what changed and how long it
    /// took, and deletes the copy. The vault itself is not touched.
    public static func run(at path: String, clock: any Clock = SystemClock(),
                           generatorVersion: String) throws(StoreError) -> UpgradeRehearsal {
        let original = try Store.openExisting(path)
        let from = try MigrationRunner.version(of: original)
        guard from <= Migrations.latestVersion else {
            throw .newerSchema(found: from, supported: Migrations.latestVersion)
        }
        let runner = MigrationRunner(migrations: Migrations.all, generatorVersion: generatorVersion, clock: clock)
        try runner.verifyHistory(of: original, upTo: from)

        // The upgrade lock keeps a real upgrade, or a cleanup, away from the copy meanwhile.
        let lock = try FileLock.acquire(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        let copyPath = "\(path).rehearsal-\(try FileSystem.uniqueSuffix())"
        defer { for leftover in ["", "-wal", "-shm", "-journal"] { FileSystem.remove(copyPath + leftover) } }
        let databaseBytes = FileSystem.size(path) + FileSystem.size(path + "-wal")
        let needed = databaseBytes + VaultUpgrade.growthAllowance(forDatabaseBytes: databaseBytes)
        let available = try FileSystem.availableBytes(at: FileSystem.directory(of: path))
        guard available >= needed else { throw .insufficientSpace(needed: needed, available: available) }
        try original.copy(to: copyPath)

        let copy: Database
        do { copy = try Database(path: copyPath, create: false) } catch { throw StoreError(error) }
        let before = try objectNames(copy)
        let started = clock.now()
        var repairs: [MigrationRepair] = []
        try runner.migrate(copy) { event in
            if case .repaired(let id, let commit) = event { repairs.append(MigrationRepair(id: id, commit: commit)) }
        }
        let elapsed = clock.now().millisecondsSince1970 - started.millisecondsSince1970
        let after = try objectNames(copy)
        return UpgradeRehearsal(from: from, to: Migrations.latestVersion, repairs: repairs,
                                pending: Migrations.all.dropFirst(from).map { MigrationInfo(id: $0.id, summary: $0.summary) },
                                added: after.subtracting(before).sorted(), removed: before.subtracting(after).sorted(),
                                milliseconds: elapsed)
    }

    private static func objectNames(_ database: Database) throws(StoreError) -> Set<String> {
        var names = Set<String>()
        try database.forEachRow("SELECT type || ' ' || name AS object FROM sqlite_master WHERE sql IS NOT NULL") { row in names.insert(row.text("object")) }
        return names
    }
}
