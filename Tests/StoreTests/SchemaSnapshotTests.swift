import Foundation
import Testing
import Journal
@testable import Store
import VaultCrypto

/// Pins schema v1 to `Schemas/sqlite/v1.sql`. Migration 0001 is frozen: if this fails,
/// the migration text (or an unrecorded table, index or trigger) changed. Never edit the
/// snapshot to make it pass; add a new migration and a new snapshot instead.
@Suite struct SchemaSnapshotTests {
    static let header = "-- bmvault schema v1 (frozen; generated from migration 0001_initial; never edit)"

    /// The SHA-256 of migration 0001's SQL, as shipped in bmvault 0.1.0.
    static let shippedChecksum = "9038ba9a14fa66bff1c5e327d3fc767b0bdc77792d23b843c7c7f5b5b711e7fa"

    /// `<package>/Schemas/sqlite/v1.sql`, found from this file's own path.
    static var snapshotURL: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // StoreTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // package root
            .appendingPathComponent("Schemas/sqlite/v1.sql")
    }

    /// The schema of a database, as the snapshot file is written: a header line, then each
    /// object's SQL followed by ";" and a blank line, ordered by type then name.
    static func schemaText(of database: Database) throws -> String {
        var text = header + "\n"
        try database.forEachRow("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name") { row in
            text += row.text(3) + ";\n\n"
        }
        return text
    }

    @Test func freshVaultSchemaMatchesFrozenSnapshot() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }

        let snapshot = try String(contentsOf: Self.snapshotURL, encoding: .utf8)
        let actual = try Self.schemaText(of: fixture.store.database)
        #expect(snapshot.hasPrefix(Self.header + "\n"))
        #expect(actual == snapshot, "schema of a fresh vault differs from Schemas/sqlite/v1.sql")
    }

    @Test func snapshotNamesEveryTableAndIndexOfTheVault() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }

        var names: [String] = []
        try fixture.store.database.forEachRow("SELECT type || ' ' || name FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name") { row in
            names.append(row.text(0))
        }
        #expect(names == [
            "index annotation_by_book", "index outbox_by_state", "index reading_session_by_book",
            "table annotation", "table book", "table keyslot", "table outbox", "table reading_session",
            "table schema_migration", "table sqlite_sequence", "table vault_meta",
        ])
        #expect(!names.contains { $0.hasPrefix("trigger ") || $0.hasPrefix("view ") })
    }

    @Test func migrationIsRecordedOnceWithItsChecksumAndVersion() throws {
        let clock = TestClock()
        let fixture = try makeFixture(attach: false, clock: clock)
        defer { fixture.directory.remove() }
        let database = fixture.store.database

        var rows: [(id: String, checksum: String, appliedAt: Int64, duration: Int64, version: String)] = []
        try database.forEachRow("SELECT id, checksum, applied_at, duration_ms, bmvault_version FROM schema_migration ORDER BY id") { row in
            rows.append((row.text(0), row.text(1), row.int64(2), row.int64(3), row.text(4)))
        }
        let row = try #require(rows.count == 1 ? rows.first : nil, "expected exactly one migration row, found \(rows.count)")
        #expect(row.id == "0001_initial")
        #expect(row.checksum == SHA256.hex(of: Array(Migration0001Initial.migration.sql.utf8)))
        #expect(row.checksum == Self.shippedChecksum, "migration 0001 text changed after it shipped")
        #expect(row.appliedAt == clock.now().millisecondsSince1970)
        #expect(row.duration == 0)
        #expect(row.version == testGeneratorVersion)

        #expect(try fixture.store.integer("PRAGMA user_version") == 1)
        #expect(try fixture.store.schemaVersion() == 1)
        #expect(Migrations.all.map(\.id) == ["0001_initial"])
        #expect(Migrations.latestVersion == 1)
    }

    @Test func reopeningAppliesNothingTwice() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }
        let before = try Self.schemaText(of: fixture.store.database)
        fixture.clock.advance(seconds: 60)

        let again = try fixture.reopen(attach: false)
        #expect(try Self.schemaText(of: again.database) == before)
        #expect(try again.integer("SELECT count(*) FROM schema_migration") == 1)
        #expect(try again.integer("SELECT applied_at FROM schema_migration") == TestClock.start)
        #expect(try again.schemaVersion() == 1)
    }

    @Test func vaultDatabaseIsInWALMode() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }
        var mode = ""
        try fixture.store.database.forEachRow("PRAGMA journal_mode") { row in mode = row.text(0) }
        #expect(mode == "wal")
        #expect(try fixture.store.integer("PRAGMA foreign_keys") == 1)
    }

    /// Migration.swift promises "a build whose text no longer matches is refused".
    @Test func openRefusesAVaultWhoseRecordedMigrationChecksumDiffers() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }
        try fixture.store.database.run("UPDATE schema_migration SET checksum = ? WHERE id = '0001_initial'",
                                       [.text(String(repeating: "0", count: 64))])

        let before = try fileBytes(fixture.path)
        #expect(throws: StoreError.migrationChanged(id: "0001_initial")) {
            _ = try Store.open(at: fixture.path, clock: fixture.clock, generatorVersion: testGeneratorVersion)
        }
        #expect(try fileBytes(fixture.path) == before)
    }
}
