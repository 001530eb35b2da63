public import Journal
public import SyncWire
public import VaultStore

/// The one applier for sync, inside the one write transaction a pulled batch is applied
/// in: it says what is here, has ``JournalMerge`` decide, and applies exactly what it
/// decided, writing no outbox operation (the other devices have the change, or derive the
/// same result from it themselves).
public struct MergeTransaction: SyncApplyTransaction, MergeTarget {
    let store: Store

    /// The applier of `store`'s transaction that is open now (``StoreSyncJournal`` makes one
    /// for each pulled batch).
    public init(store: Store) {
        self.store = store
    }

    /// The tables of the one write transaction a merge runs in.
    private var tables: Tables { store.tablesOfThisTransaction }

    public func merge(_ record: RecordVersion) throws(StoreError) -> JournalMerge.Outcome {
        try JournalMerge.vault.apply(record, to: self)
    }

    public func isApplied(_ idempotencyKey: String) throws(StoreError) -> Bool {
        try tables.appliedOperations.contains(idempotencyKey)
    }

    public func markApplied(_ idempotencyKey: String, device: String, clock: HybridTimestamp) throws(StoreError) {
        try tables.appliedOperations.record(idempotencyKey, device: device, clock: clock)
    }

    public func observe(_ clock: HybridTimestamp) throws(StoreError) {
        try store.observe(clock)
    }

    public func bookPresence(_ id: EntityID) throws(StoreError) -> RecordPresence {
        try tables.books.presence(id)
    }

    public func localBook(_ id: EntityID) throws(StoreError) -> LocalBook? {
        try tables.books.local(id)
    }

    public func localSession(_ id: EntityID) throws(StoreError) -> SessionVersion? {
        try tables.sessions.version(id)
    }

    public func localAnnotation(_ id: EntityID) throws(StoreError) -> LocalAnnotation? {
        try tables.annotations.local(id)
    }

    public func localTagging(_ id: EntityID) throws(StoreError) -> TaggingVersion? {
        try tables.tags.version(id)
    }

    public func taggedRecordPresence(_ tagging: Tagging) throws(StoreError) -> RecordPresence {
        try tables.records.presence(of: tagging.recordID, kind: tagging.recordKind)
    }

    public func localBookFile(_ id: EntityID) throws(StoreError) -> BookFileVersion? {
        try tables.bookFiles.local(id)
    }

    /// A book file as decided; the blob of one removed here goes at the next sweep
    /// (``VaultStore/BookFiles/sweep()``), once this transaction has committed.
    public func apply(_ decision: BookFileDecision) throws(StoreError) {
        if case .store(let version) = decision { try tables.bookFiles.writeFromElsewhere(version) }
    }

    public func apply(_ decision: TaggingDecision) throws(StoreError) {
        if case .store(let version) = decision { try tables.tags.write(version) }
    }

    public func apply(_ decision: BookDecision) throws(StoreError) {
        switch decision {
        case .unchanged:
            return
        case .insert(let version):
            try tables.books.write(version, insert: true)
        case .update(let version):
            let metadataChanged: Bool
            do {
                let here = try tables.books.book(version.book.id)
                metadataChanged = here.title != version.book.title || here.authors != version.book.authors
            } catch .recordUnreadable {
                metadataChanged = true   // what was here did not open: the title cache is written anew
            }
            try tables.books.write(version, insert: false, metadataChanged: metadataChanged)
        }
    }

    public func apply(_ decision: SessionDecision) throws(StoreError) {
        if case .store(let session) = decision { try tables.sessions.write(session) }
    }

    public func apply(_ decision: AnnotationDecision, to id: EntityID) throws(StoreError) {
        guard case .store(let versions, let presentation, let reviveBook, _) = decision else { return }
        if reviveBook { try tables.books.bringBack(presentation.note.bookID) }
        try tables.annotations.store(versions, shownAs: presentation, for: id)
    }
}

/// The Store as the sync engine sees it, what it pulls applied by the one applier.
public typealias VaultSyncJournal = StoreSyncJournal<MergeTransaction>

extension StoreSyncJournal where ApplyTransaction == MergeTransaction {
    /// The Store as the sync engine sees it, each pulled batch applied by ``MergeTransaction``.
    public convenience init(_ store: Store) {
        self.init(store, applier: MergeTransaction.init(store:))
    }
}
