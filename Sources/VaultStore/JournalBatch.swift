public import Journal

/// Records to write together: the fast path for a generated benchmark journal and for
/// archive import, with the same sealing and the same outbox operations as one-by-one adds.
public struct JournalBatch: Sendable {
    public var books: [Book]
    public var sessions: [ReadingSession]
    public var annotations: [Annotation]

    public init(books: [Book] = [], sessions: [ReadingSession] = [], annotations: [Annotation] = []) {
        self.books = books
        self.sessions = sessions
        self.annotations = annotations
    }

    public var isEmpty: Bool { books.isEmpty && sessions.isEmpty && annotations.isEmpty }

    /// Writes every record, books first, each with its `create` operation in `outboxState`,
    /// in the transaction of `tables` (so all of it, or on any error none of it, commits).
    /// Records are taken as they are, tombstones included; every book they name must exist
    /// in the vault or the batch.
    public func insert(into tables: Tables, outboxState: OutboxState = .pending) throws(StoreError) {
        _ = try tables.store.requireCipher()
        for book in books { try tables.books.insert(book, outboxState: outboxState) }
        for session in sessions { try tables.sessions.insert(session, outboxState: outboxState) }
        for annotation in annotations { try tables.annotations.insert(annotation, outboxState: outboxState) }
    }
}
