public import Journal
public import SyncWire
public import VaultCrypto
public import FileIO

/// The Store as the sync engine sees it (``SyncJournal``): reads and writes only, each in a
/// transaction of its own. What to send, apply and purge is decided in Sync, how records
/// merge in Journal's `JournalMerge`, and the one applier above the Store applies what it
/// decided: `ApplyTransaction`, made for each batch's transaction by `applier`.
public final class StoreSyncJournal<ApplyTransaction: SyncApplyTransaction>: SyncJournal where ApplyTransaction.Failure == StoreError {
    public typealias Failure = StoreError
    let store: Store
    let applier: (Store) -> ApplyTransaction

    public init(_ store: Store, applier: @escaping (Store) -> ApplyTransaction) {
        self.store = store
        self.applier = applier
    }

    public var deviceID: String { store.deviceID }
    public var vaultID: String { store.metadata.vaultID }
    public var keyID: KeyID { store.metadata.keyID }
    public var now: Timestamp { store.now }

    /// The vault's keyslots. Readable while locked: they are what unlocks it.
    public func keyslots() throws(StoreError) -> [Keyslot] {
        try store.read { tables throws(StoreError) in try tables.keys.slots() }
    }

    /// How many times the keyslots have been replaced, as far as this device knows.
    public func keyslotGeneration() throws(StoreError) -> Int {
        try store.read { tables throws(StoreError) in try tables.keys.generation() }
    }

    /// Takes up another device's keyslots of this key unless the generation here moved.
    public func adoptKeyslots(_ slots: [Keyslot], generation: Int, replacing current: Int) throws(StoreError) -> Bool {
        try store.write { tables throws(StoreError) in try tables.keys.adopt(slots, generation: generation, replacing: current) }
    }

    /// The key chain, still sealed. Readable while locked.
    public func retiredKeys() throws(StoreError) -> [RetiredKey] {
        try store.read { tables throws(StoreError) in try tables.keys.retired() }
    }

    /// Takes up the entries of another device's chain that open under the current key.
    @discardableResult
    public func adoptRetiredKeys(_ keys: [RetiredKey]) throws(StoreError) -> Int {
        let sealer = try store.requireCipher().sealer
        return try store.write { tables throws(StoreError) in try tables.keys.adoptRetired(keys, openingUnder: sealer) }
    }

    /// Records that a sync used `remote` without a failure, now.
    public func recordSyncSuccess(of remote: String) throws(StoreError) {
        try store.write { tables throws(StoreError) in try tables.remotes.recordSyncSuccess(of: remote) }
    }

    /// Marks `remote` as lacking what this device sent before: its next push starts with a snapshot.
    public func requireSnapshot(for remote: String) throws(StoreError) {
        try store.write { tables throws(StoreError) in try tables.remotes.requireSnapshot(for: remote) }
    }

    /// Operations the outbox holds as failed for good.
    public func failedOperationCount() throws(StoreError) -> Int {
        try store.read { tables throws(StoreError) in try tables.outbox.counts() }[.failed] ?? 0
    }

    /// Idempotency keys of `device`'s operations already applied here.
    public func appliedOperationKeys(from device: String) throws(StoreError) -> Set<String> {
        try store.read { tables throws(StoreError) in try tables.appliedOperations.keys(from: device) }
    }

    /// Operations `remote` does not have yet and that may be tried now (``OutboxTable/operationsToPush(to:limit:)``).
    public func operationsToPush(to remote: String, limit: Int) throws(StoreError) -> [OutgoingOperation] {
        _ = try store.requireCipher()
        return try store.write { tables throws(StoreError) in try tables.outbox.operationsToPush(to: remote, limit: limit) }
    }

    /// Records that `remote` has these operations; each one every remote has is done.
    public func markDelivered(_ ids: [Int64], to remote: String) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try store.write { tables throws(StoreError) in try tables.outbox.markDelivered(ids, to: remote) }
    }

    /// Records a failed attempt (``OutboxTable/recordPushFailure(_:errorClass:retryAfterMilliseconds:)``).
    public func recordPushFailure(_ id: Int64, errorClass: String, retryAfterMilliseconds: Int64) throws(StoreError) {
        try store.write { tables throws(StoreError) in
            try tables.outbox.recordPushFailure(id, errorClass: errorClass, retryAfterMilliseconds: retryAfterMilliseconds)
        }
    }

    /// The remotes whose next push must start with a snapshot.
    public func remotesNeedingSnapshot() throws(StoreError) -> Set<String> {
        try store.read { tables throws(StoreError) in try tables.remotes.needingSnapshot() }
    }

    /// Queues the journal as it stands for `remote` alone (``OutboxTable/enqueueSnapshot(for:)``).
    @discardableResult
    public func enqueueSnapshot(for remote: String) throws(StoreError) -> SnapshotReport {
        _ = try store.requireCipher()
        return try store.write { tables throws(StoreError) in try tables.outbox.enqueueSnapshot(for: remote) }
    }

    /// Whether a sync has used `remote` without a failure before.
    public func hasSynced(with remote: String) throws(StoreError) -> Bool {
        try store.read { tables throws(StoreError) in try tables.remotes.hasSynced(with: remote) }
    }

    /// Whether `remote` has everything this device has queued.
    public func remoteHasEverything(_ remote: String) throws(StoreError) -> Bool {
        try store.read { tables throws(StoreError) in try tables.remotes.hasEverything(remote) }
    }

    /// Compacts the outbox until nothing is left (a sync's end, after every remote took what
    /// it needed), one batch per write transaction so other processes are not held up.
    public func compactWholeOutbox() throws(StoreError) {
        while try store.write({ tables throws(StoreError) in try tables.outbox.compact() }) == OutboxTable.compactionBatch {}
    }

    /// Live (not deleted) books and notes, and how many of `ids` are among them.
    public func liveRecords(among ids: [EntityID]) throws(StoreError) -> (matching: Int, total: Int) {
        var total = 0
        try store.database.forEachRow("""
            SELECT (SELECT count(*) FROM book WHERE deleted_at IS NULL) + (SELECT count(*) FROM annotation WHERE deleted_at IS NULL) AS live
            """) { row in total = Int(row.int64("live")) }
        var matching = 0
        for id in Set(ids) {
            try store.database.forEachRow("""
                SELECT (SELECT count(*) FROM book WHERE id = ?1 AND deleted_at IS NULL)
                     + (SELECT count(*) FROM annotation WHERE id = ?1 AND deleted_at IS NULL) AS live
                """, [.text(id.rawValue)]) { row in matching += Int(row.int64("live")) }
        }
        return (matching, total)
    }

    public func applyInOneTransaction<Result>(_ body: (ApplyTransaction) throws(StoreError) -> Result) throws(StoreError) -> Result {
        _ = try store.requireCipher()
        return try store.write { _ throws(StoreError) -> Result in try body(applier(store)) }
    }

    public func observe(_ clock: HybridTimestamp) throws(StoreError) { try store.observe(clock) }

    // MARK: Book files: kept by the Store, which also serves them to the reader.

    public func fileBlobsToSend() throws(StoreError) -> [String] { try store.files.blobsToSend() }
    public func openFileBlob(_ id: String) throws(StoreError) -> FileDescriptor { try store.files.openBlob(id) }
    public func fileBlobsWanted() throws(StoreError) -> [String] { try store.files.blobsWanted() }
    public func receiveFileBlob(_ id: String) throws(StoreError) -> ReceivedFileBlob { try store.files.receiveBlob(id) }
    public func keepFileBlob(_ blob: ReceivedFileBlob) throws(StoreError) -> Bool { try store.files.keepBlob(blob) }
    public func fileBlobsToForget() throws(StoreError) -> [String] { try store.files.blobsToForget() }

    // MARK: Tombstones

    public func tombstoneRetentionDays() throws(StoreError) -> Int {
        try store.read { tables throws(StoreError) in try tables.tombstones.retentionDays() }
    }
    public func tombstonesWithContent() throws(StoreError) -> [Tombstone] {
        try store.read { tables throws(StoreError) in try tables.tombstones.withContent() }
    }
    public func tombstonesWithFiles() throws(StoreError) -> [Tombstone] {
        try store.read { tables throws(StoreError) in try tables.tombstones.withFiles() }
    }
    public func purgeTombstones(_ tombstones: [Tombstone]) throws(StoreError) -> Int { try store.purge.tombstones(tombstones) }
    public func contentFreeDeletion(of tombstone: Tombstone) throws(StoreError) -> RecordVersion {
        try store.read { tables throws(StoreError) in try tables.tombstones.contentFreeDeletion(of: tombstone) }
    }
    public func forgetSentOperations(of tombstones: [Tombstone]) throws(StoreError) {
        guard !tombstones.isEmpty else { return }
        try store.write { tables throws(StoreError) in try tables.tombstones.forgetSentOperations(of: tombstones) }
    }
}

// Not Sendable: it uses its Store, which one thread at a time uses.
@available(*, unavailable)
extension StoreSyncJournal: Sendable {}
