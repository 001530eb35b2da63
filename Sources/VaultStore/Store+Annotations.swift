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

    /// `?1, ?2, ...`, one for each column, in order.
    static let placeholders = allCases.map { "?\($0.rawValue + 1)" }.joined(separator: ", ")
}

extension Store {
    // Made once: an import runs these for every note, and the statement cache is keyed by the text.
    private static let insertAnnotationSQL = "INSERT INTO annotation (\(AnnotationColumn.list)) VALUES (\(AnnotationColumn.placeholders))"
    private static let annotationByIDSQL = "SELECT \(AnnotationColumn.list) FROM annotation WHERE id = ?"

    /// Saves a new note or quote and its `create` operation, with `tags` (each with its
    /// own), in one transaction.
    public func addAnnotation(_ annotation: Annotation, tags: [String] = []) throws(StoreError) {
        _ = try requireCipher()
        try database.writeTransaction { () throws(StoreError) in
            try requireLiveBook(annotation.bookID)
            try insertAnnotation(annotation, outboxState: .pending)
            if !tags.isEmpty { _ = try tablesOfThisTransaction.tags.add(tags, to: annotation.id, kind: .annotation) }
        }
    }

    /// Inserts an annotation row and its `create` operation. Call inside a write
    /// transaction; the book must exist (a foreign key), and callers adding a new note
    /// check first that it is not deleted.
    func insertAnnotation(_ annotation: Annotation, outboxState: OutboxState) throws(StoreError) {
        let cipher = try requireCipher()
        let stamp = try tick()
        let version = AnnotationVersion(annotation, clock: stamp, history: VersionVector(stamp))
        try database.run(Self.insertAnnotationSQL, try annotationValues(version, cipher: cipher, derived: false))
        try enqueue(.create, .annotation(version), clock: stamp, at: annotation.updatedAt, baseVersion: 0, base: nil,
                    state: outboxState)
    }

    /// Changes a note's or quote's body, locator, kind and/or comment. Reads and writes in one
    /// write transaction, so an edit from another process in between is never overwritten unseen.
    @discardableResult
    public func editAnnotation(_ id: EntityID, body: String?, locator: Locator??, kind: AnnotationKind? = nil,
                               comment: String?? = nil) throws(StoreError) -> Annotation {
        try changeAnnotation(id, action: .update) { annotation in
            if let body { annotation.body = body }
            if let locator { annotation.locator = locator }
            if let comment { annotation.comment = comment }
            if let kind { annotation.kind = kind }
        }
    }

    /// Moves notes and quotes to a live book, all in one write transaction: each one not
    /// already there gets a new version, as an edit does. Returns those that moved.
    public func moveAnnotations(_ ids: [EntityID], to book: EntityID) throws(StoreError) -> [Annotation] {
        try database.writeTransaction { () throws(StoreError) -> [Annotation] in
            try requireLiveBook(book)
            var moved: [Annotation] = []
            for id in ids where try annotation(id).bookID != book {
                moved.append(try changeAnnotationInTransaction(id, action: .update) { annotation in annotation.bookID = book })
            }
            return moved
        }
    }

    /// Tombstones a note or quote: it disappears from listings but stays in the store,
    /// so the deletion can propagate instead of an offline device resurrecting it.
    @discardableResult
    public func deleteAnnotation(_ id: EntityID) throws(StoreError) -> Annotation {
        try changeAnnotation(id, action: .delete) { annotation in annotation.deletedAt = annotation.updatedAt }
    }

    /// Tombstones notes, quotes, sessions and books in one write transaction: all of them,
    /// or, if one cannot go (a book that would still have notes), none. Notes go first, so
    /// a book deleted with its last notes may go. Returns each record's kind and id, in the
    /// order given.
    public func delete(_ references: [RecordReference]) throws(StoreError) -> [(kind: String, id: EntityID)] {
        try database.writeTransaction { () throws(StoreError) in
            var kinds: [EntityID: String] = [:]
            for reference in references where reference.kind == .annotation {
                let deleted = try changeAnnotationInTransaction(reference.id, action: .delete) { annotation in
                    annotation.deletedAt = annotation.updatedAt
                }
                kinds[reference.id] = deleted.kind.rawValue
            }
            for reference in references where reference.kind == .session {
                try tablesOfThisTransaction.sessions.delete(reference.id)
            }
            for reference in references where reference.kind == .book {
                try deleteBookInTransaction(reference.id)
            }
            return references.map { (kinds[$0.id] ?? $0.kind.rawValue, $0.id) }
        }
    }

    /// One note or quote by id, tombstoned or not, as the reader sees it.
    public func annotation(_ id: EntityID) throws(StoreError) -> Annotation {
        let openers = try AnnotationOpeners(try requireCipher())
        var found: Result<Annotation, UnreadableRecord>?
        try database.forEachRow(Self.annotationByIDSQL, [.text(id.rawValue)]) { row in
            found = decodeAnnotation(row, openers: openers)
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
    public func forEachAnnotation(_ filter: AnnotationFilter = AnnotationFilter(), order: AnnotationOrder = .bookAdded,
                                  newest: Int? = nil,
                                  _ body: (Result<Annotation, UnreadableRecord>) throws(StoreError) -> Void) throws(StoreError) {
        let openers = try AnnotationOpeners(try requireCipher())
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
                try body(decodeAnnotation(row, openers: openers))
            }
        }
    }

    /// The books that have annotations `filter` lists, in no particular order.
    public func annotatedBookIDs(_ filter: AnnotationFilter) throws(StoreError) -> [EntityID] {
        let (whereClause, values) = filter.sql()
        var books: [EntityID] = []
        try database.forEachRow("SELECT DISTINCT book_id FROM annotation \(whereClause)", values) { row in
            if let id = try? EntityID(validating: row.text(0)) { books.append(id) }
        }
        return books
    }

    // MARK: - Rows

    @discardableResult
    func changeAnnotation(_ id: EntityID, action: OutboxAction,
                          _ change: (inout Annotation) -> Void) throws(StoreError) -> Annotation {
        try database.writeTransaction { () throws(StoreError) -> Annotation in
            try changeAnnotationInTransaction(id, action: action, change)
        }
    }

    /// Changes a live note or quote as the reader sees it and records the operation: a new
    /// version that supersedes every version here. Call inside a write transaction. Only an
    /// import or a conflict resolution (`requireLive: false`) may change a deleted one: to
    /// bring it back. Conflict copies shown from the note's versions become notes of their
    /// own first, but those in `dropping`, which the reader let go (see
    /// ``versionsForWrite(of:dropping:)``).
    @discardableResult
    func changeAnnotationInTransaction(_ id: EntityID, action: OutboxAction, requireLive: Bool = true,
                                       dropping: Set<EntityID> = [],
                                       _ change: (inout Annotation) -> Void) throws(StoreError) -> Annotation {
        let standing = try versionsForWrite(of: id, dropping: dropping)
        var annotation = try self.annotation(id)
        guard annotation.deletedAt == nil || !requireLive else { throw .recordNotFound(id: id.rawValue) }
        let base = try recordClock(table: "annotation", id: id)
        let stamp = try tick()
        let baseVersion = standing.versions.map(\.annotation.version).max() ?? annotation.version
        annotation.updatedAt = max(clock.now(), annotation.updatedAt)
        change(&annotation)
        annotation.version = try Self.nextVersion(after: baseVersion, of: id)
        let version = standing.write(annotation, at: stamp)
        try writeAnnotationRow(version, derived: false)
        if standing.versions.count > 1 { try writeStandingVersions(AnnotationVersions(version), of: id) }
        try enqueue(action, .annotation(version), clock: stamp, at: annotation.updatedAt, baseVersion: baseVersion, base: base)
        return annotation
    }

    /// The values of a row showing `version` (as `note`, when its mark is not the version's
    /// own), in ``AnnotationColumn`` order.
    func annotationValues(_ version: AnnotationVersion, shownAs note: Annotation? = nil, cipher: RecordCipher,
                          derived: Bool) throws(StoreError) -> [SQLValue] {
        let annotation = note ?? version.annotation
        let sealed = try sealedText(of: annotation, cipher: cipher)
        return [.text(annotation.id.rawValue), .text(annotation.bookID.rawValue), .text(annotation.kind.rawValue),
                .blob(sealed.body), .blob(sealed.locator),
                .integer(annotation.createdAt.millisecondsSince1970), .integer(annotation.updatedAt.millisecondsSince1970),
                .integer(annotation.deletedAt?.millisecondsSince1970), .integer(annotation.version),
                annotation.conflictOf.map { .text($0.rawValue) } ?? .null,
                annotation.conflictReason.map { .text($0.rawValue) } ?? .null,
                .text(version.clock.description),
                Self.storedHistory(version),
                .integer(derived ? 1 : 0),
                .blob(sealed.comment), .blob(sealed.importKey)]
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
    func decodeAnnotation(_ row: Row, openers: AnnotationOpeners) -> Result<Annotation, UnreadableRecord> {
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
    func replaceSealedText(with annotation: Annotation) throws(StoreError) {
        let sealed = try sealedText(of: annotation, cipher: try requireCipher())
        try database.run("UPDATE annotation SET body = ?2, locator = ?3, comment = ?4, import_key = ?5 WHERE id = ?1",
                         [.text(annotation.id.rawValue), .blob(sealed.body), .blob(sealed.locator), .blob(sealed.comment),
                          .blob(sealed.importKey)])
    }
}
