public import Journal

/// What `bmvault diagnostics` may say about a vault: structure and counts, never content.
public struct VaultInspection: Sendable {
    public let schema: SchemaState
    public let counts: JournalCounts
    /// Tombstoned books, sessions and annotations, kept so deletions can propagate.
    public let tombstones: Int
    public let outbox: OutboxInspection
    public let rekeyInProgress: Bool
    /// Snapshots left beside the vault (by an upgrade that did not finish).
    public let snapshots: Int
    public let databaseBytes: Int64
    public let walBytes: Int64
    /// The SQLite library this build runs with.
    public let sqliteVersion: String
}

/// The outbox as numbers: depth by state and by attempts, and the age of the oldest
/// operation not yet done. No payloads, no ids.
public struct OutboxInspection: Sendable {
    public let byState: [OutboxState: Int]
    /// Operations not done, by how many times they were attempted.
    public let byAttempts: [Int: Int]
    public let oldestWaiting: Timestamp?
    /// The error class of the most recent failed upload still waiting (schema 3 on), such
    /// as `unreachable` or `io.link`: a class, never a message.
    public let lastErrorClass: String?
}

extension VaultInspection {
    /// Looks at the vault at `path` without changing it: no migration, no key needed.
    public init(ofVaultAt path: String) throws(StoreError) {
        let schema = try SchemaState(ofVaultAt: path)
        let database = try Store.openExisting(path)
        var tombstones = 0
        try database.forEachRow("""
            SELECT (SELECT count(*) FROM book WHERE deleted_at IS NOT NULL)
                 + (SELECT count(*) FROM annotation WHERE deleted_at IS NOT NULL)
                 + \(schema.version >= 9 ? "(SELECT count(*) FROM reading_session WHERE deleted_at IS NOT NULL)" : "0") AS tombstones
            """) { row in tombstones = Int(row.int64("tombstones")) }
        var byAttempts: [Int: Int] = [:]
        try database.forEachRow("""
            SELECT attempt_count, count(*) AS count FROM outbox WHERE state <> 'done' GROUP BY attempt_count
            """) { row in
            byAttempts[Int(row.int64("attempt_count"))] = Int(row.int64("count"))
        }
        var oldest: Timestamp?
        try database.forEachRow("SELECT min(created_at) AS oldest FROM outbox WHERE state <> 'done'") { row in
            if !row.isNull("oldest") { oldest = Timestamp(millisecondsSince1970: row.int64("oldest")) }
        }
        var lastErrorClass: String?
        if schema.version >= 3 {
            try database.forEachRow("""
                SELECT last_error_class FROM outbox WHERE state <> 'done' AND last_error_class IS NOT NULL
                ORDER BY last_attempt_at DESC, id DESC LIMIT 1
                """) { row in lastErrorClass = row.text("last_error_class") }
        }
        var rekeyInProgress = false
        var hasRekeyTable = false
        try database.forEachRow("SELECT count(*) AS count FROM sqlite_master WHERE type = 'table' AND name = 'rekey_job'") { row in
            hasRekeyTable = row.int64("count") == 1
        }
        if hasRekeyTable {
            try database.forEachRow("SELECT count(*) AS count FROM rekey_job") { row in rekeyInProgress = row.int64("count") > 0 }
        }
        var sqliteVersion = ""
        try database.forEachRow("SELECT sqlite_version() AS version") { row in sqliteVersion = row.text("version") }
        self.init(schema: schema, counts: try RecordTable.counts(in: database, schemaVersion: schema.version), tombstones: tombstones,
                  outbox: OutboxInspection(byState: try OutboxTable.counts(in: database), byAttempts: byAttempts,
                                           oldestWaiting: oldest, lastErrorClass: lastErrorClass),
                  rekeyInProgress: rekeyInProgress, snapshots: VaultUpgrade.snapshots(of: path).count,
                  databaseBytes: FileSystem.size(path), walBytes: FileSystem.size(path + "-wal"),
                  sqliteVersion: sqliteVersion)
    }
}

extension VaultMetadata {
    /// The metadata of the vault at `path` alone, read without migrating or unlocking.
    public init(ofVaultAt path: String) throws(StoreError) {
        self = try Store.readMetadata(try Store.openExisting(path), path: path)
    }
}
