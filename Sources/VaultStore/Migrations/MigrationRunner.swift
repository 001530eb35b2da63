import Journal
import Telemetry

/// Applies pending migrations to one database connection.
///
/// All pending migrations run in ONE write transaction, each inside its own savepoint
/// with its `schema_migration` record and `user_version`; the result is verified (foreign
/// keys, the frozen schema, `integrity_check`) before the transaction commits. So a crash,
/// a full disk or a failed check at any instant leaves the vault at its old version, and
/// the next open starts again from there: never a mix of two versions.
struct MigrationRunner {
    let migrations: [Migration]
    /// The bmvault version recorded with each applied migration.
    let generatorVersion: String
    let clock: any Clock

    /// The schema version the database is at now (`PRAGMA user_version`).
    static func version(of database: Database) throws(StoreError) -> Int {
        Int(try database.integer("PRAGMA user_version") ?? 0)
    }

    /// Refuses a vault whose record of its first `version` migrations does not match this
    /// build's: a shipped migration must never change, or two builds would disagree on
    /// what a schema version means. A record of a text that did ship and was changed
    /// afterwards (``ShippedVariants``) is accepted: the variants returned are to be
    /// repaired before any pending migration runs.
    @discardableResult
    func verifyHistory(of database: Database, upTo version: Int) throws(StoreError) -> [ShippedVariant] {
        guard version > 0 else { return [] }
        var recorded: [(id: String, checksum: String)] = []
        try database.forEachRow("SELECT id, checksum FROM schema_migration ORDER BY id") { row in
            recorded.append((row.text("id"), row.text("checksum")))
        }
        var variants: [ShippedVariant] = []
        for (index, migration) in migrations.prefix(version).enumerated() {
            guard index < recorded.count, recorded[index].id == migration.id else { throw .migrationChanged(id: migration.id) }
            guard recorded[index].checksum != migration.checksum else { continue }
            guard let variant = ShippedVariants.variant(of: migration.id, checksum: recorded[index].checksum),
                  variant.vaultVersion == version else {
                throw .migrationChanged(id: migration.id)
            }
            variants.append(variant)
        }
        return variants
    }

    /// Applies every migration after the database's current version, atomically.
    func migrate(_ database: Database, events: (MigrationEvent) -> Void = { _ in }) throws(StoreError) {
        // Table rebuilds need foreign keys off; they are checked explicitly before commit.
        try database.execute("PRAGMA foreign_keys = OFF")
        // why temp_store = FILE: a migration that rewrites rows (0003 rewrites most of the
        // file) keeps the original of every page it changes for its savepoint and its
        // statements, until they end. With the connection's temp_store = MEMORY that is
        // 165 MiB of memory at 100,000 notes, growing with the vault; in SQLite's temporary
        // file (unlinked as it is opened) it is the same sealed pages and 23 MiB of memory.
        try database.execute("PRAGMA temp_store = FILE")
        defer { try? database.execute("PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY") }
        // why a rollback journal: a migration that rewrites rows (0003 rewrites most of the
        // file) would put every page it changes in the WAL, and the commit's checkpoint would
        // write each of them again; with a journal the file is changed in place and the
        // journal keeps only the originals of the pages that existed (a v1 → v5 upgrade at
        // 100,000 notes: 5.6 → 4.3 s, and 139 instead of 179 MB beside the file).
        try database.withRollbackJournalIfAlone { () throws(StoreError) in try migrateInOneTransaction(database, events: events) }
    }

    private func migrateInOneTransaction(_ database: Database, events: (MigrationEvent) -> Void) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            // Another process may have migrated while this one waited for the write lock.
            let current = try Self.version(of: database)
            guard current < migrations.count else { return }
            for variant in try verifyHistory(of: database, upTo: current) {
                try repair(variant, atVersion: current, in: database)
                events(.repaired(id: variant.migrationID, commit: variant.commit))
            }
            let pending = migrations.count - current
            for (index, migration) in migrations.enumerated() where index >= current {
                events(.applying(id: migration.id, index: index - current + 1, count: pending))
                try apply(migration, toVersion: index + 1, in: database)
                FaultInjection.reach("upgrade:applied:\(migration.id)")
            }
            try verify(database, against: migrations[migrations.count - 1])
            FaultInjection.reach("upgrade:verified")
        }
    }

    private func apply(_ migration: Migration, toVersion version: Int, in database: Database) throws(StoreError) {
        let started = clock.now()
        try database.execute("SAVEPOINT migration")
        try database.execute("""
            CREATE TABLE IF NOT EXISTS schema_migration (
                id              TEXT PRIMARY KEY NOT NULL,
                checksum        TEXT NOT NULL,
                applied_at      INTEGER NOT NULL,
                duration_ms     INTEGER NOT NULL,
                bmvault_version TEXT NOT NULL
            );
            """)
        try execute(migration.sql, editsSchemaText: migration.editsSchemaText, in: database)
        let finished = clock.now()
        try database.run("""
            INSERT INTO schema_migration (id, checksum, applied_at, duration_ms, bmvault_version)
            VALUES (?, ?, ?, ?, ?)
            """, [.text(migration.id), .text(migration.checksum),
                  .integer(finished.millisecondsSince1970),
                  .integer(finished.millisecondsSince1970 - started.millisecondsSince1970),
                  .text(generatorVersion)])
        try database.execute("PRAGMA user_version = \(version)")
        try database.execute("RELEASE migration")
    }

    /// Brings a vault whose migration was applied from an earlier shipped text to the schema
    /// of today's text, checked against that migration's frozen schema, and records today's
    /// checksum for it (the record keeps when it was applied, and says which build repaired
    /// it). Inside the upgrade's transaction: a failure leaves the vault as it was.
    private func repair(_ variant: ShippedVariant, atVersion version: Int, in database: Database) throws(StoreError) {
        let migration = migrations[version - 1]
        try database.execute("SAVEPOINT repair")
        try execute(variant.repair, editsSchemaText: variant.editsSchemaText, in: database)
        guard try SchemaText.checksum(of: database) == migration.schemaChecksum else {
            throw .upgradeCheckFailed(check: "schema after repairing \(variant.migrationID) (Schemas/sqlite/v\(version).sql)")
        }
        try database.run("""
            UPDATE schema_migration SET checksum = ?, bmvault_version = bmvault_version || ?
            WHERE id = ? AND checksum = ?
            """, [.text(migration.checksum), .text(", repaired from \(variant.commit) by \(generatorVersion)"),
                  .text(variant.migrationID), .text(variant.checksum)])
        guard database.changes == 1 else { throw .migrationChanged(id: variant.migrationID) }
        try database.execute("RELEASE repair")
        log.notice("store.upgrade.repaired", ["migration": .public(variant.migrationID), "commit": .public(variant.commit)])
        FaultInjection.reach("upgrade:repaired:\(variant.migrationID)")
    }

    /// Runs a migration's or a repair's SQL; one that edits a table's text in place runs
    /// outside defensive mode and makes every connection parse the schema again.
    private func execute(_ sql: String, editsSchemaText: Bool, in database: Database) throws(StoreError) {
        guard editsSchemaText else { return try database.execute(sql) }
        try database.withoutDefensiveMode { () throws(StoreError) in
            let schemaVersion = try database.integer("PRAGMA schema_version") ?? 0
            try database.execute(sql)
            try database.execute("PRAGMA schema_version = \(schemaVersion + 1)")
        }
    }

    /// The checks an upgrade must pass before it commits.
    private func verify(_ database: Database, against last: Migration) throws(StoreError) {
        var violations = 0
        try database.forEachRow("PRAGMA foreign_key_check") { _ in violations += 1 }
        guard violations == 0 else { throw .upgradeCheckFailed(check: "foreign_key_check") }
        guard try SchemaText.checksum(of: database) == last.schemaChecksum else {
            throw .upgradeCheckFailed(check: "schema (Schemas/sqlite/v\(migrations.count).sql)")
        }
        var integrity: [String] = []
        try database.forEachRow("PRAGMA integrity_check") { row in integrity.append(row.text("integrity_check")) }
        guard integrity == ["ok"] else { throw .upgradeCheckFailed(check: "integrity_check") }
    }
}
