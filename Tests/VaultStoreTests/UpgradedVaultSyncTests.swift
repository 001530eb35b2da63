import Foundation
import Testing
import Journal
@testable import VaultStore
import Sync
import SyncWire
import VaultCrypto
import TestSupport

/// A vault written by any earlier bmvault syncs after its upgrade: its outbox, written in
/// the format of its day (each record's JSON sealed for the outbox), is converted once and
/// sent like any operation, and a device that joins through the remote gets every record.
@Suite struct UpgradedVaultSyncTests {
    @Test(arguments: UpgradeFixtures.olderThanNewest)
    func anUpgradedVaultSendsItsWholeJournalToANewDevice(version: Int) throws {
        try expectWholeJournalReachesANewDevice(from: UpgradeFixtures.load(version))
    }

    /// A vault written from a text of a migration that was edited after it shipped (issue
    /// 47), repaired and upgraded, syncs with a vault made today just the same.
    @Test(arguments: UpgradeFixtures.shippedVariants)
    func aRepairedVaultSendsItsWholeJournalToANewDevice(name: String) throws {
        try expectWholeJournalReachesANewDevice(from: UpgradeFixtures.load(variant: name))
    }

    private func expectWholeJournalReachesANewDevice(from fixture: UpgradeFixture) throws {
        let version = fixture.version
        let directory = try fixture.materialized()
        defer { directory.remove() }
        let remoteFolder = directory.file("remote")
        try FileManager.default.createDirectory(atPath: remoteFolder, withIntermediateDirectories: true)
        // From schema v3 a vault can have a remote: one recorded before the upgrade receives
        // the operations waiting for it (older rows converted once); a vault older than
        // that gets its first remote now, and with it a snapshot of the journal. So does a
        // v7 vault, whose fixture has no remote: from v7 a vault without one keeps no
        // outbox, so a remote recorded behind its back would find nothing waiting for it.
        let remoteBeforeUpgrade = (3..<7).contains(version)
        if remoteBeforeUpgrade {
            let database = try Database(path: directory.databasePath, create: false)
            try database.run("INSERT INTO remote (name, kind, location, added_at) VALUES ('shared', 'folder', ?, 0)", [.text(remoteFolder)])
        }

        let old = try Store.open(at: directory.databasePath, clock: TestClock(), generatorVersion: testGeneratorVersion)
        let key = try unlockWithFixturePassphrase(old, fixture)
        let cipher = OperationCipher(sealer: FieldSealer(key: key, vaultID: old.metadata.vaultID))
        if !remoteBeforeUpgrade { try old.write { tables throws(StoreError) in try tables.remotes.add(name: "shared", kind: .folder, location: remoteFolder) } }
        let remote = { FolderRemote(name: "shared", location: remoteFolder, vaultID: old.metadata.vaultID) }
        let pushed = try SyncEngine(journal: StoreSyncJournal(old), cipher: cipher, remotes: [remote()]).run(allowMassDelete: false)
        #expect(pushed.failures == 0 && pushed.unsentRecords == 0)
        if remoteBeforeUpgrade {
            #expect(pushed.pushed == fixture.expected.outbox.operations.count && pushed.snapshots.isEmpty)
        } else {
            // From v13 the snapshot also carries every tagging, given or taken away.
            var taggings = 0
            if version >= 13 {
                try Database(path: directory.databasePath, create: false)
                    .forEachRow("SELECT count(*) FROM tagging") { row in taggings = Int(row.int64(0)) }
            }
            // From v17 it carries every book file too (the v17 fixture has one).
            var bookFiles = 0
            if version >= 17 {
                try Database(path: directory.databasePath, create: false)
                    .forEachRow("SELECT count(*) FROM book_file") { row in bookFiles = Int(row.int64(0)) }
                #expect(bookFiles > 0, "the fixture attaches a file")
            }
            let records = fixture.expected.books.count + fixture.expected.sessions.count + fixture.expected.annotations.count
                + taggings + bookFiles
            #expect(pushed.snapshots == ["shared": records] && pushed.pushed == records)
        }
        #expect(try old.outboxRows().isEmpty, "every operation sent, and compacted")

        let newPath = directory.file("new.db")
        let joined = try Store.create(at: newPath, metadata: VaultMetadata(vaultID: old.metadata.vaultID, keyID: key.id,
                                                                           createdAt: TestClock().now()),
                                      keyslots: try old.read { tables throws(StoreError) in try tables.keys.slots() }, clock: TestClock(), generatorVersion: testGeneratorVersion)
        try joined.attach(key)
        try joined.write { tables throws(StoreError) in try tables.remotes.add(name: "shared", kind: .folder, location: remoteFolder) }
        let pulled = try SyncEngine(journal: StoreSyncJournal(joined), cipher: cipher, remotes: [remote()]).run(allowMassDelete: true)
        #expect(pulled.rejected == 0 && pulled.deferred == 0)

        let liveBooks = fixture.expected.books.filter { !$0.deleted }
        #expect(try joined.read { tables throws(StoreError) in try tables.books.all() }.compactMap { try? $0.get() }.map(\.title).sorted() == liveBooks.map(\.title).sorted())
        let liveNotes = fixture.expected.annotations.filter { !$0.deleted }
        #expect(try joined.liveAnnotations().compactMap { try? $0.get() }.map(\.body).sorted() == liveNotes.map(\.body).sorted())
        #expect(try joined.read { tables throws(StoreError) in try tables.records.counts() } == old.read { tables throws(StoreError) in try tables.records.counts() })
        let filesOfOld = try old.read { tables throws(StoreError) in try tables.bookFiles.attached() }.map(\.id)
        #expect(try joined.read { tables throws(StoreError) in try tables.bookFiles.attached() }.map(\.id) == filesOfOld, "the book files' records came too")
    }
}
