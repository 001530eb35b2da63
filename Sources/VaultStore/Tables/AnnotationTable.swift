public import Journal
import SyncWire

/// The columns of `annotation`, in the order the Store selects and writes them.
enum AnnotationColumn: Int32, TableColumns {
    case id, bookID, kind, body, locator, createdAt, updatedAt, deletedAt, version, conflictOf, conflictReason
    /// The clock of the shown version; its history (NULL: only that clock); whether the row is a derived conflict copy.
    case hlc, vv, derived
    /// The reader's comment and the key it was imported under (schema v16), both sealed; NULL when none.
    case comment, importKey

    var name: String {
        switch self {
        case .id: "id"
        case .bookID: "book_id"
        case .kind: "kind"
        case .body: "body"
        case .locator: "locator"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .deletedAt: "deleted_at"
        case .version: "version"
        case .conflictOf: "conflict_of"
        case .conflictReason: "conflict_reason"
        case .hlc: "hlc"
        case .vv: "vv"
        case .derived: "derived"
        case .comment: "comment"
        case .importKey: "import_key"
        }
    }
}

/// `annotation`: the reader's notes and quotes, each with its sealed body, locator, comment
/// and import key, and the versions and conflict copies that stand with it
/// (``AnnotationTable+Versions.swift``). Every change writes the row and its outbox
/// operation in the transaction this table was handed.
public struct AnnotationTable {
    let tables: Tables
    var store: Store { tables.store }
    var database: Database { tables.database }

    // Made once: an import runs these for every note, and the statement cache is keyed by the text.
    private static let insertAnnotationSQL = "INSERT INTO annotation (\(AnnotationColumn.list)) VALUES (\(AnnotationColumn.placeholders))"
    private static let annotationByIDSQL = "SELECT \(AnnotationColumn.list) FROM annotation WHERE id = ?"

    /// Saves a new note or quote and its `create` operation, with `tags` (each with its own).
    public func add(_ annotation: Annotation, tags: [String] = []) throws(StoreError) {
        _ = try store.requireCipher()
        try tables.books.requireLive(annotation.bookID)
        try insert(annotation, outboxState: .pending)
        if !tags.isEmpty { _ = try tables.tags.add(tags, to: annotation.id, kind: .annotation) }
    }

    /// Inserts an annotation row and its `create` operation. The book must exist (a foreign
    /// key), and callers adding a new note check first that it is not deleted.
    package func insert(_ annotation: Annotation, outboxState: OutboxState) throws(StoreError) {
        tables.requireWrite()
        let cipher = try store.requireCipher()
        let stamp = try store.tick()
        let version = AnnotationVersion(annotation, clock: stamp, history: VersionVector(stamp))
        try database.run(Self.insertAnnotationSQL, try values(version, cipher: cipher, derived: false))
        try tables.outbox.enqueue(.create, .annotation(version), clock: stamp, at: annotation.updatedAt, baseVersion: 0, base: nil,
                    state: outboxState)
    }

    /// Changes a note's or quote's body, locator, kind, comment and/or the time it was
    /// written (`createdAt`), read and written in this write transaction, so an edit from
    /// another process in between is never overwritten unseen.
    @discardableResult
    public func edit(_ id: EntityID, body: String?, locator: Locator??, kind: AnnotationKind? = nil,
                               comment: String?? = nil, createdAt: Timestamp? = nil) throws(StoreError) -> Annotation {
        try change(id, action: .update) { annotation in
            if let body { annotation.body = body }
            if let locator { annotation.locator = locator }
            if let comment { annotation.comment = comment }
            if let kind { annotation.kind = kind }
            if let createdAt { annotation.createdAt = createdAt }
        }
    }

    /// Moves notes and quotes to a live book: each one not already there gets a new
    /// version, as an edit does. Returns those that moved.
    public func move(_ ids: [EntityID], to book: EntityID) throws(StoreError) -> [Annotation] {
        try tables.books.requireLive(book)
        var moved: [Annotation] = []
        for id in ids where try annotation(id).bookID != book {
            moved.append(try change(id, action: .update) { annotation in annotation.bookID = book })
        }
        return moved
    }

    /// Tombstones a note or quote: it disappears from listings but stays in the store,
    /// so the deletion can propagate instead of an offline device resurrecting it.
    @discardableResult
    public func delete(_ id: EntityID) throws(StoreError) -> Annotation {
        try change(id, action: .delete) { annotation in annotation.deletedAt = annotation.updatedAt }
    }

    /// One note or quote by id, tombstoned or not, as the reader sees it.
    public func annotation(_ id: EntityID) throws(StoreError) -> Annotation {
        let openers = try AnnotationOpeners(try store.requireCipher())
        var found: Result<Annotation, UnreadableRecord>?
        try database.forEachRow(Self.annotationByIDSQL, [.text(id.rawValue)]) { row in
            found = decode(row, openers: openers)
        }
        switch found {
        case .success(let annotation): return annotation
        case .failure(let unreadable): throw .recordUnreadable(id: unreadable.id, field: unreadable.field)
        case nil: throw .recordNotFound(id: id.rawValue)
        }
    }

    /// Hands each matching annotation to `body` in `order`, one row at a time: memory does
    /// not grow with the journal. With `newest`, only that many of the matching ones, the
    /// most recently created (most recently changed for ``AnnotationOrder/updated``). An
    /// annotation whose sealed fields do not open arrives as a failure naming its id; the
    /// rest still read.
    public func forEach(_ filter: AnnotationFilter = AnnotationFilter(), order: AnnotationOrder = .bookAdded,
                                  newest: Int? = nil,
                                  _ body: (Result<Annotation, UnreadableRecord>) throws(StoreError) -> Void) throws(StoreError) {
        let openers = try AnnotationOpeners(try store.requireCipher())
        var (whereClause, values) = filter.sql()
        if let newest {
            let recent = order == .updated ? "updated_at" : "created_at"
            values.append(.integer(Int64(newest)))
            whereClause += """
                 AND rowid IN (SELECT rowid FROM annotation \(whereClause) ORDER BY \(recent) DESC, id DESC LIMIT ?\(values.count))
                """
        }
        try database.readTransaction { () throws(StoreError) in
            try database.forEachRow("""
                SELECT \(AnnotationColumn.list) FROM annotation \(whereClause) ORDER BY \(order.sql)
                """, values) { (row) throws(StoreError) in
                try body(decode(row, openers: openers))
            }
        }
    }

    /// The books that have annotations `filter` lists, in no particular order.
    public func bookIDs(_ filter: AnnotationFilter) throws(StoreError) -> [EntityID] {
        let (whereClause, values) = filter.sql()
        var books: [EntityID] = []
        try database.forEachRow("SELECT DISTINCT book_id FROM annotation \(whereClause)", values) { row in
            if let id = try? EntityID(validating: row.text("book_id")) { books.append(id) }
        }
        return books
    }

    // MARK: - Rows

    /// Changes a live note or quote as the reader sees it and records the operation: a new
    /// version that supersedes every version here. Only an
    /// import or a conflict resolution (`requireLive: false`) may change a deleted one: to
    /// bring it back. Conflict copies shown from the note's versions become notes of their
    /// own first, but those in `dropping`, which the reader let go (see
    /// ``versionsForWrite(of:dropping:)``).
    @discardableResult
    package func change(_ id: EntityID, action: OutboxAction, requireLive: Bool = true,
                dropping: Set<EntityID> = [],
                _ change: (inout Annotation) -> Void) throws(StoreError) -> Annotation {
        tables.requireWrite()
        let standing = try versionsForWrite(of: id, dropping: dropping)
        var annotation = try self.annotation(id)
        guard annotation.deletedAt == nil || !requireLive else { throw .recordNotFound(id: id.rawValue) }
        let base = try store.recordClock(table: "annotation", id: id)
        let stamp = try store.tick()
        let baseVersion = standing.versions.map(\.annotation.version).max() ?? annotation.version
        annotation.updatedAt = max(store.clock.now(), annotation.updatedAt)
        change(&annotation)
        annotation.version = try VersionNumber.next(after: baseVersion, of: id)
        let version = standing.write(annotation, at: stamp)
        try writeRow(version, derived: false)
        if standing.versions.count > 1 { try writeStandingVersions(AnnotationVersions(version), of: id) }
        try tables.outbox.enqueue(action, .annotation(version), clock: stamp, at: annotation.updatedAt, baseVersion: baseVersion, base: base)
        return annotation
    }

    /// The values of a row showing `version` (as `note`, when its mark is not the version's
    /// own), one per ``AnnotationColumn``, for ``AnnotationColumn/placeholders``.
    func values(_ version: AnnotationVersion, shownAs note: Annotation? = nil, cipher: RecordCipher,
                derived: Bool) throws(StoreError) -> [SQLValue] {
        let annotation = note ?? version.annotation
        let sealed = try sealedText(of: annotation, cipher: cipher)
        return AnnotationColumn.allCases.map { column -> SQLValue in
            switch column {
            case .id: .text(annotation.id.rawValue)
            case .bookID: .text(annotation.bookID.rawValue)
            case .kind: .text(annotation.kind.rawValue)
            case .body: .blob(sealed.body)
            case .locator: .blob(sealed.locator)
            case .createdAt: .integer(annotation.createdAt.millisecondsSince1970)
            case .updatedAt: .integer(annotation.updatedAt.millisecondsSince1970)
            case .deletedAt: .integer(annotation.deletedAt?.millisecondsSince1970)
            case .version: .integer(annotation.version)
            case .conflictOf: annotation.conflictOf.map { .text($0.rawValue) } ?? .null
            case .conflictReason: annotation.conflictReason.map { .text($0.rawValue) } ?? .null
            case .hlc: .text(version.clock.description)
            case .vv: Self.storedHistory(version)
            case .derived: .integer(derived ? 1 : 0)
            case .comment: .blob(sealed.comment)
            case .importKey: .blob(sealed.importKey)
            }
        }
    }

    /// A note's sealed fields, as its row holds them.
    struct SealedAnnotationText {
        let body: [UInt8]
        let locator: [UInt8]?
        let comment: [UInt8]?
        let importKey: [UInt8]?
    }

    /// A note's body, locator, comment and import key, sealed for its row.
    func sealedText(of annotation: Annotation, cipher: RecordCipher) throws(StoreError) -> SealedAnnotationText {
        let id = annotation.id.rawValue
        func seal(_ text: String?, _ field: String) throws(StoreError) -> [UInt8]? {
            guard let text else { return nil }
            return try cipher.seal(text, table: "annotation", id: id, field: field)
        }
        return SealedAnnotationText(body: try cipher.seal(annotation.body, table: "annotation", id: id, field: "body"),
                                    locator: try seal(annotation.locator?.text, "locator"), comment: try seal(annotation.comment, "comment"),
                                    importKey: try seal(annotation.importKey, "import_key"))
    }

    /// The note or quote a row selected with ``AnnotationColumn/list`` shows.
    func decode(_ row: Row, openers: AnnotationOpeners) -> Result<Annotation, UnreadableRecord> {
        let id = row.text(AnnotationColumn.id)
        return Result { () throws(UnreadableRecord) -> Annotation in
            guard let entityID = try? EntityID(validating: id),
                  let bookID = try? EntityID(validating: row.text(AnnotationColumn.bookID)) else { throw UnreadableRecord(id: id, field: "id") }
            guard let kind = AnnotationKind(rawValue: row.text(AnnotationColumn.kind)) else { throw UnreadableRecord(id: id, field: "kind") }
            let deleted = !row.isNull(AnnotationColumn.deletedAt)
            // A purged tombstone (Store+Tombstones) has no content left; any other empty field is damage.
            let purged = deleted && row.withBytes(AnnotationColumn.body) { $0.isEmpty }
            let body = purged ? "" : try openers.open(openers.body, row, column: .body, id: id, field: "body")
            var locator: Locator?
            if !row.isNull(AnnotationColumn.locator) {
                let text = try openers.open(openers.locator, row, column: .locator, id: id, field: "locator")
                guard let checked = try? Locator(text) else { throw UnreadableRecord(id: id, field: "locator") }
                locator = checked
            }
            let comment = row.isNull(AnnotationColumn.comment) ? nil
                : try openers.open(openers.comment, row, column: .comment, id: id, field: "comment")
            let importKey = row.isNull(AnnotationColumn.importKey) ? nil
                : try openers.open(openers.importKey, row, column: .importKey, id: id, field: "import_key")
            return Annotation(id: entityID, bookID: bookID, kind: kind, body: body, locator: locator,
                              createdAt: Timestamp(millisecondsSince1970: row.int64(AnnotationColumn.createdAt)),
                              updatedAt: Timestamp(millisecondsSince1970: row.int64(AnnotationColumn.updatedAt)),
                              deletedAt: deleted ? Timestamp(millisecondsSince1970: row.int64(AnnotationColumn.deletedAt)) : nil,
                              version: row.int64(AnnotationColumn.version),
                              conflictOf: row.isNull(AnnotationColumn.conflictOf) ? nil : try? EntityID(validating: row.text(AnnotationColumn.conflictOf)),
                              conflictReason: row.isNull(AnnotationColumn.conflictReason) ? nil
                                  : ConflictReason(rawValue: row.text(AnnotationColumn.conflictReason)),
                              comment: comment, importKey: importKey)
        }
    }

    /// Replaces a note's sealed fields with `annotation`'s (a record whose own no longer
    /// open, replaced by a readable version of it).
    package func replaceSealedText(with annotation: Annotation) throws(StoreError) {
        tables.requireWrite()
        let sealed = try sealedText(of: annotation, cipher: try store.requireCipher())
        try database.run("UPDATE annotation SET body = ?2, locator = ?3, comment = ?4, import_key = ?5 WHERE id = ?1",
                         [.text(annotation.id.rawValue), .blob(sealed.body), .blob(sealed.locator), .blob(sealed.comment),
                          .blob(sealed.importKey)])
    }

    /// The ids of a book's live notes and quotes (conflict copies included).
    public func liveIDs(of bookID: EntityID) throws(StoreError) -> [EntityID] {
        var ids: [EntityID] = []
        try database.forEachRow("SELECT id FROM annotation WHERE book_id = ? AND deleted_at IS NULL", [.text(bookID.rawValue)]) { row in
            if let id = try? EntityID(validating: row.text("id")) { ids.append(id) }
        }
        return ids
    }

    /// How many live notes and quotes a book has (conflict copies included).
    func liveCount(of bookID: EntityID) throws(StoreError) -> Int {
        Int(try database.integer("SELECT count(*) FROM annotation WHERE book_id = ? AND deleted_at IS NULL", [.text(bookID.rawValue)]) ?? 0)
    }
}
