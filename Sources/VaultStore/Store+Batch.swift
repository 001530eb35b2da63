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
}

extension Store {
    /// Writes every record of `batch`, books first, each with its `create` operation in
    /// `outboxState`, in ONE transaction: all of it, or (on any error) none of it. Records
    /// are taken as they are, tombstones included; every book they name must exist in the
    /// vault or the batch.
    public func insert(_ batch: JournalBatch, outboxState: OutboxState = .pending) throws(StoreError) {
        _ = try requireCipher()
        try database.writeTransaction { () throws(StoreError) in
            for book in batch.books { try tablesOfThisTransaction.books.insert(book, outboxState: outboxState) }
            for session in batch.sessions { try tablesOfThisTransaction.sessions.insert(session, outboxState: outboxState) }
            for annotation in batch.annotations { try tablesOfThisTransaction.annotations.insert(annotation, outboxState: outboxState) }
        }
    }
}
