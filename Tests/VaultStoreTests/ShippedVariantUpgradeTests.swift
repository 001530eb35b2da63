import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

/// Vaults written by a build of a migration's text that shipped and was edited afterwards
/// (issue 47: migration 0006 as dec822e and a37bc02 wrote it) open in this build with every
/// word intact: the frozen repair brings them to today's text, inside the upgrade's one
/// transaction, and the later migrations run as usual.
@Suite struct ShippedVariantUpgradeTests {
    /// The fixture directory each variant is tested with.
    static func fixtureName(of variant: ShippedVariant) -> String { "v\(variant.vaultVersion)-\(variant.commit)" }

    static func variant(named name: String) throws -> ShippedVariant {
        try #require(ShippedVariants.all.first { fixtureName(of: $0) == name }, "no shipped variant for \(name)")
    }

    @Test func everyShippedVariantHasAFixtureMadeByItsBuild() throws {
        #expect(UpgradeFixtures.shippedVariants == ShippedVariants.all.map(Self.fixtureName).sorted())
        for name in UpgradeFixtures.shippedVariants {
            let fixture = try UpgradeFixtures.load(variant: name)
            let variant = try Self.variant(named: name)
            let directory = try fixture.materialized()
            defer { directory.remove() }
            let database = try Database(path: directory.databasePath, create: false)
            #expect(try MigrationRunner.version(of: database) == variant.vaultVersion)
            var recorded = ""
            try database.forEachRow("SELECT checksum FROM schema_migration WHERE id = '\(variant.migrationID)'") { recorded = $0.text(0) }
            #expect(recorded == variant.checksum, "\(name) was not written from the variant's text")
            #expect(try SchemaText.checksum(of: database) != Migrations.all[variant.vaultVersion - 1].schemaChecksum,
                    "\(name) already has today's schema: it tests no repair")
            let readme = try String(contentsOf: fixture.directory.appendingPathComponent("README.md"), encoding: .utf8)
            #expect(readme.contains("commit `\(variant.commit)"), "\(name)'s README names another build")
        }
    }

    /// A reader of that build who upgrades now: one jump to the newest schema, with the
    /// repair reported between the notice and the migrations.
    @Test(arguments: UpgradeFixtures.shippedVariants)
    func upgradesInOneJumpWithEveryRecordIntact(name: String) throws {
        let fixture = try UpgradeFixtures.load(variant: name)
        let variant = try Self.variant(named: name)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let before = try DataBeforeUpgrade(Database(path: directory.databasePath, create: false))
        let history = try migrationHistory(Database(path: directory.databasePath, create: false))

        var events: [MigrationEvent] = []
        let store = try Store.open(at: directory.databasePath, clock: TestClock(), generatorVersion: testGeneratorVersion) { events.append($0) }

        let latest = Migrations.latestVersion
        let pending = Migrations.all.dropFirst(fixture.version)
        #expect(events == [.upgrading(from: fixture.version, to: latest, snapshot: directory.databasePath + ".v\(fixture.version).snapshot"),
                           .repaired(id: variant.migrationID, commit: variant.commit)]
                + pending.enumerated().map { .applying(id: $1.id, index: $0 + 1, count: pending.count) }
                + [.upgraded(from: fixture.version, to: latest, milliseconds: 0)])
        #expect(try SchemaText.of(store.database) == frozenSchema(version: latest))
        #expect(try schemaMigrationIDs(store.database) == Migrations.all.map(\.id))
        // The repaired record now names today's text and says who repaired it; the others are as they were.
        let repairedHistory = history.map { line in
            line.hasPrefix(variant.migrationID + " ")
                ? line.replacingOccurrences(of: variant.checksum, with: Migrations.all[fixture.version - 1].checksum)
                    + ", repaired from \(variant.commit) by \(testGeneratorVersion)"
                : line
        }
        #expect(repairedHistory != history)
        #expect(Array(try migrationHistory(store.database).prefix(fixture.version)) == repairedHistory)
        #expect(try before.isPreserved(in: store.database), "the repair or an upgrade changed the reader's data")
        #expect(try snapshotFiles(in: directory).isEmpty)
        try expectEveryRecord(in: store, of: fixture)
        try expectIntegrity(store.database)
    }

    /// A reader who installs every release from now on: each step matches its frozen schema.
    @Test(arguments: UpgradeFixtures.shippedVariants)
    func upgradesStepByStepThroughEveryVersion(name: String) throws {
        let fixture = try UpgradeFixtures.load(variant: name)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        do {
            let database = try Database(path: directory.databasePath, create: false)
            let before = try DataBeforeUpgrade(database)
            for step in stride(from: fixture.version + 1, through: Migrations.latestVersion, by: 1) {
                let runner = MigrationRunner(migrations: Array(Migrations.all.prefix(step)), generatorVersion: testGeneratorVersion,
                                             clock: TestClock())
                try runner.migrate(database)
                #expect(try SchemaText.of(database) == frozenSchema(version: step), "after step to v\(step)")
                #expect(try before.isPreserved(in: database), "step to v\(step) changed the reader's data")
                try expectIntegrity(database)
            }
            #expect(try runner(upTo: Migrations.latestVersion).verifyHistory(of: database, upTo: Migrations.latestVersion).isEmpty,
                    "the repair is recorded, so it is never applied again")
        }
        let store = try Store.open(at: directory.databasePath, generatorVersion: testGeneratorVersion)
        try expectEveryRecord(in: store, of: fixture)
    }

    /// A vault of that shape that something else changed, so the repair would not end at
    /// the frozen schema: the upgrade is rolled back, the vault stays at its version with
    /// its schema and every row as they were, and the original is kept.
    @Test(arguments: UpgradeFixtures.shippedVariants)
    func aRepairThatWouldNotEndAtTheFrozenSchemaIsRolledBack(name: String) throws {
        let fixture = try UpgradeFixtures.load(variant: name)
        let variant = try Self.variant(named: name)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let path = directory.databasePath
        try Database(path: path, create: false).execute("ALTER TABLE annotation ADD COLUMN unexpected TEXT")
        let database = try Database(path: path, create: false)
        let schema = try SchemaText.of(database)
        let before = try DataBeforeUpgrade(database)

        let snapshot = VaultUpgrade.snapshotPath(for: path, version: fixture.version)
        #expect(throws: StoreError.upgradeFailed(from: fixture.version, to: Migrations.latestVersion, snapshot: snapshot,
                                                  reason: "the check schema after repairing \(variant.migrationID) (Schemas/sqlite/v\(fixture.version).sql) failed")) {
            _ = try Store.open(at: path, clock: TestClock(), generatorVersion: testGeneratorVersion)
        }
        #expect(try MigrationRunner.version(of: database) == fixture.version)
        #expect(try SchemaText.of(database) == schema)
        #expect(try before.isPreserved(in: database))
        #expect(FileManager.default.fileExists(atPath: snapshot))
    }

    /// A variant's checksum is only ever recorded by a vault at the variant's version; one
    /// seen at another version was written by no build, and is refused like any other.
    @Test func aVariantChecksumAtAnotherVersionIsRefused() throws {
        let variant = try #require(ShippedVariants.all.first)
        let fixture = try UpgradeFixtures.load(variant.vaultVersion + 1)
        let directory = try fixture.materialized()
        defer { directory.remove() }
        try Database(path: directory.databasePath, create: false)
            .run("UPDATE schema_migration SET checksum = ? WHERE id = ?", [.text(variant.checksum), .text(variant.migrationID)])
        let before = try fileBytes(directory.databasePath)
        #expect(throws: StoreError.migrationChanged(id: variant.migrationID)) {
            _ = try Store.open(at: directory.databasePath, clock: TestClock(), generatorVersion: testGeneratorVersion)
        }
        #expect(try fileBytes(directory.databasePath) == before)
    }

    private func runner(upTo version: Int) -> MigrationRunner {
        MigrationRunner(migrations: Array(Migrations.all.prefix(version)), generatorVersion: testGeneratorVersion, clock: TestClock())
    }
}
