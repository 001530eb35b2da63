public import Journal
public import SyncWire
public import VaultCrypto

/// The Store as the sync engine sees it (``SyncJournal``): reads and writes only. What to
/// send, apply and purge is decided in Sync, how records merge in Journal's `JournalMerge`.
extension Store: SyncJournal {
    public typealias Failure = StoreError

    public var vaultID: String { metadata.vaultID }
    public var keyID: KeyID { metadata.keyID }

    /// The vault's keyslots. Readable while locked: they are what unlocks it.
    public func keyslots() throws(StoreError) -> [Keyslot] {
        try read { tables throws(StoreError) in try tables.keys.slots() }
    }

    /// How many times the keyslots have been replaced, as far as this device knows.
    public func keyslotGeneration() throws(StoreError) -> Int {
        try read { tables throws(StoreError) in try tables.keys.generation() }
    }

    /// Takes up another device's keyslots of this key unless the generation here moved.
    public func adoptKeyslots(_ slots: [Keyslot], generation: Int, replacing current: Int) throws(StoreError) -> Bool {
        try write { tables throws(StoreError) in try tables.keys.adopt(slots, generation: generation, replacing: current) }
    }

    /// The key chain, still sealed. Readable while locked.
    public func retiredKeys() throws(StoreError) -> [RetiredKey] {
        try read { tables throws(StoreError) in try tables.keys.retired() }
    }

    /// Takes up the entries of another device's chain that open under the current key.
    @discardableResult
    public func adoptRetiredKeys(_ keys: [RetiredKey]) throws(StoreError) -> Int {
        let sealer = try requireCipher().sealer
        return try write { tables throws(StoreError) in try tables.keys.adoptRetired(keys, openingUnder: sealer) }
    }

    /// Records that a sync used `remote` without a failure, now.
    public func recordSyncSuccess(of remote: String) throws(StoreError) {
        try write { tables throws(StoreError) in try tables.remotes.recordSyncSuccess(of: remote) }
    }

    /// Marks `remote` as lacking what this device sent before: its next push starts with a snapshot.
    public func requireSnapshot(for remote: String) throws(StoreError) {
        try write { tables throws(StoreError) in try tables.remotes.requireSnapshot(for: remote) }
    }

    /// Operations the outbox holds as failed for good.
    public func failedOperationCount() throws(StoreError) -> Int {
        try outboxCounts()[.failed] ?? 0
    }

    /// Idempotency keys of `device`'s operations already applied here.
    public func appliedOperationKeys(from device: String) throws(StoreError) -> Set<String> {
        var keys = Set<String>()
        try database.forEachRow("SELECT idempotency_key FROM applied_operation WHERE device_id = ?", [.text(device)]) { row in
            keys.insert(row.text(0))
        }
        return keys
    }

    /// Live (not deleted) books and notes, and how many of `ids` are among them.
    public func liveRecords(among ids: [EntityID]) throws(StoreError) -> (matching: Int, total: Int) {
        var total = 0
        try database.forEachRow("""
            SELECT (SELECT count(*) FROM book WHERE deleted_at IS NULL) + (SELECT count(*) FROM annotation WHERE deleted_at IS NULL)
            """) { row in total = Int(row.int64(0)) }
        var matching = 0
        for id in Set(ids) {
            try database.forEachRow("""
                SELECT (SELECT count(*) FROM book WHERE id = ?1 AND deleted_at IS NULL)
                     + (SELECT count(*) FROM annotation WHERE id = ?1 AND deleted_at IS NULL)
                """, [.text(id.rawValue)]) { row in matching += Int(row.int64(0)) }
        }
        return (matching, total)
    }

    public func applyInOneTransaction<Result>(_ body: (MergeTransaction) throws(StoreError) -> Result) throws(StoreError) -> Result {
        _ = try requireCipher()
        return try database.writeTransaction { () throws(StoreError) -> Result in try body(MergeTransaction(store: self)) }
    }
}

/// The Store inside one write transaction, where merges land: it says what is here and
/// applies exactly what ``JournalMerge`` decided, writing no outbox operation (the other
/// devices have the change, or derive the same result from it themselves).
public struct MergeTransaction: SyncApplyTransaction {
    let store: Store

    public func isApplied(_ idempotencyKey: String) throws(StoreError) -> Bool {
        var seen = false
        try store.database.forEachRow("SELECT 1 FROM applied_operation WHERE idempotency_key = ?", [.text(idempotencyKey)]) { _ in
            seen = true
        }
        return seen
    }

    public func markApplied(_ idempotencyKey: String, device: String, clock: HybridTimestamp) throws(StoreError) {
        try store.database.run("INSERT INTO applied_operation (idempotency_key, device_id, hlc, applied_at) VALUES (?, ?, ?, ?)",
                               [.text(idempotencyKey), .text(device), .text(clock.description),
                                .integer(store.now.millisecondsSince1970)])
    }

    public func observe(_ clock: HybridTimestamp) throws(StoreError) {
        try store.observe(clock)
    }

    public func bookPresence(_ id: EntityID) throws(StoreError) -> RecordPresence {
        try store.bookPresence(id)
    }

    public func localBook(_ id: EntityID) throws(StoreError) -> LocalBook? {
        try store.localBook(id)
    }

    public func localSession(_ id: EntityID) throws(StoreError) -> SessionVersion? {
        try store.tablesOfThisTransaction.sessions.version(id)
    }

    public func localAnnotation(_ id: EntityID) throws(StoreError) -> LocalAnnotation? {
        try store.localAnnotation(id)
    }

    public func localTagging(_ id: EntityID) throws(StoreError) -> TaggingVersion? {
        try store.tablesOfThisTransaction.tags.version(id)
    }

    public func taggedRecordPresence(_ tagging: Tagging) throws(StoreError) -> RecordPresence {
        try store.presence(of: tagging.recordID, kind: tagging.recordKind)
    }

    public func localBookFile(_ id: EntityID) throws(StoreError) -> BookFileVersion? {
        try store.localBookFile(id)
    }

    /// A book file as decided; the blob of one removed here goes at the next sweep
    /// (``Store/sweepFileStore()``), once this transaction has committed.
    public func apply(_ decision: BookFileDecision) throws(StoreError) {
        if case .store(let version) = decision { try store.writeBookFileFromElsewhere(version) }
    }

    public func apply(_ decision: TaggingDecision) throws(StoreError) {
        if case .store(let version) = decision { try store.tablesOfThisTransaction.tags.write(version) }
    }

    public func apply(_ decision: BookDecision) throws(StoreError) {
        switch decision {
        case .unchanged:
            return
        case .insert(let version):
            try store.writeBook(version, insert: true)
        case .update(let version):
            let metadataChanged: Bool
            do {
                let here = try store.book(version.book.id)
                metadataChanged = here.title != version.book.title || here.authors != version.book.authors
            } catch .recordUnreadable {
                metadataChanged = true   // what was here did not open: the title cache is written anew
            }
            try store.writeBook(version, insert: false, metadataChanged: metadataChanged)
        }
    }

    public func apply(_ decision: SessionDecision) throws(StoreError) {
        if case .store(let session) = decision { try store.tablesOfThisTransaction.sessions.write(session) }
    }

    public func apply(_ decision: AnnotationDecision, to id: EntityID) throws(StoreError) {
        guard case .store(let versions, let presentation, let reviveBook, _) = decision else { return }
        if reviveBook {
            try store.database.run("UPDATE book SET deleted_at = NULL WHERE id = ?", [.text(presentation.note.bookID.rawValue)])
        }
        try store.store(versions, shownAs: presentation, for: id)
    }
}
