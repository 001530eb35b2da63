import Journal

/// Brings a vault's schema up to ``Migrations/latestVersion``, one migration per
/// transaction, with the record of that migration written inside the same transaction:
/// a crash leaves the vault at the last completed version, never between two.
///
/// `PRAGMA user_version` mirrors the number of applied migrations, so an open of a
/// current vault costs one read.
struct MigrationRunner {
    let migrations: [Migration]
    /// The bmvault version recorded with each applied migration.
    let generatorVersion: String
    let clock: any Clock

    /// The schema version the database is at now.
    static func version(of database: Database) throws(StoreError) -> Int {
        var version = 0
        try database.forEachRow("PRAGMA user_version") { row in version = Int(row.int64(0)) }
        return version
    }

    /// Refuses a vault whose record of its first `version` migrations does not match this
    /// build's: a shipped migration must never change, or two builds would disagree on
    /// what a schema version means.
    func verifyHistory(of database: Database, upTo version: Int) throws(StoreError) {
        var recorded: [(id: String, checksum: String)] = []
        try database.forEachRow("SELECT id, checksum FROM schema_migration ORDER BY id") { row in
            recorded.append((row.text(0), row.text(1)))
        }
        for (index, migration) in migrations.prefix(version).enumerated() {
            guard index < recorded.count, recorded[index].id == migration.id,
                  recorded[index].checksum == migration.checksum else {
                throw .migrationChanged(id: migration.id)
            }
        }
    }

    /// Applies every migration after the database's current version.
    func migrate(_ database: Database) throws(StoreError) {
        let current = try Self.version(of: database)
        guard current <= migrations.count else {
            throw .newerSchema(found: current, supported: migrations.count)
        }
        for (index, migration) in migrations.enumerated() where index >= current {
            try apply(migration, toVersion: index + 1, in: database)
        }
    }

    private func apply(_ migration: Migration, toVersion version: Int, in database: Database) throws(StoreError) {
        let started = clock.now()
        try database.writeTransaction { () throws(StoreError) in
            // Another process may have migrated while this one waited for the write lock.
            guard try Self.version(of: database) == version - 1 else { return }
            try database.execute("""
                    CREATE TABLE IF NOT EXISTS schema_migration (
                        id              TEXT PRIMARY KEY NOT NULL,
                        checksum        TEXT NOT NULL,
                        applied_at      INTEGER NOT NULL,
                        duration_ms     INTEGER NOT NULL,
                        bmvault_version TEXT NOT NULL
                    );
                    """)
            try database.execute(migration.sql)
            let finished = clock.now()
            try database.run("""
                INSERT INTO schema_migration (id, checksum, applied_at, duration_ms, bmvault_version)
                VALUES (?, ?, ?, ?, ?)
                """, [.text(migration.id), .text(migration.checksum),
                      .integer(finished.millisecondsSince1970),
                      .integer(finished.millisecondsSince1970 - started.millisecondsSince1970),
                      .text(generatorVersion)])
            try database.execute("PRAGMA user_version = \(version)")
        }
    }
}
