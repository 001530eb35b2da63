import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

/// Pins every schema version to its frozen file `Schemas/sqlite/vN.sql`, and every shipped
/// migration to its text. If one of these fails, a shipped migration (or the schema it
/// produces) changed: never edit a snapshot or a checksum to make it pass; add a new
/// migration, with a new snapshot and fixture, instead (Docs/MIGRATIONS.md).
@Suite struct SchemaSnapshotTests {
    /// The SHA-256 of each migration's SQL as it first landed on main: what shipped to every
    /// reader who built from it. Frozen: a new migration appends its row; no row changes.
    static let landedChecksums: [(id: String, checksum: String)] = [
        ("0001_initial", "9038ba9a14fa66bff1c5e327d3fc767b0bdc77792d23b843c7c7f5b5b711e7fa"),
        ("0002_rekey_job", "3c1c8946668c9f146daf05c41862329398b2f923768916783568e12b2d086a0d"),
        ("0003_sync_state", "6333ac15e4c051c543af2b61ed919a91854488015e56576b8735d5caaeb72e3b"),
        ("0004_book_title_cache", "99f54d98d2353e8f6ca7c4874040a6b6e98855cd6cb024c1cc7127a375c9e5bb"),
        ("0005_outbox_check_comparisons", "f1033553e2318c10fe128db5310988493fcc5e7c88c9ca9f93868ebe5145fa4f"),
        ("0006_version_vectors", "5fb9c462152b226ab95ec069f7bb39445b47e7d8bd5c1f3aaa8f74a893c50259"),
        ("0007_remote_history", "2f1048b82526c27c85f9ec17ab8add8c3fcbe6850751f261c577fcaae9306f36"),
        ("0008_key_chain", "907cec521067fda8531d85b6df2afe2457529c66c310e8830777d41802ded50d"),
        ("0009_session_edits", "a37c0a432f191fea51b9e4917082fa93f7124a38ddcacffd32cad6ca3935b0f9"),
        ("0010_shelves", "660c81193d096c9ae1ff4641e417e86de2479f5e94e414fafb492c30bc402e54"),
        ("0011_editions", "0a609d92039a5f67eaf13141ebc46ebcb6c0704c79f39c3e5a61622f9679358e"),
        ("0012_moves", "c125b90ef5c0fc539d9d2fddb25eb3e1208536d251943ed3c51dc9bcac07a25e"),
        ("0013_tags", "f4b6618382c9fd730f5949f487b4b75537be7710de70604fe6023f550404d70d"),
        ("0014_short_ids", "927d95493cee5dcf54af9534cfe901da013c528618a26a4ece4867d60c0d2f94"),
        ("0015_webdav_remotes", "a3482da1ceb5e3a6c27ee5de1f8040fd8c4c9fd0e762d716cf52ed7365f386e6"),
        ("0016_imports", "49839f6fed45e8a9870d2c1a5561bc8869761aa090d5c649bed24c01e9dba434"),
        ("0017_files", "363dbf8766e59e0a55bf56895ae90a4be73eb25c5026029841709d13a6de70d5"),
        ("0018_file_sync", "26c88f0b3400aebca140c08cb8698150542cbcf5df0df7db03f862c516e918a8"),
        ("0019_remote_files", "67a3c705e087830a07e89778a1507c98d8f2373a033145030b8490752a8ab195"),
        ("0020_session_sources", "618384c719180336889b1525211013b8715c5a2b8c7df2c35247a8315c28b541"),
    ]

    /// `<package>/Schemas/sqlite`, found from this file's own path.
    static var schemasDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // VaultStoreTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // package root
            .appendingPathComponent("Schemas/sqlite")
    }

    static func header(version: Int) -> String {
        "-- bmvault schema v\(version) (frozen; generated from migration \(Migrations.all[version - 1].id); never edit)"
    }

    /// A new database brought to `version` by the first `version` migrations only.
    static func database(atVersion version: Int, in directory: TemporaryDirectory) throws -> Database {
        let database = try Database(path: directory.file("v\(version).db"), create: true)
        try MigrationRunner(migrations: Array(Migrations.all.prefix(version)), generatorVersion: testGeneratorVersion,
                            clock: TestClock()).migrate(database)
        return database
    }

    @Test(arguments: 1...Migrations.latestVersion)
    func schemaAfterEachMigrationMatchesItsFrozenFile(version: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try Self.database(atVersion: version, in: directory)
        let frozen = try String(contentsOf: Self.schemasDirectory.appendingPathComponent("v\(version).sql"), encoding: .utf8)
        let actual = try SchemaText.of(database)
        #expect(frozen == Self.header(version: version) + "\n" + actual, "schema v\(version) differs from Schemas/sqlite/v\(version).sql")
        #expect(SHA256.hex(of: Array(actual.utf8)) == Migrations.all[version - 1].schemaChecksum,
                "migration \(Migrations.all[version - 1].id) declares a schema checksum that is not its schema's")
        #expect(try MigrationRunner.version(of: database) == version)
    }

    @Test func thereIsOneFrozenFilePerVersionAndNoOther() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.schemasDirectory.path).sorted()
        #expect(names == (1...Migrations.latestVersion).map { "v\($0).sql" }.sorted())
    }

    /// The only migration edited after it landed (issue 47): its texts after the first, in
    /// order, the last being today's. Each earlier text is a ``ShippedVariant`` with a
    /// frozen repair, pinned here by the SHA-256 of its SQL. Frozen: never add a row.
    static let editedAfterLanding: [(id: String, laterTexts: [String], repairs: [String: String])] = [
        ("0006_version_vectors",
         ["376e7163688f6110ae1cec1d9485bd7ee9ceb03cad22db082c28d86be6c821af",
          "7bdffe463c846d7d76efb87151ba5590a52885070af14e14e523de5963afa38c"],
         ["5fb9c462152b226ab95ec069f7bb39445b47e7d8bd5c1f3aaa8f74a893c50259": "9f5c9b964f793763977f297958e7fd2799664efc0e844341a8fe86a7e3fb7f3b",
          "376e7163688f6110ae1cec1d9485bd7ee9ceb03cad22db082c28d86be6c821af": "a57550338c5da349313f260c70046755c5e6fc6372f836ceafd01ec8e33997cb"]),
    ]

    /// A migration that landed has shipped: its SQL is what it was when it first landed
    /// (comments around it may change). The one exception, from before this test, keeps
    /// every text it had, and each superseded one has its repair.
    @Test func landedMigrationsNeverChange() {
        #expect(Migrations.all.map(\.id) == Self.landedChecksums.map(\.id), "a migration was added without pinning its checksum here")
        for (migration, landed) in zip(Migrations.all, Self.landedChecksums) {
            let edited = Self.editedAfterLanding.first { $0.id == migration.id }
            let texts = [landed.checksum] + (edited?.laterTexts ?? [])
            #expect(migration.checksum == texts.last, "migration \(migration.id) was edited after it landed: add a new migration instead")
            let variants = ShippedVariants.all.filter { $0.migrationID == migration.id }
            #expect(variants.map(\.checksum) == Array(texts.dropLast()), "every superseded text of \(migration.id) needs its repair")
            for variant in variants {
                #expect(Migration.checksum(of: variant.repair) == edited?.repairs[variant.checksum],
                        "the repair of \(migration.id) as \(variant.commit) wrote it was edited after it landed")
            }
        }
        let ids = Migrations.all.map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "migration ids must be unique and ordered")
        for (index, id) in ids.enumerated() {
            #expect(id.hasPrefix(String(format: "%04d_", index + 1)), "\(id) is out of sequence")
        }
    }

    @Test func freshVaultIsAtTheNewestVersionWithEveryMigrationRecordedOnce() throws {
        let clock = TestClock()
        let fixture = try makeFixture(attach: false, clock: clock)
        defer { fixture.directory.remove() }
        var rows: [(id: String, checksum: String, appliedAt: Int64, duration: Int64, version: String)] = []
        try fixture.store.database.forEachRow("SELECT id, checksum, applied_at, duration_ms, bmvault_version FROM schema_migration ORDER BY id") { row in
            rows.append((row.text(0), row.text(1), row.int64(2), row.int64(3), row.text(4)))
        }
        #expect(rows.map(\.id) == Migrations.all.map(\.id))
        #expect(rows.map(\.checksum) == Migrations.all.map(\.checksum))
        #expect(rows.allSatisfy { $0.appliedAt == clock.now().millisecondsSince1970 && $0.duration == 0 && $0.version == testGeneratorVersion })
        #expect(try fixture.store.integer("PRAGMA user_version") == Int64(Migrations.latestVersion))
        #expect(try fixture.store.schemaVersion() == Migrations.latestVersion)
        let frozen = try String(contentsOf: Self.schemasDirectory.appendingPathComponent("v\(Migrations.latestVersion).sql"), encoding: .utf8)
        #expect(frozen == Self.header(version: Migrations.latestVersion) + "\n" + (try SchemaText.of(fixture.store.database)))
    }

    @Test func reopeningAppliesNothingTwice() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }
        let before = try SchemaText.of(fixture.store.database)
        fixture.clock.advance(seconds: 60)

        let again = try fixture.reopen(attach: false)
        #expect(try SchemaText.of(again.database) == before)
        #expect(try again.integer("SELECT count(*) FROM schema_migration") == Int64(Migrations.latestVersion))
        #expect(try again.integer("SELECT max(applied_at) FROM schema_migration") == TestClock.start)
    }

    @Test func vaultDatabaseIsInWALMode() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }
        var mode = ""
        try fixture.store.database.forEachRow("PRAGMA journal_mode") { row in mode = row.text(0) }
        #expect(mode == "wal")
        #expect(try fixture.store.integer("PRAGMA foreign_keys") == 1)
    }

    /// Migration.swift promises "a vault whose record differs from this build's text is refused".
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
