import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

/// Every vault an earlier bmvault ever wrote opens in this one with every word intact.
///
/// Each fixture in Tests/Fixtures/vaults/vN was made by the code of schema version N
/// (Tests/Fixtures/make-vault-fixture) and is never regenerated. Each is upgraded in one
/// jump (a reader who skipped releases) and through every intermediate version, and then
/// every record in its expected.json must decrypt to the text it was written with.
@Suite struct FixtureUpgradeTests {
    /// A schema version without its fixture would be an upgrade path nobody tests.
    @Test func thereIsAFixtureForEverySchemaVersion() throws {
        #expect(UpgradeFixtures.versions == Array(1...Migrations.latestVersion),
                "make the missing fixtures with Tests/Fixtures/make-vault-fixture and that version's code (Docs/MIGRATIONS.md)")
        for version in UpgradeFixtures.versions {
            let fixture = try UpgradeFixtures.load(version)
            #expect(fixture.expected.schemaVersion == version)
            #expect(fixture.sql.hasPrefix("PRAGMA user_version=\(version);\n"))
            #expect(fixture.passphrase == "fixture passphrase v\(version)")
            let readme = try String(contentsOf: fixture.directory.appendingPathComponent("README.md"), encoding: .utf8)
            #expect(readme.contains("Never regenerate"))
        }
    }

    /// The fixtures hold what real journals hold; a thin fixture would prove little.
    @Test(arguments: UpgradeFixtures.versions)
    func fixtureIsRealistic(version: Int) throws {
        let expected = try UpgradeFixtures.load(version).expected
        let annotations = expected.annotations
        let bodies = annotations.map(\.body)
        #expect(expected.books.filter { !$0.deleted }.count >= 5)
        #expect(expected.books.contains { book in book.deleted && !annotations.contains { $0.bookId == book.id } },
                "a deleted book with no notes")
        #expect(expected.books.contains { $0.authors.count > 1 })
        #expect(Set(expected.books.map(\.progress)).count >= 4)
        #expect(expected.sessions.count >= 5)
        #expect(annotations.count >= 25)
        #expect(annotations.filter { $0.kind == "quote" }.count >= 8)
        #expect(annotations.filter { $0.kind == "quote" }.allSatisfy { $0.locator != nil })
        #expect(annotations.filter(\.deleted).count >= 3, "tombstones")
        #expect(annotations.contains { $0.deleted && $0.version > 2 }, "a tombstone of an edited record")
        #expect(annotations.filter { !$0.deleted && $0.version > 1 }.count >= 3, "edits")
        #expect(bodies.filter { $0.utf8.count >= 10_000 }.count >= 3, "long bodies")
        #expect(bodies.contains { $0.utf8.count >= 18_000 })
        #expect(annotations.contains { $0.deleted && $0.body.utf8.count >= 8_000 }, "a long tombstone")
        for (script, range) in [("Cyrillic", 0x0400...0x04FF), ("Hebrew", 0x0590...0x05FF), ("Arabic", 0x0600...0x06FF),
                                ("CJK", 0x3040...0x9FFF), ("emoji", 0x1F300...0x1FAFF)] {
            #expect(bodies.contains { $0.unicodeScalars.contains { range.contains(Int($0.value)) } }, "no \(script) text")
        }
        #expect(bodies.contains { $0.unicodeScalars.contains("\u{200D}") }, "a zero-width joiner sequence")
        for markdown in ["# ", "\n> ", "\n---\n", "```", "`"] {
            #expect(bodies.contains { $0.contains(markdown) }, "no body with \(markdown.debugDescription)")
        }
        #expect(bodies.contains { $0.hasPrefix("---") }, "a body that starts like an option")
        if expected.schemaVersion >= 20 {
            #expect(expected.sessions.contains { $0.source == "koreader" && ($0.version ?? 1) > 1 }, "an imported session, corrected")
            #expect(expected.sessions.contains { $0.source == nil }, "a typed session")
        }
        if expected.schemaVersion < 7 {
            // A vault with no remote kept every operation, waiting.
            #expect(expected.outbox.counts.pending == expected.outbox.operations.count)
            #expect(expected.outbox.operations.count >= annotations.count + expected.books.count + expected.sessions.count)
        } else {
            // From v7, only the last change's operations, done (there was nowhere to send them).
            #expect(!expected.outbox.operations.isEmpty && expected.outbox.counts.done == expected.outbox.operations.count)
        }
    }

    /// The fixture as materialized is exactly that version's vault: its frozen schema, its
    /// migration records, and the clear columns expected.json lists.
    @Test(arguments: UpgradeFixtures.versions)
    func materializedFixtureIsAtItsVersion(version: Int) throws {
        let fixture = try UpgradeFixtures.load(version)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let database = try Database(path: directory.databasePath, create: false)
        #expect(try MigrationRunner.version(of: database) == version)
        #expect(try SchemaText.of(database) == frozenSchema(version: version))
        #expect(try schemaMigrationIDs(database) == Migrations.all.prefix(version).map(\.id))
        var mode = ""
        try database.forEachRow("PRAGMA journal_mode") { row in mode = row.text(0) }
        #expect(mode == "wal")
        #expect(try tableRows(database, "annotation").count == fixture.expected.annotations.count)
        #expect(try tableRows(database, "book").count == fixture.expected.books.count)
        #expect(try tableRows(database, "reading_session").count == fixture.expected.sessions.count)
        #expect(try tableRows(database, "outbox").count == fixture.expected.outbox.operations.count)
    }

    /// A reader who skipped every release in between: `Store.open` brings the vault to the
    /// newest schema in one upgrade, and every record reads back as written.
    @Test(arguments: UpgradeFixtures.versions)
    func upgradesInOneJumpWithEveryRecordIntact(version: Int) throws {
        let fixture = try UpgradeFixtures.load(version)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let before = try DataBeforeUpgrade(Database(path: directory.databasePath, create: false))
        let history = try migrationHistory(Database(path: directory.databasePath, create: false))

        var events: [MigrationEvent] = []
        let clock = TestClock()
        let store = try Store.open(at: directory.databasePath, clock: clock, generatorVersion: testGeneratorVersion) { events.append($0) }

        let latest = Migrations.latestVersion
        if version < latest {
            let pending = Migrations.all.dropFirst(version)
            #expect(events == [.upgrading(from: version, to: latest, snapshot: directory.databasePath + ".v\(version).snapshot")]
                    + pending.enumerated().map { .applying(id: $1.id, index: $0 + 1, count: pending.count) }
                    + [.upgraded(from: version, to: latest, milliseconds: 0)])
        } else {
            #expect(events.isEmpty)
        }
        #expect(try store.schemaVersion() == latest)
        #expect(try SchemaText.of(store.database) == frozenSchema(version: latest))
        #expect(try schemaMigrationIDs(store.database) == Migrations.all.map(\.id))
        // The records of the migrations applied before are kept as they were.
        #expect(Array(try migrationHistory(store.database).prefix(version)) == history)
        #expect(try before.isPreserved(in: store.database), "an upgrade changed the reader's data")
        #expect(try snapshotFiles(in: directory).isEmpty, "the snapshot outlived a successful upgrade")
        try expectEveryRecord(in: store, of: fixture)
        try expectIntegrity(store.database)
    }

    /// A reader who installed every release: the vault goes through every intermediate
    /// version, each one matching its frozen schema, and ends with every record intact.
    @Test(arguments: UpgradeFixtures.versions)
    func upgradesStepByStepThroughEveryVersion(version: Int) throws {
        let fixture = try UpgradeFixtures.load(version)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        do {
            let database = try Database(path: directory.databasePath, create: false)
            let before = try DataBeforeUpgrade(database)
            for step in stride(from: version + 1, through: Migrations.latestVersion, by: 1) {
                let runner = MigrationRunner(migrations: Array(Migrations.all.prefix(step)), generatorVersion: testGeneratorVersion,
                                             clock: TestClock())
                try runner.migrate(database)
                #expect(try MigrationRunner.version(of: database) == step)
                #expect(try SchemaText.of(database) == frozenSchema(version: step), "after step to v\(step)")
                #expect(try schemaMigrationIDs(database) == Migrations.all.prefix(step).map(\.id))
                #expect(try before.isPreserved(in: database), "step to v\(step) changed the reader's data")
                try expectIntegrity(database)
            }
        }
        var events: [MigrationEvent] = []
        let store = try Store.open(at: directory.databasePath, generatorVersion: testGeneratorVersion) { events.append($0) }
        #expect(events.isEmpty, "the steps left something to upgrade")
        #expect(try store.schemaVersion() == Migrations.latestVersion)
        try expectEveryRecord(in: store, of: fixture)
    }

    /// Migration 0020 (`reading_session.source`) on the v19 fixture, the vault of the build
    /// before it: every session comes through as typed (no source) with its numbers, and the
    /// upgraded vault then keeps an imported session's source, through an edit too.
    @Test func theV19FixtureUpgradesWithTypedSessionsAndThenKeepsASessionsSource() throws {
        let fixture = try UpgradeFixtures.load(19)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let before = try tableRows(Database(path: directory.databasePath, create: false), "reading_session")
        let store = try Store.open(at: directory.databasePath, clock: TestClock(), generatorVersion: testGeneratorVersion)
        #expect(try store.schemaVersion() >= 20)
        #expect(try tableColumns(store.database, "reading_session").last == "source")
        #expect(try tableRows(store.database, "reading_session", only: ["source"]).allSatisfy { $0 == "NULL" })
        #expect(try tableRows(store.database, "reading_session").count == before.count)
        try expectEveryRecord(in: store, of: fixture)
        var sessions: [ReadingSession] = []
        for expected in fixture.expected.sessions {
            let id = try EntityID(validating: expected.id)
            if let version = try store.read({ tables throws(StoreError) in try tables.sessions.version(id) }) { sessions.append(version.session) }
        }
        #expect(sessions.count == fixture.expected.sessions.count && sessions.allSatisfy { $0.source == nil })

        let live = try #require(sessions.first { $0.deletedAt == nil })
        let imported = ReadingSession(id: .generate(at: Timestamp(millisecondsSince1970: 1_790_000_000_000)), bookID: live.bookID,
                                      startedAt: Timestamp(millisecondsSince1970: 1_790_000_000_000),
                                      endedAt: Timestamp(millisecondsSince1970: 1_790_000_900_000), pagesRead: 12, source: "koreader")
        try store.write { tables throws(StoreError) in _ = try tables.sessions.add(imported) }
        try store.write { tables throws(StoreError) in
            _ = try tables.sessions.edit(imported.id) { (session) throws(JournalError) in
                try session.edited(startedAt: nil, endedAt: nil, pagesRead: 14, at: Timestamp(millisecondsSince1970: 1_800_000_000_000))
            }
        }
        let read = try store.read { tables throws(StoreError) in try tables.sessions.session(imported.id) }
        #expect(read.source == "koreader" && read.pagesRead == 14 && read.version == 2)
        #expect(try store.read { tables throws(StoreError) in try tables.sessions.session(live.id) }.source == nil)
    }

    /// The newest fixture was written by this schema: opening it changes nothing at all.
    @Test func theNewestFixtureOpensWithoutAnyChange() throws {
        let version = try #require(UpgradeFixtures.versions.last)
        try #require(version == Migrations.latestVersion)
        let fixture = try UpgradeFixtures.load(version)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let bytes = try fileBytes(directory.databasePath)
        do {
            let store = try Store.open(at: directory.databasePath, generatorVersion: testGeneratorVersion)
            try expectEveryRecord(in: store, of: fixture)
        }
        #expect(try fileBytes(directory.databasePath) == bytes)
    }
}

func expectIntegrity(_ database: Database, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var integrity: [String] = []
    try database.forEachRow("PRAGMA integrity_check") { row in integrity.append(row.text(0)) }
    #expect(integrity == ["ok"], sourceLocation: sourceLocation)
    var violations = 0
    try database.forEachRow("PRAGMA foreign_key_check") { _ in violations += 1 }
    #expect(violations == 0, sourceLocation: sourceLocation)
}
