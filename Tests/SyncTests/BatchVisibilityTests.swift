import Applier
import Foundation
import Testing
import FileIO
import Journal
@testable import Sync
@testable import SyncWire
@testable import VaultStore
import VaultCrypto

/// page-not-atomic: a batch of pulled operations is applied in ONE transaction. A second
/// connection to the same vault, reading after every operation the engine applies, must
/// see nothing of the batch until it commits, and all of it after.
@Suite struct BatchVisibilityTests {
    /// The Store as sync sees it, with a reader that looks at the vault from another
    /// connection each time an operation of a batch has been applied.
    final class PeekingJournal: SyncJournal {
        let store: VaultSyncJournal
        let reader: Store
        private(set) var seenDuringBatches: [Int] = []

        init(store: Store, reader: Store) {
            self.store = StoreSyncJournal(store)
            self.reader = reader
        }

        struct Transaction: SyncApplyTransaction {
            let inner: MergeTransaction
            let peek: () throws(StoreError) -> Void

            func isApplied(_ key: String) throws(StoreError) -> Bool { try inner.isApplied(key) }
            func markApplied(_ key: String, device: String, clock: HybridTimestamp) throws(StoreError) {
                try inner.markApplied(key, device: device, clock: clock)
                try peek()
            }
            func observe(_ clock: HybridTimestamp) throws(StoreError) { try inner.observe(clock) }
            func merge(_ record: RecordVersion) throws(StoreError) -> JournalMerge.Outcome { try inner.merge(record) }
        }

        func applyInOneTransaction<Result>(_ body: (Transaction) throws(StoreError) -> Result) throws(StoreError) -> Result {
            try store.applyInOneTransaction { (inner) throws(StoreError) -> Result in
                try body(Transaction(inner: inner) { () throws(StoreError) in
                    self.seenDuringBatches.append(try self.reader.read { tables throws(StoreError) in try tables.records.counts() }.notes)
                })
            }
        }

        var deviceID: String { store.deviceID }
        var vaultID: String { store.vaultID }
        var keyID: KeyID { store.keyID }
        var now: Timestamp { store.now }
        func keyslots() throws(StoreError) -> [Keyslot] { try store.keyslots() }
        func keyslotGeneration() throws(StoreError) -> Int { try store.keyslotGeneration() }
        func adoptKeyslots(_ slots: [Keyslot], generation: Int, replacing current: Int) throws(StoreError) -> Bool {
            try store.adoptKeyslots(slots, generation: generation, replacing: current)
        }
        func retiredKeys() throws(StoreError) -> [RetiredKey] { try store.retiredKeys() }
        func adoptRetiredKeys(_ keys: [RetiredKey]) throws(StoreError) -> Int { try store.adoptRetiredKeys(keys) }
        func appliedOperationKeys(from device: String) throws(StoreError) -> Set<String> { try store.appliedOperationKeys(from: device) }
        func liveRecords(among ids: [EntityID]) throws(StoreError) -> (matching: Int, total: Int) { try store.liveRecords(among: ids) }
        func operationsToPush(to remote: String, limit: Int) throws(StoreError) -> [OutgoingOperation] {
            try store.operationsToPush(to: remote, limit: limit)
        }
        func markDelivered(_ ids: [Int64], to remote: String) throws(StoreError) { try store.markDelivered(ids, to: remote) }
        func recordPushFailure(_ id: Int64, errorClass: String, retryAfterMilliseconds: Int64) throws(StoreError) {
            try store.recordPushFailure(id, errorClass: errorClass, retryAfterMilliseconds: retryAfterMilliseconds)
        }
        func failedOperationCount() throws(StoreError) -> Int { try store.failedOperationCount() }
        func remotesNeedingSnapshot() throws(StoreError) -> Set<String> { try store.remotesNeedingSnapshot() }
        func enqueueSnapshot(for remote: String) throws(StoreError) -> SnapshotReport { try store.enqueueSnapshot(for: remote) }
        func requireSnapshot(for remote: String) throws(StoreError) { try store.requireSnapshot(for: remote) }
        func hasSynced(with remote: String) throws(StoreError) -> Bool { try store.hasSynced(with: remote) }
        func remoteHasEverything(_ remote: String) throws(StoreError) -> Bool { try store.remoteHasEverything(remote) }
        func recordSyncSuccess(of remote: String) throws(StoreError) { try store.recordSyncSuccess(of: remote) }
        func compactWholeOutbox() throws(StoreError) { try store.compactWholeOutbox() }
        func tombstoneRetentionDays() throws(StoreError) -> Int { try store.tombstoneRetentionDays() }
        func tombstonesWithContent() throws(StoreError) -> [Tombstone] { try store.tombstonesWithContent() }
        func tombstonesWithFiles() throws(StoreError) -> [Tombstone] { try store.tombstonesWithFiles() }
        func purgeTombstones(_ tombstones: [Tombstone]) throws(StoreError) -> Int { try store.purgeTombstones(tombstones) }
        func contentFreeDeletion(of tombstone: Tombstone) throws(StoreError) -> RecordVersion { try store.contentFreeDeletion(of: tombstone) }
        func forgetSentOperations(of tombstones: [Tombstone]) throws(StoreError) { try store.forgetSentOperations(of: tombstones) }
        func fileBlobsToSend() throws(StoreError) -> [String] { try store.fileBlobsToSend() }
        func openFileBlob(_ id: String) throws(StoreError) -> FileDescriptor { try store.openFileBlob(id) }
        func fileBlobsWanted() throws(StoreError) -> [String] { try store.fileBlobsWanted() }
        func receiveFileBlob(_ id: String) throws(StoreError) -> ReceivedFileBlob { try store.receiveFileBlob(id) }
        func keepFileBlob(_ blob: ReceivedFileBlob) throws(StoreError) -> Bool { try store.keepFileBlob(blob) }
        func fileBlobsToForget() throws(StoreError) -> [String] { try store.fileBlobsToForget() }
    }

    @Test func aPulledBatchIsInvisibleToAnotherReaderUntilItCommits() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Shared")
        try a.sync(); try b.sync()
        for index in 0..<25 { try a.addNote("note \(index)", to: book) }
        try a.sync()

        let reader = try Store.open(at: b.path, clock: b.clock, generatorVersion: testGeneratorVersion)
        let journal = PeekingJournal(store: b.store, reader: reader)
        let summary = try SyncEngine(journal: journal, cipher: cluster.cipher, remotes: [cluster.folderRemote()]).run(allowMassDelete: false)
        #expect(summary.pulled == 25)
        #expect(journal.seenDuringBatches.count == 25, "the reader looked after every operation")
        #expect(journal.seenDuringBatches.allSatisfy { $0 == 0 }, "the reader saw part of a batch: \(journal.seenDuringBatches)")
        #expect(try reader.read { tables throws(StoreError) in try tables.records.counts() }.notes == 25, "and all of it once it committed")
    }
}
