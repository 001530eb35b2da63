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

/// `book`, `reading_session` and `annotation` taken together, by what is in the clear:
/// records found by the id or short id a person types, named by their shortest short id,
/// and counted. Nothing here opens a sealed field, so it all works while the vault is locked.
public struct RecordTable {
    let tables: Tables
    private var database: Database { tables.database }

    /// An id's random part in SQL, exactly as the indexes of migration 0014 hold it (the
    /// planner uses an expression index only for the very same expression).
    static let randomPartSQL = "(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12))"

    /// The tables whose records a person names by id.
    private static let namedTables = ["book", "reading_session", "annotation"]

    /// Live records (not tombstoned) whose id starts with `prefix`, across kinds; with
    /// `deleted`, tombstones instead (purged ones too: `undelete` says why they cannot come
    /// back). `prefix` must already be checked with ``EntityID/isPossiblePrefix(_:)``.
    public func matching(idPrefix prefix: String, deleted: Bool = false) throws(StoreError) -> [RecordReference] {
        let state = deleted ? "IS NOT NULL" : "IS NULL"
        return try references("""
            SELECT id, 'book' AS kind FROM book WHERE id GLOB ?1 AND deleted_at \(state)
            UNION ALL SELECT id, 'session' FROM reading_session WHERE id GLOB ?1 AND deleted_at \(state)
            UNION ALL SELECT id, 'annotation' FROM annotation WHERE id GLOB ?1 AND deleted_at \(state)
            LIMIT 50
            """, [.text(prefix.lowercased() + "*")])
    }

    /// Live records (tombstones, with `deleted`) whose id's random part starts with
    /// `shortID`, checked with ``ShortID/isPossible(_:)``.
    public func matching(shortID: String, deleted: Bool = false) throws(StoreError) -> [RecordReference] {
        let part = Self.randomPartSQL
        let state = deleted ? "IS NOT NULL" : "IS NULL"
        // Random parts are lowercase hex digits, all below "g".
        return try references("""
            SELECT id, 'book' AS kind FROM book WHERE \(part) >= ?1 AND \(part) < ?2 AND deleted_at \(state)
            UNION ALL SELECT id, 'session' FROM reading_session WHERE \(part) >= ?1 AND \(part) < ?2 AND deleted_at \(state)
            UNION ALL SELECT id, 'annotation' FROM annotation WHERE \(part) >= ?1 AND \(part) < ?2 AND deleted_at \(state)
            LIMIT 50
            """, [.text(shortID), .text(shortID + "g")])
    }

    /// The references a query selecting `id` and `kind` finds.
    private func references(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [RecordReference] {
        var found: [RecordReference] = []
        try database.forEachRow(sql, values) { row in
            if let id = try? EntityID(validating: row.text("id")), let kind = RecordReference.Kind(rawValue: row.text("kind")) {
                found.append(RecordReference(id: id, kind: kind))
            }
        }
        return found
    }

    /// The shortest start of `id`'s random part that no other book, session, note or quote
    /// shares, live or deleted (so the form shown is accepted back by every command,
    /// `undelete` too). Nil when another record has the very same random part.
    ///
    /// Each length from six up is one query counting the records whose random part starts
    /// so, answered from the indexes alone (no row is read); six digits almost always do.
    public func shortID(of id: EntityID) throws(StoreError) -> String? {
        let part = ShortID.randomPart(of: id)
        let counted = Self.countSharing(from: "?1", below: "?2")
        for length in ShortID.minimumLength...ShortID.maximumLength {
            let prefix = String(part.prefix(length))
            var sharing = 0
            try database.forEachRow("SELECT \(counted) AS sharing", [.text(prefix), .text(prefix + "g")]) { row in
                sharing = Int(row.int64("sharing"))
            }
            if sharing <= 1 { return prefix }
        }
        return nil
    }

    /// The short ids of those of `ids` that six digits name, in one query (the ids passed
    /// as one JSON array): for a listing that knows its records before it prints them,
    /// where one query per id cost more than the listing. The others are left out, for
    /// ``shortID(of:)``.
    public func sixDigitShortIDs(of ids: [EntityID]) throws(StoreError) -> [EntityID: String] {
        var byPrefix: [String: EntityID] = [:]
        for id in ids { byPrefix[String(ShortID.randomPart(of: id).prefix(ShortID.minimumLength))] = id }
        let counted = Self.countSharing(from: "p.value", below: "p.value || 'g'")
        let list = "[" + byPrefix.keys.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        var found: [EntityID: String] = [:]
        try database.forEachRow("SELECT p.value AS prefix, \(counted) AS sharing FROM json_each(?1) AS p", [.text(list)]) { row in
            let prefix = row.text("prefix")
            if row.int64("sharing") <= 1, let id = byPrefix[prefix] { found[id] = prefix }
        }
        return found
    }

    /// SQL for how many records (0, 1, or 2 for more) of all the named tables have a random
    /// part from `lower` up to `upper` (a prefix and the same + "g"), read from the indexes
    /// alone.
    private static func countSharing(from lower: String, below upper: String) -> String {
        namedTables.map { table in
            "(SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE \(randomPartSQL) >= \(lower) AND \(randomPartSQL) < \(upper) LIMIT 2))"
        }.joined(separator: " + ")
    }

    /// Every record's random part, for a long listing (``RandomPartIndex``).
    public func randomPartIndex() throws(StoreError) -> RandomPartIndex {
        var runs: [[RandomPartIndex.Part]] = []
        for table in Self.namedTables {
            var parts: [RandomPartIndex.Part] = []
            // One column, read in place: a listing reads every record's.
            try database.forEachRow("SELECT \(Self.randomPartSQL) FROM \(table) ORDER BY 1") { row in
                if let part = row.withBytes(0, { RandomPartIndex.Part(digits: $0) }) { parts.append(part) }
            }
            runs.append(parts)
        }
        return RandomPartIndex(merging: runs)
    }

    /// The live note or quote added `skipping` entries before the latest one (by creation
    /// time, then id), and its book; nil when the journal has fewer.
    public func recentAnnotation(skipping: Int) throws(StoreError) -> (id: EntityID, bookID: EntityID)? {
        var found: (id: EntityID, bookID: EntityID)?
        try database.forEachRow("""
            SELECT id, book_id FROM annotation WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?1
            """, [.integer(Int64(skipping))]) { row in
            if let id = try? EntityID(validating: row.text("id")), let book = try? EntityID(validating: row.text("book_id")) {
                found = (id, book)
            }
        }
        return found
    }

    /// Whether the book or note `id` is here, and in what state.
    package func presence(of id: EntityID, kind: TaggedKind) throws(StoreError) -> RecordPresence {
        switch kind {
        case .book:
            return try tables.books.presence(id)
        case .annotation:
            var presence = RecordPresence.missing
            try database.forEachRow("""
                SELECT deleted_at IS NOT NULL AS deleted, length(body) > 0 AS has_body FROM annotation WHERE id = ?
                """, [.text(id.rawValue)]) { row in
                presence = row.int64("deleted") == 0 ? .live : (row.int64("has_body") == 0 ? .purged : .deleted)
            }
            return presence
        }
    }

    /// Counts of live records, in the whole vault or (with `bookID`) in one book. The whole
    /// vault's notes, quotes and sessions are summed from `book_activity` (one row per book,
    /// kept by triggers in the same transaction as every write, and compared with the records
    /// by `check`) instead of counted over every note: `status` at 100,000 notes read them
    /// all, past their sealed text, and sorted them by kind.
    public func counts(of bookID: EntityID? = nil) throws(StoreError) -> JournalCounts {
        guard bookID == nil else { return try Self.counts(in: database, of: bookID) }
        var counts = JournalCounts()
        try database.forEachRow("""
            SELECT (SELECT count(*) FROM book WHERE deleted_at IS NULL) AS books,
                   (SELECT coalesce(sum(activity.sessions), 0) FROM book_activity AS activity
                    JOIN book ON book.id = activity.book_id WHERE book.deleted_at IS NULL) AS sessions,
                   (SELECT coalesce(sum(notes), 0) FROM book_activity) AS notes,
                   (SELECT coalesce(sum(quotes), 0) FROM book_activity) AS quotes
            """) { row in
            counts = JournalCounts(books: Int(row.int64("books")), sessions: Int(row.int64("sessions")),
                                   notes: Int(row.int64("notes")), quotes: Int(row.int64("quotes")))
        }
        return counts
    }

    /// `schemaVersion`: of a vault read before its upgrade (`diagnostics`); sessions can be
    /// deleted from schema v9 on.
    static func counts(in database: Database, of bookID: EntityID? = nil,
                       schemaVersion: Int = Migrations.latestVersion) throws(StoreError) -> JournalCounts {
        var books = 0, sessions = 0, notes = 0, quotes = 0
        let values: [SQLValue] = [bookID.map { .text($0.rawValue) } ?? .null]
        try database.readTransaction { () throws(StoreError) in
            try database.forEachRow("SELECT count(*) AS count FROM book WHERE deleted_at IS NULL AND (?1 IS NULL OR id = ?1)",
                                    values) { row in books = Int(row.int64("count")) }
            try database.forEachRow("""
                SELECT count(*) AS count FROM reading_session JOIN book ON book.id = reading_session.book_id
                WHERE \(schemaVersion >= 9 ? "reading_session.deleted_at IS NULL AND " : "")book.deleted_at IS NULL
                AND (?1 IS NULL OR book.id = ?1)
                """, values) { row in sessions = Int(row.int64("count")) }
            try database.forEachRow("""
                SELECT kind, count(*) AS count FROM annotation WHERE deleted_at IS NULL AND (?1 IS NULL OR book_id = ?1)
                GROUP BY kind
                """, values) { row in
                switch row.text("kind") {
                case AnnotationKind.note.rawValue: notes = Int(row.int64("count"))
                case AnnotationKind.quote.rawValue: quotes = Int(row.int64("count"))
                default: break
                }
            }
        }
        return JournalCounts(books: books, sessions: sessions, notes: notes, quotes: quotes)
    }
}
