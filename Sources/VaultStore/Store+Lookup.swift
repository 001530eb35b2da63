public import Journal

/// A record found by id or id prefix, before its sealed fields are opened.
public struct RecordReference: Hashable, Sendable {
    public enum Kind: String, Sendable {
        case book
        case session
        case annotation
    }

    public let id: EntityID
    public let kind: Kind

    public init(id: EntityID, kind: Kind) {
        self.id = id
        self.kind = kind
    }
}

extension Store {
    /// Live records (not tombstoned) whose id starts with `prefix`, across kinds; with
    /// `deleted`, tombstones instead (purged ones too: `undelete` says why they cannot come
    /// back). `prefix` must already be checked with ``EntityID/isPossiblePrefix(_:)``.
    public func records(withIDPrefix prefix: String, deleted: Bool = false) throws(StoreError) -> [RecordReference] {
        let pattern = prefix.lowercased() + "*"
        let state = deleted ? "IS NOT NULL" : "IS NULL"
        var found: [RecordReference] = []
        try database.forEachRow("""
            SELECT id, 'book' FROM book WHERE id GLOB ?1 AND deleted_at \(state)
            UNION ALL SELECT id, 'session' FROM reading_session WHERE id GLOB ?1 AND deleted_at \(state)
            UNION ALL SELECT id, 'annotation' FROM annotation WHERE id GLOB ?1 AND deleted_at \(state)
            LIMIT 50
            """, [.text(pattern)]) { row in
            if let id = try? EntityID(validating: row.text(0)), let kind = RecordReference.Kind(rawValue: row.text(1)) {
                found.append(RecordReference(id: id, kind: kind))
            }
        }
        return found
    }

    /// Counts of live records, in the whole vault or (with `bookID`) in one book.
    public func counts(of bookID: EntityID? = nil) throws(StoreError) -> JournalCounts {
        try Self.counts(in: database, of: bookID)
    }

    /// `schemaVersion`: of a vault read before its upgrade (`diagnostics`); sessions can be
    /// deleted from schema v9 on.
    static func counts(in database: Database, of bookID: EntityID? = nil,
                       schemaVersion: Int = Migrations.latestVersion) throws(StoreError) -> JournalCounts {
        var books = 0, sessions = 0, notes = 0, quotes = 0
        let values: [SQLValue] = [bookID.map { .text($0.rawValue) } ?? .null]
        try database.readTransaction { () throws(StoreError) in
            try database.forEachRow("SELECT count(*) FROM book WHERE deleted_at IS NULL AND (?1 IS NULL OR id = ?1)",
                                    values) { row in books = Int(row.int64(0)) }
            try database.forEachRow("""
                SELECT count(*) FROM reading_session JOIN book ON book.id = reading_session.book_id
                WHERE \(schemaVersion >= 9 ? "reading_session.deleted_at IS NULL AND " : "")book.deleted_at IS NULL
                AND (?1 IS NULL OR book.id = ?1)
                """, values) { row in sessions = Int(row.int64(0)) }
            try database.forEachRow("""
                SELECT kind, count(*) FROM annotation WHERE deleted_at IS NULL AND (?1 IS NULL OR book_id = ?1)
                GROUP BY kind
                """, values) { row in
                switch row.text(0) {
                case AnnotationKind.note.rawValue: notes = Int(row.int64(1))
                case AnnotationKind.quote.rawValue: quotes = Int(row.int64(1))
                default: break
                }
            }
        }
        return JournalCounts(books: books, sessions: sessions, notes: notes, quotes: quotes)
    }
}

extension Store {
    /// The live note or quote added `skipping` entries before the latest one (by creation
    /// time, then id), and its book; nil when the journal has fewer.
    public func recentAnnotation(skipping: Int) throws(StoreError) -> (id: EntityID, bookID: EntityID)? {
        var found: (id: EntityID, bookID: EntityID)?
        try database.forEachRow("""
            SELECT id, book_id FROM annotation WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?1
            """, [.integer(Int64(skipping))]) { row in
            if let id = try? EntityID(validating: row.text(0)), let book = try? EntityID(validating: row.text(1)) {
                found = (id, book)
            }
        }
        return found
    }
}

extension Store {
    /// Whether the book or note `id` is here, and in what state.
    package func presence(of id: EntityID, kind: TaggedKind) throws(StoreError) -> RecordPresence {
        switch kind {
        case .book:
            return try read { tables throws(StoreError) in try tables.books.presence(id) }
        case .annotation:
            var presence = RecordPresence.missing
            try database.forEachRow("SELECT deleted_at IS NOT NULL, length(body) > 0 FROM annotation WHERE id = ?",
                                    [.text(id.rawValue)]) { row in
                presence = row.int64(0) == 0 ? .live : (row.int64(1) == 0 ? .purged : .deleted)
            }
            return presence
        }
    }
}
