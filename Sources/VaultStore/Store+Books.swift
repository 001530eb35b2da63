import Foundation
public import Journal
import SyncWire
import Telemetry

extension Store {
    static let bookColumns = "id, title, authors, progress, created_at, updated_at, deleted_at, version, reading_log, rating, edition"
    // Made once: the statement cache is keyed by the text.
    private static let insertBookSQL = """
        INSERT INTO book (\(bookColumns), hlc, metadata_hlc, progress_hlc, progress_rewind, progress_marks, rating_hlc, edition_hlc)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
        """
    private static let bookByIDSQL = "SELECT \(bookColumns) FROM book WHERE id = ?"
    private static let bookClocksSQL = """
        SELECT hlc, coalesce(metadata_hlc, hlc), coalesce(progress_hlc, hlc), progress_rewind, progress_marks, rating_hlc, edition_hlc
        FROM book WHERE id = ?
        """

    /// Saves a new book and its `create` operation, with `tags` (each with its own), in one
    /// transaction.
    public func addBook(_ book: Book, tags: [String] = []) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try insertBook(book, outboxState: .pending)
            if !tags.isEmpty { _ = try tablesOfThisTransaction.tags.add(tags, to: book.id, kind: .book) }
        }
    }

    /// Inserts a book row and its `create` operation. Call inside a write transaction.
    func insertBook(_ book: Book, outboxState: OutboxState) throws(StoreError) {
        let stamp = try tick()
        let version = BookVersion(book, clock: stamp, metadataClock: stamp,
                                  positions: ProgressPolicy.Positions(percent: book.progress, isRewind: false, clock: stamp),
                                  ratingClock: book.rating == nil ? .origin : stamp,
                                  editionClock: book.edition.isEmpty ? .origin : stamp)
        try writeBook(version, insert: true)
        try enqueue(.create, .book(version), clock: stamp, at: book.updatedAt, baseVersion: 0, base: nil, state: outboxState)
    }

    /// Sets a book's progress, reading and writing inside one write transaction, so a
    /// concurrent change from another process is never overwritten unseen. A `rewind` is an
    /// explicit move backwards, which sync lets win over positions recorded before it.
    /// A plain position behind the current one is refused (`progressBehind`): moving back
    /// must be said, so that every device can tell a correction from a stale position.
    @discardableResult
    public func setProgress(of id: EntityID, to percent: Double, rewind: Bool = false) throws(StoreError) -> Book {
        try database.writeTransaction { () throws(StoreError) in
            if !rewind {
                let current = try currentProgress(of: id)
                guard percent >= current else { throw .progressBehind(current: current) }
            }
            return try changeBookInTransaction(id, action: .update, parts: .progress(rewind: rewind)) { book in book.progress = percent }
        }
    }

    /// A live book's progress as stored (0 for one that is not there: the change that
    /// follows reports that). Call inside a transaction.
    func currentProgress(of id: EntityID) throws(StoreError) -> Double {
        var current = 0.0
        try database.forEachRow("SELECT progress FROM book WHERE id = ? AND deleted_at IS NULL", [.text(id.rawValue)]) { row in
            current = row.double(0)
        }
        return current
    }

    /// Rates a book (nil takes its rating away), with a new clock for the rating alone.
    @discardableResult
    public func rateBook(_ id: EntityID, stars: Double?) throws(StoreError) -> Book {
        try database.writeTransaction { () throws(StoreError) in
            try changeBookInTransaction(id, action: .update, parts: .rating) { book in book.rating = stars }
        }
    }

    /// Records a status change of a book on day (or moment) `on`; the event's clock is the
    /// change's, which names it on every device.
    @discardableResult
    public func recordStatus(_ status: ReadingStatus, of id: EntityID, on: Timestamp) throws(StoreError) -> Book {
        try database.writeTransaction { () throws(StoreError) in
            try changeBookInTransaction(id, action: .update, parts: .readingLog) { book, stamp in
                book.readingLog = book.readingLog.adding(ReadingEvent(status: status, on: on, clock: stamp))
            }
        }
    }

    /// Changes a book's title, authors and/or edition (nil keeps the field). Metadata and
    /// edition each take a new clock of their own when they change, so a position recorded
    /// on another device neither undoes this change nor is undone by it (``BookVersion``).
    @discardableResult
    public func editBook(_ id: EntityID, title: String?, authors: [String]?, edition: Edition? = nil) throws(StoreError) -> Book {
        try database.writeTransaction { () throws(StoreError) in
            let parts = BookParts(metadata: title != nil || authors != nil, edition: edition != nil)
            return try changeBookInTransaction(id, action: .update, parts: parts) { book in
                if let title { book.title = title }
                if let authors { book.authors = authors }
                if let edition { book.edition = edition }
            }
        }
    }

    /// Tombstones a book. Refused while it has live notes or quotes, which would
    /// otherwise disappear from every listing with it.
    public func deleteBook(_ id: EntityID) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in try deleteBookInTransaction(id) }
    }

    /// ``deleteBook(_:)`` inside a write transaction.
    func deleteBookInTransaction(_ id: EntityID) throws(StoreError) {
        let live = try liveAnnotationCount(of: id)
        guard live == 0 else { throw .bookHasAnnotations(id: id.rawValue, count: live) }
        _ = try changeBookInTransaction(id, action: .delete, parts: .metadata) { book in book.deletedAt = book.updatedAt }
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

    /// One book with the clocks its merge reads. A book whose recorded positions are just
    /// its current one (`progress_marks` NULL: nearly every book, and every book before 0.6)
    /// has them from its progress columns.
    func bookVersion(_ id: EntityID) throws(StoreError) -> BookVersion {
        let book = try self.book(id)
        var clocks: (HybridTimestamp, HybridTimestamp, ProgressPolicy.Positions, HybridTimestamp, HybridTimestamp)?
        try database.forEachRow(Self.bookClocksSQL, [.text(id.rawValue)]) { row in
            guard let clock = try? HybridTimestamp(parsing: row.text(0)), let metadata = try? HybridTimestamp(parsing: row.text(1)),
                  let progress = try? HybridTimestamp(parsing: row.text(2)),
                  let rating = row.isNull(5) ? .origin : try? HybridTimestamp(parsing: row.text(5)),
                  let edition = row.isNull(6) ? .origin : try? HybridTimestamp(parsing: row.text(6)) else { return }
            let positions = row.isNull(4) ? ProgressPolicy.Positions(percent: book.progress, isRewind: row.int64(3) == 1, clock: progress)
                : try? ProgressPolicy.Positions(parsing: row.text(4))
            if let positions { clocks = (clock, metadata, positions, rating, edition) }
        }
        guard let (clock, metadata, positions, rating, edition) = clocks else { throw .recordUnreadable(id: id.rawValue, field: "hlc") }
        return BookVersion(book, clock: clock, metadataClock: metadata, positions: positions, ratingClock: rating, editionClock: edition)
    }

    /// Every book, oldest first. A book whose sealed fields do not open is reported in
    /// place as a failure; the others still read.
    public func books(includeDeleted: Bool = false) throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        // Purged tombstones have nothing left to show.
        try books(where: includeDeleted ? "WHERE length(title) > 0" : "WHERE deleted_at IS NULL")
    }

    /// The books `filter` (a `WHERE` clause) selects, oldest first.
    func books(where filter: String) throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        let cipher = try requireCipher()
        var books: [Result<Book, UnreadableRecord>] = []
        try database.forEachRow("SELECT \(Self.bookColumns) FROM book \(filter) ORDER BY created_at, id") { row in
            books.append(decodeBook(row, cipher: cipher))
        }
        return books
    }

    /// The reading logs of the live books that have one (they are in the clear: nothing is
    /// decrypted). A log that does not read is left out.
    public func readingLogs() throws(StoreError) -> [ReadingLog] {
        var logs: [ReadingLog] = []
        try database.forEachRow("SELECT reading_log FROM book WHERE deleted_at IS NULL AND reading_log IS NOT NULL") { row in
            if let log = try? ReadingLog(parsing: row.text(0)) { logs.append(log) }
        }
        return logs
    }

    /// Whether a book is here, live, deleted, or deleted with its title purged.
    func bookPresence(_ id: EntityID) throws(StoreError) -> RecordPresence {
        var presence = RecordPresence.missing
        try database.forEachRow("SELECT deleted_at IS NOT NULL, length(title) > 0 FROM book WHERE id = ?", [.text(id.rawValue)]) { row in
            presence = row.int64(0) == 0 ? .live : (row.int64(1) == 0 ? .purged : .deleted)
        }
        return presence
    }

    /// What a merge needs to know of book `id`: nil when it is not here.
    func localBook(_ id: EntityID) throws(StoreError) -> LocalBook? {
        do {
            return .book(try bookVersion(id), liveAnnotations: try liveAnnotationCount(of: id))
        } catch .recordNotFound {
            return nil
        } catch .recordUnreadable {
            return .unreadable
        }
    }

    /// The ids of a book's live notes and quotes (conflict copies included).
    public func liveAnnotationIDs(of bookID: EntityID) throws(StoreError) -> [EntityID] {
        var ids: [EntityID] = []
        try database.forEachRow("SELECT id FROM annotation WHERE book_id = ? AND deleted_at IS NULL", [.text(bookID.rawValue)]) { row in
            if let id = try? EntityID(validating: row.text(0)) { ids.append(id) }
        }
        return ids
    }

    /// Live notes and quotes of a book (conflict copies included).
    func liveAnnotationCount(of bookID: EntityID) throws(StoreError) -> Int {
        var count = 0
        try database.forEachRow("SELECT count(*) FROM annotation WHERE book_id = ? AND deleted_at IS NULL",
                                [.text(bookID.rawValue)]) { row in count = Int(row.int64(0)) }
        return count
    }

    // MARK: - Rows

    /// Which parts of a book a change touches, each of which moves its own clock (the
    /// reading log's events carry theirs).
    struct BookParts {
        /// Title, authors or deletion.
        var metadata = false
        /// The position, and whether it is a rewind.
        var progress = false
        var rewind = false
        var rating = false
        var edition = false

        static let metadata = BookParts(metadata: true)
        static func progress(rewind: Bool) -> BookParts { BookParts(progress: true, rewind: rewind) }
        /// Metadata and position (an import, or a book whose fields no longer opened).
        static func all(rewind: Bool) -> BookParts { BookParts(metadata: true, progress: true, rewind: rewind) }
        static let rating = BookParts(rating: true)
        /// A status change: only the reading log, whose new event has its own clock.
        static let readingLog = BookParts()
    }

    /// Changes a book and records the operation. Call inside a write transaction. Only an
    /// import (`requireLive: false`) may change a deleted book: to bring it back.
    @discardableResult
    func changeBookInTransaction(_ id: EntityID, action: OutboxAction, parts: BookParts, requireLive: Bool = true,
                                 _ change: (inout Book) -> Void) throws(StoreError) -> Book {
        try changeBookInTransaction(id, action: action, parts: parts, requireLive: requireLive) { book, _ in change(&book) }
    }

    /// ``changeBookInTransaction(_:action:parts:requireLive:_:)`` whose change also reads
    /// the clock of the change (what a status change records as its event's).
    @discardableResult
    func changeBookInTransaction(_ id: EntityID, action: OutboxAction, parts: BookParts, requireLive: Bool = true,
                                 _ change: (inout Book, HybridTimestamp) -> Void) throws(StoreError) -> Book {
        var version = try bookVersion(id)
        guard version.book.deletedAt == nil || !requireLive else { throw .recordNotFound(id: id.rawValue) }
        let base = version.clock
        let stamp = try tick()
        let baseVersion = version.book.version
        let original = (title: version.book.title, authors: version.book.authors)
        version.book.updatedAt = max(clock.now(), version.book.updatedAt)
        change(&version.book, stamp)
        version.book.version = try Self.nextVersion(after: baseVersion, of: id)
        version.clock = stamp
        if parts.metadata { version.metadataClock = stamp }
        if parts.progress { version.positions = version.positions.recording(version.book.progress, rewind: parts.rewind, at: stamp) }
        if parts.rating { version.ratingClock = stamp }
        if parts.edition { version.editionClock = stamp }
        version.book.progress = version.positions.current.percent
        try writeBook(version, insert: false,
                      metadataChanged: version.book.title != original.title || version.book.authors != original.authors)
        try enqueue(action, .book(version), clock: stamp, at: version.book.updatedAt, baseVersion: baseVersion, base: base)
        return version.book
    }

    /// Writes a book row with its clocks. The stored title and authors are kept unless
    /// `metadataChanged`: rewriting the title (a fresh nonce) empties the book title cache
    /// (migration 0004's trigger), which must happen when either changed (the cache holds
    /// both) and not on every progress change.
    func writeBook(_ version: BookVersion, insert: Bool, metadataChanged: Bool = true) throws(StoreError) {
        let cipher = try requireCipher()
        let current = version.positions.current
        let onlyCurrent = ProgressPolicy.Positions(percent: current.percent, isRewind: current.isRewind, clock: current.clock)
        let values = try bookValues(version.book, cipher: cipher)
            + [.text(version.clock.description), .text(version.metadataClock.description),
               .text(current.clock.description), .integer(current.isRewind ? 1 : 0),
               version.positions == onlyCurrent ? .null : .text(version.positions.text),
               version.ratingClock == .origin ? .null : .text(version.ratingClock.description),
               version.editionClock == .origin ? .null : .text(version.editionClock.description)]
        if insert {
            try database.run(Self.insertBookSQL, values)
            return
        }
        try database.run("""
            UPDATE book SET title = CASE WHEN ?19 THEN title ELSE ?2 END, authors = CASE WHEN ?19 THEN authors ELSE ?3 END,
                            progress = ?4, created_at = ?5,
                            updated_at = ?6, deleted_at = ?7, version = ?8, reading_log = ?9, rating = ?10, edition = ?11,
                            hlc = ?12, metadata_hlc = ?13, progress_hlc = ?14, progress_rewind = ?15, progress_marks = ?16,
                            rating_hlc = ?17, edition_hlc = ?18
            WHERE id = ?1
            """, values + [.integer(metadataChanged ? 0 : 1)])
    }

    /// Replaces a book's sealed title, authors, rating and edition, and its reading log, with
    /// `book`'s (a record whose own no longer open, replaced by a readable version of it).
    func replaceSealedMetadata(with book: Book) throws(StoreError) {
        let values = try bookValues(book, cipher: try requireCipher())
        try database.run("UPDATE book SET title = ?2, authors = ?3, reading_log = ?9, rating = ?10, edition = ?11 WHERE id = ?1", values)
    }

    /// A book's title and its authors (as a JSON array), each sealed to its field.
    private func sealedMetadata(_ book: Book, cipher: RecordCipher) throws(StoreError) -> (title: SQLValue, authors: SQLValue) {
        let authors: String
        do {
            authors = String(decoding: try JSONEncoder().encode(book.authors), as: UTF8.self)
        } catch {
            throw .encodingFailed(field: "authors")
        }
        return (.blob(try cipher.seal(book.title, table: "book", id: book.id.rawValue, field: "title")),
                .blob(try cipher.seal(authors, table: "book", id: book.id.rawValue, field: "authors")))
    }

    /// One decoder for every book's authors (`book list` opens thousands: making a decoder
    /// per book cost more than decoding).
    private static let authorsDecoder = JSONDecoder()

    /// The authors of a book's opened `authors` field, a JSON list of names.
    static func authors(fromJSON json: String) throws(StoreError) -> [String] {
        guard let authors = try? authorsDecoder.decode([String].self, from: Data(json.utf8)) else {
            throw .encodingFailed(field: "authors")
        }
        // The log backstop must know each name on its own, not only the list.
        authors.forEach(RecentContent.shared.remember)
        return authors
    }

    /// The values of ``bookColumns``, in that order.
    private func bookValues(_ book: Book, cipher: RecordCipher) throws(StoreError) -> [SQLValue] {
        let sealed = try sealedMetadata(book, cipher: cipher)
        return [.text(book.id.rawValue), sealed.title, sealed.authors,
                .real(book.progress),
                .integer(book.createdAt.millisecondsSince1970), .integer(book.updatedAt.millisecondsSince1970),
                .integer(book.deletedAt?.millisecondsSince1970), .integer(book.version),
                book.readingLog.isEmpty ? .null : .text(book.readingLog.text),
                try book.rating.map { (stars) throws(StoreError) in
                    .blob(try cipher.seal(String(stars), table: "book", id: book.id.rawValue, field: "rating"))
                } ?? .null,
                book.edition.isEmpty ? .null : .blob(try cipher.seal(book.edition.text, table: "book", id: book.id.rawValue, field: "edition"))]
    }

    private func readingLog(_ row: Row, id: String) throws(UnreadableRecord) -> ReadingLog {
        guard !row.isNull(8) else { return .empty }
        do { return try ReadingLog(parsing: row.text(8)) } catch { throw UnreadableRecord(id: id, field: "reading_log") }
    }

    private func rating(_ row: Row, id: String, cipher: RecordCipher) throws(UnreadableRecord) -> Double? {
        guard !row.isNull(9) else { return nil }
        let text = try cipher.open(row.blob(9), table: "book", id: id, field: "rating")
        guard let stars = Double(text), (try? Rating.checked(stars)) != nil else { throw UnreadableRecord(id: id, field: "rating") }
        return stars
    }

    private func edition(_ row: Row, id: String, cipher: RecordCipher) throws(UnreadableRecord) -> Edition {
        guard !row.isNull(10) else { return .unknown }
        let text = try cipher.open(row.blob(10), table: "book", id: id, field: "edition")
        do { return try Edition(parsing: text) } catch { throw UnreadableRecord(id: id, field: "edition") }
    }

    private func decodeBook(_ row: Row, cipher: RecordCipher) -> Result<Book, UnreadableRecord> {
        let id = row.text(0)
        return Result { () throws(UnreadableRecord) -> Book in
            guard let entityID = try? EntityID(validating: id) else { throw UnreadableRecord(id: id, field: "id") }
            // A purged tombstone (Store+Tombstones) has no content left; any other empty field is damage.
            let purged = !row.isNull(6) && row.blob(1).isEmpty
            let title = purged ? "" : try cipher.open(row.blob(1), table: "book", id: id, field: "title")
            let authorsJSON = purged ? "[]" : try cipher.open(row.blob(2), table: "book", id: id, field: "authors")
            guard let authors = try? Self.authors(fromJSON: authorsJSON) else { throw UnreadableRecord(id: id, field: "authors") }
            return Book(id: entityID, title: title, authors: authors, progress: row.double(3),
                        createdAt: Timestamp(millisecondsSince1970: row.int64(4)),
                        updatedAt: Timestamp(millisecondsSince1970: row.int64(5)),
                        deletedAt: row.isNull(6) ? nil : Timestamp(millisecondsSince1970: row.int64(6)),
                        version: row.int64(7), readingLog: try readingLog(row, id: id), rating: try rating(row, id: id, cipher: cipher),
                        edition: try edition(row, id: id, cipher: cipher))
        }
    }
}

extension Store {
    /// The version after `current`: a record at the end of ``VersionNumber/range`` (only an
    /// archive or a device from before the range was checked could have put it there) fails
    /// with an error, and nothing is written, instead of trapping.
    static func nextVersion(after current: Int64, of id: EntityID) throws(StoreError) -> Int64 {
        do {
            return try VersionNumber.next(after: current)
        } catch {
            throw .versionExhausted(id: id.rawValue)
        }
    }
}

extension Store {
    /// The live notes, quotes and sessions of every book that has had any, and when its
    /// latest session ended: one row per book of `book_activity`, which triggers keep
    /// (migration 0011).
    public func bookActivity() throws(StoreError) -> [EntityID: BookActivity] {
        var byID: [EntityID: BookActivity] = [:]
        try database.forEachRow("SELECT book_id, notes, quotes, sessions, last_session FROM book_activity") { row in
            guard let id = try? EntityID(validating: row.text(0)) else { return }
            byID[id] = BookActivity(notes: Int(row.int64(1)), quotes: Int(row.int64(2)), sessions: Int(row.int64(3)),
                                    lastSession: row.isNull(4) ? nil : Timestamp(millisecondsSince1970: row.int64(4)))
        }
        return byID
    }
}

extension Store {
    /// Throws unless `id` names a book that is not deleted.
    func requireLiveBook(_ id: EntityID) throws(StoreError) {
        var deleted: Bool?
        try database.forEachRow("SELECT deleted_at IS NOT NULL FROM book WHERE id = ?", [.text(id.rawValue)]) { row in
            deleted = row.int64(0) != 0
        }
        guard deleted == false else { throw .recordNotFound(id: id.rawValue) }
    }
}
