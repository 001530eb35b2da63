import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What an upgrade guarantees when something goes wrong: a failing or dishonest migration,
/// a snapshot left by an interrupted upgrade, another process, a full disk. In every case
/// the vault stays at its old version with every byte of its data, and the original is
/// kept beside it until an upgrade succeeds.
///
/// Failures are provoked with test-only migrations appended to `Migrations.all`, run by the
/// same ``VaultUpgrade`` procedure `Store.open` uses.
@Suite struct UpgradeSafetyTests {
    // MARK: Failing migrations

    @Test func aMigrationThatFailsHalfwayLeavesTheVaultAtItsOldVersionWithTheSnapshotKept() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let database = try Store.openExisting(path)
        let before = try VaultState(database)
        // Every statement but the last succeeds: a new table, a changed table, changed and
        // deleted data.
        let failing = testMigration("""
            CREATE TABLE test_half (x INTEGER);
            INSERT INTO test_half VALUES (1);
            ALTER TABLE book ADD COLUMN test_extra TEXT;
            UPDATE annotation SET body = X'00';
            DELETE FROM outbox;
            INSERT INTO no_such_table VALUES (1);
            """)

        let error = storeError { () throws(StoreError) in try upgrade(database, at: path, adding: [failing]) }

        let snapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        guard case .upgradeFailed(let from, let to, let named, let reason)? = error else {
            Issue.record("expected upgradeFailed, got \(String(describing: error))")
            return
        }
        #expect(from == fixture.version && to == Migrations.latestVersion + 1)
        #expect(named == snapshot, "the error must say where the original is")
        #expect(reason.contains("no such table: no_such_table"), "\(reason)")
        #expect(!database.isInTransaction)
        #expect(try VaultState(database) == before)
        #expect(try VaultState(Database(path: path, create: false)) == before, "another connection sees a changed vault")
        let kept = try journalContents(ofFileAt: snapshot)
        #expect(kept.version == fixture.version && kept.integrity == ["ok"] && kept.contents == before.contents)

        // The shipped migrations still upgrade it afterwards (reusing that snapshot), and
        // nothing of the failed attempt remains.
        let store = try Store.open(at: path, generatorVersion: testGeneratorVersion)
        try expectEveryRecord(in: store, of: fixture)
        #expect(try schemaMigrationIDs(store.database) == Migrations.all.map(\.id))
        #expect(try snapshotFiles(in: directory).isEmpty)
    }

    @Test func aMigrationThatDoesNotEndAtItsDeclaredSchemaIsRolledBack() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let database = try Store.openExisting(path)
        let before = try VaultState(database)
        let sql = "CREATE TABLE test_extra (id INTEGER PRIMARY KEY, note TEXT NOT NULL);"

        let error = storeError { () throws(StoreError) in try upgrade(database, at: path, adding: [testMigration(sql)]) }

        let next = Migrations.latestVersion + 1
        #expect(error == .upgradeFailed(from: fixture.version, to: next,
                                        snapshot: VaultUpgrade.snapshotPath(for: path, version: fixture.version),
                                        reason: "the check schema (Schemas/sqlite/v\(next).sql) failed"))
        #expect(!database.isInTransaction)
        #expect(try VaultState(database) == before)

        // Control: the same migration, declaring the schema it really produces, commits.
        try upgrade(database, at: path, adding: [testMigration(sql, schemaChecksum: try schemaChecksum(afterShippedMigrationsAnd: sql))])
        #expect(try MigrationRunner.version(of: database) == next)
        #expect(try SchemaText.of(database).contains("CREATE TABLE test_extra"))
        #expect(try before.data.isPreserved(in: database))
        #expect(try snapshotFiles(in: directory).isEmpty)
    }

    @Test func aMigrationThatBreaksAForeignKeyIsRolledBack() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let database = try Store.openExisting(path)
        let before = try VaultState(database)
        // Leaves the schema exactly as the newest one: only the foreign key check can fail.
        let orphan = testMigration("""
            INSERT INTO reading_session (id, book_id, started_at, ended_at, pages_read)
            VALUES ('01a00000-0000-7000-8000-000000000000', 'no-such-book', 0, 0, 1);
            """, schemaChecksum: try #require(Migrations.all.last).schemaChecksum)

        let error = storeError { () throws(StoreError) in try upgrade(database, at: path, adding: [orphan]) }

        #expect(error == .upgradeFailed(from: fixture.version, to: Migrations.latestVersion + 1,
                                        snapshot: VaultUpgrade.snapshotPath(for: path, version: fixture.version),
                                        reason: "the check foreign_key_check failed"))
        #expect(try VaultState(database) == before)
        #expect(try tableRows(database, "reading_session").count == fixture.expected.sessions.count)
    }

    // MARK: The snapshot

    @Test func theSnapshotIsAValidCopyOfTheOldVersionWhileTheUpgradeRunsAndGoneAfter() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let before = try VaultState(Database(path: path, create: false))
        let expectedSnapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)

        var seen: [String] = []
        var copy: (version: Int, schema: String, contents: [String: [String]], integrity: [String])?
        var presentWhileApplying: [Bool] = []
        var presentWhenUpgraded: Bool?
        var mode: Int?
        let store = try Store.open(at: path, generatorVersion: testGeneratorVersion) { event in
            switch event {
            case .upgrading(_, _, let snapshot):
                seen.append(snapshot)
                copy = try? journalContents(ofFileAt: snapshot)
                mode = (try? FileManager.default.attributesOfItem(atPath: snapshot))?[.posixPermissions] as? Int
            case .repaired, .applying:
                presentWhileApplying.append(FileManager.default.fileExists(atPath: expectedSnapshot))
            case .upgraded:
                presentWhenUpgraded = FileManager.default.fileExists(atPath: expectedSnapshot)
            }
        }

        #expect(seen == [expectedSnapshot])
        let snapshot = try #require(copy, "no readable snapshot while the upgrade ran")
        #expect(snapshot.version == fixture.version)
        #expect(snapshot.schema == before.schema)
        #expect(snapshot.contents == before.contents)
        #expect(snapshot.integrity == ["ok"])
        #expect(mode == 0o600, "the snapshot holds the keyslots: it must be private to its owner")
        #expect(!presentWhileApplying.isEmpty && presentWhileApplying.allSatisfy { $0 })
        #expect(presentWhenUpgraded == false, "the snapshot holds the old keyslots: it must go once the upgrade succeeded")
        #expect(try snapshotFiles(in: directory).isEmpty)
        #expect(try store.schemaVersion() == Migrations.latestVersion)
    }

    @Test func aLeftoverSnapshotOfAnAlreadyUpgradedVaultIsRemovedOnOpen() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let original = try fileBytes(path)
        _ = try Store.open(at: path, generatorVersion: testGeneratorVersion)
        // As if the process died at `upgrade:committed`, after the commit and before the removal.
        let leftover = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        try writeFile(original, to: leftover)
        // Files that are not this vault's snapshots stay.
        let bystanders = [directory.file("other.db.v1.snapshot"), directory.file("vault.db.v1.snapshot.txt"), directory.file("notes.md")]
        for bystander in bystanders { try writeFile(Array("keep me".utf8), to: bystander) }

        let store = try Store.open(at: path, generatorVersion: testGeneratorVersion)

        #expect(!FileManager.default.fileExists(atPath: leftover))
        for bystander in bystanders { #expect(FileManager.default.fileExists(atPath: bystander), "\(bystander) was removed") }
        try expectEveryRecord(in: store, of: fixture)
    }

    @Test func aPartialSnapshotIsRemovedAndAFreshOneTaken() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let before = try VaultState(Database(path: path, create: false))
        let snapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        let partial = snapshot + ".partial"
        // As if the process died while the snapshot was being written.
        try writeFile(Array(try fileBytes(path).prefix(8192)), to: partial)

        var partialPresent: Bool?
        var copy: (version: Int, schema: String, contents: [String: [String]], integrity: [String])?
        let store = try Store.open(at: path, generatorVersion: testGeneratorVersion) { event in
            if case .upgrading(_, _, let named) = event {
                partialPresent = FileManager.default.fileExists(atPath: partial)
                copy = named == snapshot ? try? journalContents(ofFileAt: named) : nil
            }
        }

        #expect(partialPresent == false)
        let taken = try #require(copy, "no fresh snapshot was taken")
        #expect(taken.version == fixture.version && taken.contents == before.contents && taken.integrity == ["ok"])
        #expect(try snapshotFiles(in: directory).isEmpty)
        try expectEveryRecord(in: store, of: fixture)
    }

    @Test func anExistingSnapshotFromAnInterruptedUpgradeIsReusedNotOverwritten() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let snapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        // The snapshot an interrupted upgrade took, marked so a fresh one would show.
        do {
            let database = try Database(path: path, create: false)
            try database.run("VACUUM INTO ?", [.text(snapshot)])
        }
        do {
            let marked = try Database(path: snapshot, create: false)
            try marked.execute("INSERT INTO vault_meta (key, value) VALUES ('test_marker', 'taken by the interrupted upgrade')")
        }
        let planted = try fileBytes(snapshot)

        // A failing attempt keeps it as it was and names it...
        let database = try Store.openExisting(path)
        let error = storeError { () throws(StoreError) in
            try upgrade(database, at: path, adding: [testMigration("INSERT INTO no_such_table VALUES (1);")])
        }
        guard case .upgradeFailed(_, _, let named, _)? = error else {
            Issue.record("expected upgradeFailed, got \(String(describing: error))")
            return
        }
        #expect(named == snapshot)
        #expect(try fileBytes(snapshot) == planted, "the kept snapshot was overwritten")

        // ...and a succeeding one uses it, then removes it.
        var atUpgrading: [UInt8]?
        let store = try Store.open(at: path, generatorVersion: testGeneratorVersion) { event in
            if case .upgrading(_, _, let named) = event { atUpgrading = try? fileBytes(named) }
        }
        #expect(atUpgrading == planted, "the snapshot of the interrupted upgrade was replaced")
        #expect(try snapshotFiles(in: directory).isEmpty)
        try expectEveryRecord(in: store, of: fixture)
    }

    // MARK: Full disk

    /// `max_page_count` on the upgrading connection: the database cannot grow past it, as
    /// on a full disk, and SQLite reports SQLITE_FULL in the middle of the migration.
    @Test func aDiskThatFillsDuringTheUpgradeRollsItBackCleanly() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let database = try Store.openExisting(path)
        let before = try VaultState(database)
        var pages: Int64 = 0
        try database.forEachRow("PRAGMA page_count") { row in pages = row.int64(0) }
        try database.execute("PRAGMA max_page_count = \(pages + 16)")

        let error = storeError { () throws(StoreError) in try upgrade(database, at: path, adding: [fillerMigration()]) }

        let snapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        #expect(error == .upgradeFailed(from: fixture.version, to: Migrations.latestVersion + 1, snapshot: snapshot,
                                        reason: "the disk filled up"))
        #expect(database.isInTransaction == false, "after SQLITE_FULL the transaction must be rolled back explicitly")
        #expect(try VaultState(database) == before)
        #expect(try VaultState(Database(path: path, create: false)) == before)
        #expect(try journalContents(ofFileAt: snapshot).contents == before.contents)

        // With room again, the shipped upgrade goes through.
        try database.execute("PRAGMA max_page_count = 1073741823")
        let store = try Store.open(at: path, generatorVersion: testGeneratorVersion)
        try expectEveryRecord(in: store, of: fixture)
    }

    @Test func theGrowthAllowanceIsATenthOfTheVaultAndAtLeastOneMebibyte() {
        #expect(VaultUpgrade.growthAllowance(forDatabaseBytes: 0) == 1 << 20)
        #expect(VaultUpgrade.growthAllowance(forDatabaseBytes: 300_000) == 1 << 20)
        #expect(VaultUpgrade.growthAllowance(forDatabaseBytes: 10 << 20) == 1 << 20)
        #expect(VaultUpgrade.growthAllowance(forDatabaseBytes: 50_000_000) == 5_000_000)
    }

    /// On a real, small file system (tmpfs, mounted when the tests run as root).
    @Test(.enabled(if: SmallFileSystem.isAvailable, SmallFileSystem.skipReason))
    func tooLittleRoomForTheSnapshotIsRefusedBeforeAnythingIsTouched() throws {
        let (fixture, source) = try oldVault()
        defer { source.remove() }
        let bytes = try fileBytes(source.databasePath)
        let databaseBytes = Int64(bytes.count)
        // The vault fits, its snapshot would not.
        let fileSystem = try SmallFileSystem(bytes: databaseBytes + databaseBytes / 2)
        defer { fileSystem.unmount() }
        let path = fileSystem.path + "/vault.db"
        try writeFile(bytes, to: path)
        let free = try FileSystem.availableBytes(at: fileSystem.path)
        try #require(free < databaseBytes)

        let error = storeError { () throws(StoreError) in try Store.open(at: path, generatorVersion: testGeneratorVersion) }

        guard case .insufficientSpace(let needed, let available)? = error else {
            Issue.record("expected insufficientSpace, got \(String(describing: error))")
            return
        }
        #expect(needed == databaseBytes + VaultUpgrade.growthAllowance(forDatabaseBytes: databaseBytes))
        #expect(available < needed && available <= free)
        #expect(try fileBytes(path) == bytes, "the vault was changed")
        // Nothing appeared: not even the upgrade lock file stays (issue 23, low).
        let names = try FileManager.default.contentsOfDirectory(atPath: fileSystem.path).sorted()
        #expect(names == ["vault.db"], "\(names)")
        #expect(try MigrationRunner.version(of: Database(path: path, create: false)) == fixture.version)
    }

    @Test(.enabled(if: SmallFileSystem.isAvailable, SmallFileSystem.skipReason))
    func aRealFileSystemThatFillsDuringTheUpgradeLeavesTheOldVersionIntact() throws {
        let (fixture, source) = try oldVault()
        defer { source.remove() }
        let bytes = try fileBytes(source.databasePath)
        let databaseBytes = Int64(bytes.count)
        // Room for the vault, its snapshot and the growth allowance (plus the WAL index),
        // but not for a migration that writes tens of megabytes.
        let fileSystem = try SmallFileSystem(bytes: 2 * databaseBytes + VaultUpgrade.growthAllowance(forDatabaseBytes: databaseBytes) + 384 << 10)
        defer { fileSystem.unmount() }
        let path = fileSystem.path + "/vault.db"
        try writeFile(bytes, to: path)
        let database = try Store.openExisting(path)
        let before = try VaultState(database)

        let error = storeError { () throws(StoreError) in try upgrade(database, at: path, adding: [fillerMigration()]) }

        let snapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        #expect(error == .upgradeFailed(from: fixture.version, to: Migrations.latestVersion + 1, snapshot: snapshot,
                                        reason: "the disk filled up"))
        #expect(!database.isInTransaction)
        #expect(try VaultState(database) == before)
        #expect(try VaultState(Database(path: path, create: false)) == before)
        let kept = try journalContents(ofFileAt: snapshot)
        #expect(kept.version == fixture.version && kept.contents == before.contents && kept.integrity == ["ok"])
    }

    // MARK: The upgrade lock

    @Test func anUpgradeWaitsForTheUpgradeLockBeforeTouchingAnything() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        var lock: FileLock? = try FileLock.acquire(path: path + ".lock")
        let progress = Progress()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            do {
                let store = try Store.open(at: path, generatorVersion: testGeneratorVersion) { event in
                    if case .upgrading = event { progress.note("upgrading") }
                }
                progress.note("opened at v\((try? store.schemaVersion()) ?? -1)")
            } catch {
                progress.note("failed: \(error)")
            }
            finished.signal()
        }

        Thread.sleep(forTimeInterval: 0.5)
        #expect(progress.notes.isEmpty, "the upgrade went ahead while another process held the lock: \(progress.notes)")
        #expect(try snapshotFiles(in: directory).isEmpty)
        #expect(try MigrationRunner.version(of: Database(path: path, create: false)) == fixture.version)

        withExtendedLifetime(lock) {}
        lock = nil
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(progress.notes == ["upgrading", "opened at v\(Migrations.latestVersion)"])
    }

    // MARK: Known issues

    /// A newer bmvault is upgrading this vault (it holds the upgrade lock, and its snapshot
    /// of the current version is beside the vault) when this build, for which the vault is
    /// current, opens it. That open must leave the snapshot alone: it is the other
    /// process's only copy of the original until its upgrade succeeds.
    @Test func openingACurrentVaultLeavesTheSnapshotOfAnUpgradeInProgressAlone() throws {
        let fixture = try makeFixture(attach: false)
        defer { fixture.directory.remove() }
        let path = fixture.path
        let snapshot = VaultUpgrade.snapshotPath(for: path, version: Migrations.latestVersion)
        let paused = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Progress()
        // The "newer bmvault": one more migration, which fails after the snapshot is taken.
        DispatchQueue.global().async {
            do {
                let database = try Store.openExisting(path)
                try upgrade(database, at: path, adding: [testMigration("INSERT INTO no_such_table VALUES (1);")]) { event in
                    if case .upgrading = event {
                        paused.signal()
                        resume.wait()
                    }
                }
                outcome.note("upgraded")
            } catch {
                outcome.note("\(error)")
            }
            finished.signal()
        }
        try #require(paused.wait(timeout: .now() + 60) == .success)
        try #require(FileManager.default.fileExists(atPath: snapshot))

        _ = try Store.open(at: path, clock: fixture.clock, generatorVersion: testGeneratorVersion)
        let keptWhileOtherUpgrades = FileManager.default.fileExists(atPath: snapshot)
        resume.signal()
        #expect(finished.wait(timeout: .now() + 60) == .success)

        #expect(keptWhileOtherUpgrades, "the snapshot of an upgrade in progress was deleted")
        #expect(FileManager.default.fileExists(atPath: snapshot), "the failed upgrade names a snapshot that no longer exists: \(outcome.notes)")
    }

    /// A process died after committing an upgrade and before removing its snapshot
    /// (`upgrade:committed`), and the next open is by a build with one more migration. The
    /// original worth keeping for that upgrade is the vault as it is now, not the older
    /// leftover.
    @Test func anUpgradeKeepsACopyOfTheVersionItStartsFrom() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let original = try fileBytes(path)
        _ = try Store.open(at: path, generatorVersion: testGeneratorVersion)
        try writeFile(original, to: VaultUpgrade.snapshotPath(for: path, version: fixture.version))
        let sql = "CREATE TABLE test_extra (x INTEGER);"
        let next = testMigration(sql, schemaChecksum: try schemaChecksum(afterShippedMigrationsAnd: sql))

        let database = try Store.openExisting(path)
        var named: String?
        var namedVersion: Int?
        try upgrade(database, at: path, adding: [next]) { event in
            if case .upgrading(_, _, let snapshot) = event {
                named = snapshot
                namedVersion = try? journalContents(ofFileAt: snapshot).version
            }
        }

        #expect(try MigrationRunner.version(of: database) == Migrations.latestVersion + 1)
        #expect(named == VaultUpgrade.snapshotPath(for: path, version: Migrations.latestVersion))
        #expect(namedVersion == Migrations.latestVersion)
        #expect(try snapshotFiles(in: directory).isEmpty)
    }

    // MARK: The journal

    /// Alone with the vault, an upgrade changes the file in place with a rollback journal
    /// (each changed page written once, not into the WAL and again by the checkpoint) and
    /// leaves the vault in WAL mode.
    @Test func anUpgradeAloneWithTheVaultUsesARollbackJournalAndReturnsToTheWAL() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let database = try Store.openExisting(path)
        var modes: [String] = []
        try upgrade(database, at: path, adding: []) { event in
            if case .applying = event { modes.append((try? journalMode(database)) ?? "unreadable") }
        }
        #expect(!modes.isEmpty && modes.allSatisfy { $0 == "delete" }, "\(modes)")
        #expect(try journalMode(database) == "wal")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        try expectEveryRecord(in: try Store.open(at: path, generatorVersion: testGeneratorVersion), of: fixture)
    }

    /// With another connection open (another process reading), the upgrade keeps the WAL,
    /// so that reader is not disturbed, and the upgrade still commits.
    @Test func anUpgradeBesideAnotherConnectionKeepsTheWAL() throws {
        let (fixture, directory) = try oldVault()
        defer { directory.remove() }
        let path = directory.databasePath
        let other = try Database(path: path, create: false)
        #expect(try MigrationRunner.version(of: other) == fixture.version)
        let database = try Store.openExisting(path)
        var modes: [String] = []
        try upgrade(database, at: path, adding: []) { event in
            if case .applying = event { modes.append((try? journalMode(database)) ?? "unreadable") }
        }
        #expect(!modes.isEmpty && modes.allSatisfy { $0 == "wal" }, "\(modes)")
        #expect(try MigrationRunner.version(of: other) == Migrations.latestVersion)
    }
}

// MARK: - Helpers

private func journalMode(_ database: Database) throws -> String {
    var mode = ""
    try database.forEachRow("PRAGMA journal_mode") { row in mode = row.text(0) }
    return mode
}

/// The oldest fixture, materialized: a vault an upgrade applies to.
private func oldVault() throws -> (UpgradeFixture, TemporaryDirectory) {
    let version = try #require(UpgradeFixtures.olderThanNewest.first, "no fixture older than the newest schema")
    let fixture = try UpgradeFixtures.load(version)
    return (fixture, try fixture.materialized())
}

/// A test-only migration after the shipped ones (it never ships: ids `NNNN_test_only`).
func testMigration(_ sql: String, schemaChecksum: String = String(repeating: "0", count: 64)) -> Migration {
    Migration(id: String(format: "%04d_test_only", Migrations.latestVersion + 1), summary: "test only",
              schemaChecksum: schemaChecksum, sql: sql)
}

/// A migration that writes about 20 MB.
private func fillerMigration() -> Migration {
    testMigration("""
        CREATE TABLE test_filler (n INTEGER PRIMARY KEY, pad BLOB NOT NULL);
        WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 20000)
        INSERT INTO test_filler SELECT n, randomblob(1000) FROM counter;
        """)
}

/// The schema checksum a vault has after the shipped migrations and then `sql`.
func schemaChecksum(afterShippedMigrationsAnd sql: String) throws -> String {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let database = try Database(path: scratch.databasePath, create: true)
    try MigrationRunner(migrations: Migrations.all, generatorVersion: testGeneratorVersion, clock: TestClock()).migrate(database)
    try database.execute(sql)
    return try SchemaText.checksum(of: database)
}

/// The upgrade procedure `Store.open` runs, with `extra` migrations after the shipped ones.
func upgrade(_ database: Database, at path: String, adding extra: [Migration],
             events: (MigrationEvent) -> Void = { _ in }) throws(StoreError) {
    let runner = MigrationRunner(migrations: Migrations.all + extra, generatorVersion: testGeneratorVersion, clock: TestClock())
    try VaultUpgrade(path: path, runner: runner).run(database, events: events)
}

/// Everything an upgrade could change: version, schema, migration records and data.
struct VaultState: Equatable {
    let version: Int
    let schema: String
    let migrations: [String]
    let contents: [String: [String]]
    let data: DataBeforeUpgrade

    init(_ database: Database) throws {
        version = try MigrationRunner.version(of: database)
        schema = try SchemaText.of(database)
        migrations = try tableRows(database, "schema_migration")
        contents = try journalContents(database)
        data = try DataBeforeUpgrade(database)
    }
}

/// Notes from a background thread, read by the test.
final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func note(_ text: String) {
        lock.lock()
        recorded.append(text)
        lock.unlock()
    }

    var notes: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// A tmpfs of a given size on a fresh directory: a real file system that fills up.
/// Mounting needs root (CAP_SYS_ADMIN); elsewhere the tests that need one are skipped.
final class SmallFileSystem {
    static let skipReason: Comment = "a real small file system needs root and `mount -t tmpfs` (run the tests as root, e.g. in the CI container)"

    static let isAvailable: Bool = {
        guard getuid() == 0, let probe = try? SmallFileSystem(bytes: 1 << 20) else { return false }
        probe.unmount()
        return true
    }()

    let path: String

    init(bytes: Int64) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("bmvault-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let pageRounded = (bytes + 4095) / 4096 * 4096
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(pageRounded),mode=0700") == 0 else {
            let code = errno
            rmdir(path)
            throw SmallFileSystemError.mountFailed(errno: code)
        }
    }

    /// Always called (in a `defer`): detaches the file system even if something is open on it.
    func unmount() {
        umount2(path, 2 /* MNT_DETACH */)
        rmdir(path)
    }
}

enum SmallFileSystemError: Error {
    case mountFailed(errno: Int32)
}
