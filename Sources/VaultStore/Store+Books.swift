import Foundation
public import Journal
import Telemetry

extension Store {
    static let bookColumns = "id, title, authors, progress, created_at, updated_at, deleted_at, version"
    // Made once: the statement cache is keyed by the text.
    private static let insertBookSQL = "INSERT INTO book (\(bookColumns), hlc, progress_hlc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?9, ?9)"
    private static let bookByIDSQL = "SELECT \(bookColumns) FROM book WHERE id = ?"

    /// Saves a new book and its `create` operation.
    public func addBook(_ book: Book) throws(StoreError) {
        let cipher = try requireCipher()
        try database.writeTransaction { () throws(StoreError) in try insertBook(book, cipher: cipher, outboxState: .pending) }
    }

    /// Inserts a book row and its `create` operation. Call inside a write transaction.
    func insertBook(_ book: Book, cipher: RecordCipher, outboxState: OutboxState) throws(StoreError) {
        let stamp = try tick()
        try database.run(Self.insertBookSQL,
                         try bookValues(book, cipher: cipher) + [.text(stamp.description)])
        try enqueue(.book, .create, id: book.id, baseVersion: 0,
                    payload: OutboxPayload(book, progressRewind: false, progressClock: stamp), cipher: cipher,
                    at: book.updatedAt, clock: stamp, base: nil, state: outboxState)
    }

    /// Sets a book's progress, reading and writing inside one write transaction, so a
    /// concurrent change from another process is never overwritten unseen. A `rewind` is an
    /// explicit move backwards, which sync lets win over positions recorded before it.
    @discardableResult
    /// A plain position behind the current one is refused (`progressBehind`): moving back
    /// must be said, so that every device can tell a correction from a stale position.
    public func setProgress(of id: EntityID, to percent: Double, rewind: Bool = false) throws(StoreError) -> Book {
        try database.writeTransaction { () throws(StoreError) in
            if !rewind {
                var current = 0.0
                try database.forEachRow("SELECT progress FROM book WHERE id = ? AND deleted_at IS NULL", [.text(id.rawValue)]) { row in
                    current = row.double(0)
                }
                guard percent >= current else { throw .progressBehind(current: current) }
            }
            return try updateBookInTransaction(id, action: .update, progressRewind: rewind) { book in book.progress = percent }
        }
    }

    /// Tombstones a book. Refused while it has live notes or quotes, which would
    /// otherwise disappear from every listing with it.
    public func deleteBook(_ id: EntityID) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            var live = 0
            try database.forEachRow("SELECT count(*) FROM annotation WHERE book_id = ? AND deleted_at IS NULL",
                                    [.text(id.rawValue)]) { row in live = Int(row.int64(0)) }
            guard live == 0 else { throw .bookHasAnnotations(id: id.rawValue, count: live) }
            _ = try updateBookInTransaction(id, action: .delete, progressRewind: nil) { book in book.deletedAt = book.updatedAt }
        }
    }

    /// One book by id, tombstoned or not.
    public func book(_ id: EntityID) throws(StoreError) -> Book {
        let cipher = try requireCipher()
        var found: Result<Book, UnreadableRecord>?
        try database.forEachRow(Self.bookByIDSQL, [.text(id.rawValue)]) { row in
            found = decodeBook(row, cipher: cipher)
        }
        switch found {
        case .success(let book): return book
        case .failure(let unreadable): throw .recordUnreadable(id: unreadable.id, field: unreadable.field)
        case nil: throw .recordNotFound(id: id.rawValue)
        }
    }

    /// Every book, oldest first. A book whose sealed fields do not open is reported in
    /// place as a failure; the others still read.
    public func books(includeDeleted: Bool = false) throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        let cipher = try requireCipher()
        var books: [Result<Book, UnreadableRecord>] = []
        // Purged tombstones have nothing left to show.
        let filter = includeDeleted ? "WHERE length(title) > 0" : "WHERE deleted_at IS NULL"
        try database.forEachRow("SELECT \(Self.bookColumns) FROM book \(filter) ORDER BY created_at, id") { row in
            books.append(decodeBook(row, cipher: cipher))
        }
        return books
    }

    // MARK: - Rows

    /// Changes a book and records the operation. `progressRewind` non-nil means the
    /// progress changed (and whether as a rewind), which moves the progress clock too.
    /// Only an import (`requireLive: false`) may change a deleted book: to bring it back.
    @discardableResult
    func updateBookInTransaction(_ id: EntityID, action: OutboxAction, progressRewind: Bool?, requireLive: Bool = true,
                                 _ change: (inout Book) -> Void) throws(StoreError) -> Book {
        let cipher = try requireCipher()
        var book = try self.book(id)
        guard book.deletedAt == nil || !requireLive else { throw .recordNotFound(id: id.rawValue) }
        let base = try recordClock(table: "book", id: id)
        let stamp = try tick()
        let baseVersion = book.version
        book.updatedAt = max(clock.now(), book.updatedAt)
        let originalTitle = book.title
        change(&book)
        book.version = baseVersion + 1
        // why the stored title is kept when unchanged: rewriting it (a fresh nonce) would
        // empty the book title cache (migration 0004) on every progress change.
        try database.run("""
            UPDATE book SET title = CASE WHEN ?11 THEN ?2 ELSE title END, authors = ?3, progress = ?4, created_at = ?5, updated_at = ?6,
                            deleted_at = ?7, version = ?8, hlc = ?9,
                            progress_hlc = CASE WHEN ?10 IS NULL THEN progress_hlc ELSE ?9 END,
                            progress_rewind = coalesce(?10, progress_rewind)
            WHERE id = ?1
            """, try bookValues(book, cipher: cipher) + [.text(stamp.description), progressRewind.map { .integer($0 ? 1 : 0) } ?? .null,
                                                         .integer(book.title != originalTitle ? 1 : 0)])
        var rewind = progressRewind ?? false
        var progressClock: HybridTimestamp?
        try database.forEachRow("SELECT progress_rewind, progress_hlc FROM book WHERE id = ?", [.text(id.rawValue)]) { row in
            rewind = row.int64(0) == 1
            progressClock = try? HybridTimestamp(parsing: row.text(1))
        }
        try enqueue(.book, action, id: id, baseVersion: baseVersion,
                    payload: OutboxPayload(book, progressRewind: rewind, progressClock: progressClock),
                    cipher: cipher, at: book.updatedAt, clock: stamp, base: base)
        return book
    }

    func bookValues(_ book: Book, cipher: RecordCipher) throws(StoreError) -> [SQLValue] {
        let authors: String
        do {
            authors = String(decoding: try JSONEncoder().encode(book.authors), as: UTF8.self)
        } catch {
            throw .database(code: 0, message: "authors could not be encoded")
        }
        return [.text(book.id.rawValue),
                .blob(try cipher.seal(book.title, table: "book", id: book.id.rawValue, field: "title")),
                .blob(try cipher.seal(authors, table: "book", id: book.id.rawValue, field: "authors")),
                .real(book.progress),
                .integer(book.createdAt.millisecondsSince1970), .integer(book.updatedAt.millisecondsSince1970),
                .integer(book.deletedAt?.millisecondsSince1970), .integer(book.version)]
    }

    private func decodeBook(_ row: Row, cipher: RecordCipher) -> Result<Book, UnreadableRecord> {
        let id = row.text(0)
        return Result { () throws(UnreadableRecord) -> Book in
            guard let entityID = try? EntityID(validating: id) else { throw UnreadableRecord(id: id, field: "id") }
            // A purged tombstone (Store+Tombstones) has no content left; any other empty field is damage.
            let purged = !row.isNull(6) && row.blob(1).isEmpty
            let title = purged ? "" : try cipher.open(row.blob(1), table: "book", id: id, field: "title")
            let authorsJSON = purged ? "[]" : try cipher.open(row.blob(2), table: "book", id: id, field: "authors")
            guard let authors = try? JSONDecoder().decode([String].self, from: Data(authorsJSON.utf8)) else {
                throw UnreadableRecord(id: id, field: "authors")
            }
            // The sealed field is a JSON list; the log backstop must know each name on its own.
            authors.forEach(RecentContent.shared.remember)
            return Book(id: entityID, title: title, authors: authors, progress: row.double(3),
                        createdAt: Timestamp(millisecondsSince1970: row.int64(4)),
                        updatedAt: Timestamp(millisecondsSince1970: row.int64(5)),
                        deletedAt: row.isNull(6) ? nil : Timestamp(millisecondsSince1970: row.int64(6)),
                        version: row.int64(7))
        }
    }
}
