public import Journal
public import SyncWire

/// The Store inside one write transaction, where merges land: it says what is here and
/// applies exactly what ``JournalMerge`` decided, writing no outbox operation (the other
/// devices have the change, or derive the same result from it themselves).
public struct MergeTransaction: SyncApplyTransaction {
    let store: Store
    /// The tables of the one write transaction a merge runs in.
    private var tables: Tables { store.tablesOfThisTransaction }

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
        try store.presence(of: tagging.recordID, kind: tagging.recordKind)
    }

    public func localBookFile(_ id: EntityID) throws(StoreError) -> BookFileVersion? {
        try tables.bookFiles.local(id)
    }

    /// A book file as decided; the blob of one removed here goes at the next sweep
    /// (``Store/sweepFileStore()``), once this transaction has committed.
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
        if reviveBook {
            try store.database.run("UPDATE book SET deleted_at = NULL WHERE id = ?", [.text(presentation.note.bookID.rawValue)])
        }
        try tables.annotations.store(versions, shownAs: presentation, for: id)
    }
}
