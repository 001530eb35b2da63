public import Journal
import Sync

extension Store {
    /// Saves a new reading session and its `create` operation. Sessions are append-only.
    public func addSession(_ session: ReadingSession) throws(StoreError) {
        _ = try requireCipher()
        try database.writeTransaction { () throws(StoreError) in
            try requireLiveBook(session.bookID)
            try insertSession(session, outboxState: .pending)
        }
    }

    /// Inserts a session row and its `create` operation. Call inside a write transaction;
    /// the book must exist (a foreign key), and callers adding a new session check first
    /// that it is not deleted.
    func insertSession(_ session: ReadingSession, outboxState: OutboxState) throws(StoreError) {
        try writeSession(session)
        try enqueue(.create, .session(session), clock: try tick(), at: clock.now(), baseVersion: 0, base: nil, state: outboxState)
    }

    /// Writes a new session row. Sessions are never changed: a merge stores only sessions
    /// new here (``SessionUnionPolicy``).
    func writeSession(_ session: ReadingSession) throws(StoreError) {
        try database.run("""
            INSERT INTO reading_session (id, book_id, started_at, ended_at, pages_read) VALUES (?1, ?2, ?3, ?4, ?5)
            """, [.text(session.id.rawValue), .text(session.bookID.rawValue),
                  .integer(session.startedAt.millisecondsSince1970), .integer(session.endedAt.millisecondsSince1970),
                  .integer(Int64(session.pagesRead))])
    }

    /// A book's sessions, in the order they started.
    public func sessions(of bookID: EntityID) throws(StoreError) -> [ReadingSession] {
        try readSessions(where: "book_id = ?", [.text(bookID.rawValue)])
    }

    /// The sessions of books that are not deleted (of `bookID` alone, if given) that
    /// started at or after `since`, if given, in the order they started.
    public func sessions(book bookID: EntityID?, startedSince since: Timestamp?) throws(StoreError) -> [ReadingSession] {
        try readSessions(where: """
            book_id IN (SELECT id FROM book WHERE deleted_at IS NULL AND (?1 IS NULL OR id = ?1))
            AND (?2 IS NULL OR started_at >= ?2)
            """, [bookID.map { .text($0.rawValue) } ?? .null, since.map { .integer($0.millisecondsSince1970) } ?? .null])
    }

    /// One reading session by id.
    public func session(_ id: EntityID) throws(StoreError) -> ReadingSession {
        guard let session = try readSessions(where: "id = ?", [.text(id.rawValue)]).first else {
            throw .recordNotFound(id: id.rawValue)
        }
        return session
    }

    /// The session `id`, or nil when it is not here (what a merge needs to know of it).
    func localSession(_ id: EntityID) throws(StoreError) -> ReadingSession? {
        do { return try session(id) } catch .recordNotFound { return nil }
    }

    private func readSessions(where condition: String, _ values: [SQLValue]) throws(StoreError) -> [ReadingSession] {
        _ = try requireCipher()
        var sessions: [ReadingSession] = []
        try database.forEachRow("""
            SELECT id, book_id, started_at, ended_at, pages_read FROM reading_session
            WHERE \(condition) ORDER BY started_at, id
            """, values) { row in
            guard let id = try? EntityID(validating: row.text(0)),
                  let bookID = try? EntityID(validating: row.text(1)) else { return }
            sessions.append(ReadingSession(id: id, bookID: bookID,
                                           startedAt: Timestamp(millisecondsSince1970: row.int64(2)),
                                           endedAt: Timestamp(millisecondsSince1970: row.int64(3)),
                                           pagesRead: Int(row.int64(4))))
        }
        return sessions
    }

    /// Throws unless `id` names a book that is not deleted. Call inside a write transaction.
    func requireLiveBook(_ id: EntityID) throws(StoreError) {
        var deleted: Bool?
        try database.forEachRow("SELECT deleted_at IS NOT NULL FROM book WHERE id = ?", [.text(id.rawValue)]) { row in
            deleted = row.int64(0) != 0
        }
        guard deleted == false else { throw .recordNotFound(id: id.rawValue) }
    }
}
