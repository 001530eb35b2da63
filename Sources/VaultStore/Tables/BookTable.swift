import Foundation
public import Journal
import SyncWire
import Telemetry

/// `book`: the books, each with its sealed title, authors, rating and edition, and in the
/// clear its progress, reading log and the clocks ``BookVersion`` merges by. Every change
/// writes the row and its outbox operation in the transaction this table was handed.
public struct BookTable {
    let tables: Tables
    var store: Store { tables.store }
    var database: Database { tables.database }

    static let columns = BookColumn.list
    /// The clocks a book merges by, beside ``columns``.
    private static let clockColumns = ["hlc", "metadata_hlc", "progress_hlc", "progress_rewind", "progress_marks", "rating_hlc", "edition_hlc"]
    // Made once: the statement cache is keyed by the text.
    private static let insertSQL = """
        INSERT INTO book (\(columns), \(clockColumns.joined(separator: ", ")))
        VALUES (\((BookColumn.allCases.map(\.name) + clockColumns).map { ":" + $0 }.joined(separator: ", ")))
        """
    /// The title and authors stay as stored under `:keep_metadata` (see ``write(_:insert:metadataChanged:)``).
    private static let updateSQL = """
        UPDATE book SET title = CASE WHEN :keep_metadata THEN title ELSE :title END,
                        authors = CASE WHEN :keep_metadata THEN authors ELSE :authors END,
                        \((BookColumn.allCases.dropFirst(3).map(\.name) + clockColumns).map { "\($0) = :\($0)" }.joined(separator: ", "))
        WHERE id = :id
        """
    private static let bookByIDSQL = "SELECT \(columns) FROM book WHERE id = ?"
    private static let bookClocksSQL = """
        SELECT hlc, coalesce(metadata_hlc, hlc) AS metadata_hlc, coalesce(progress_hlc, hlc) AS progress_hlc, progress_rewind,
               progress_marks, rating_hlc, edition_hlc
        FROM book WHERE id = ?
        """

    /// Saves a new book and its `create` operation, with `tags` (each with its own).
    public func add(_ book: Book, tags: [String] = []) throws(StoreError) {
        try insert(book, outboxState: .pending)
        if !tags.isEmpty { _ = try tables.tags.add(tags, to: book.id, kind: .book) }
    }

    /// Inserts a book row and its `create` operation. `prepare` completes the book with
    /// what it is added with (an import's status, whose event records the insert's clock).
    package func insert(_ book: Book, outboxState: OutboxState,
                _ prepare: (inout Book, HybridTimestamp) -> Void = { _, _ in }) throws(StoreError) {
        tables.requireWrite()
        let stamp = try store.tick()
        var book = book
        prepare(&book, stamp)
        let version = BookVersion(book, clock: stamp, metadataClock: stamp,
                                  positions: ProgressPolicy.Positions(percent: book.progress, isRewind: false, clock: stamp),
                                  ratingClock: book.rating == nil ? .origin : stamp,
                                  editionClock: book.edition.isEmpty ? .origin : stamp)
        try write(version, insert: true)
        try tables.outbox.enqueue(.create, .book(version), clock: stamp, at: book.updatedAt, baseVersion: 0, base: nil, state: outboxState)
    }

    /// Sets a book's progress, read and written in this one write transaction, so a
    /// concurrent change from another process is never overwritten unseen. A `rewind` is an
    /// explicit move backwards, which sync lets win over positions recorded before it.
    /// A plain position behind the current one is refused (`progressBehind`): moving back
    /// must be said, so that every device can tell a correction from a stale position.
    @discardableResult
    public func setProgress(of id: EntityID, to percent: Double, rewind: Bool = false) throws(StoreError) -> Book {
        if !rewind {
            let current = try progress(of: id)
            guard percent >= current else { throw .progressBehind(current: current) }
        }
        return try change(id, action: .update, parts: .progress(rewind: rewind)) { book in book.progress = percent }
    }

    /// A live book's progress as stored (0 for one that is not there: the change that
    /// follows reports that).
    package func progress(of id: EntityID) throws(StoreError) -> Double {
        var current = 0.0
        try database.forEachRow("SELECT progress FROM book WHERE id = ? AND deleted_at IS NULL", [.text(id.rawValue)]) { row in
            current = row.double("progress")
        }
        return current
    }

    /// Rates a book (nil takes its rating away), with a new clock for the rating alone.
    @discardableResult
    public func rate(_ id: EntityID, stars: Double?) throws(StoreError) -> Book {
        try change(id, action: .update, parts: .rating) { book in book.rating = stars }
    }

    /// Records a status change of a book on day (or moment) `on`; the event's clock is the
    /// change's, which names it on every device.
    @discardableResult
    public func recordStatus(_ status: ReadingStatus, of id: EntityID, on: Timestamp) throws(StoreError) -> Book {
        try change(id, action: .update, parts: .readingLog) { book, stamp in
            book.readingLog = book.readingLog.adding(ReadingEvent(status: status, on: on, clock: stamp))
        }
    }

    /// Changes a book's title, authors and/or edition (nil keeps the field). Metadata and
    /// edition each take a new clock of their own when they change, so a position recorded
    /// on another device neither undoes this change nor is undone by it (``BookVersion``).
    @discardableResult
    public func edit(_ id: EntityID, title: String?, authors: [String]?, edition: Edition? = nil) throws(StoreError) -> Book {
        let parts = BookParts(metadata: title != nil || authors != nil, edition: edition != nil)
        return try change(id, action: .update, parts: parts) { book in
            if let title { book.title = title }
            if let authors { book.authors = authors }
            if let edition { book.edition = edition }
        }
    }

    /// Tombstones a book. Refused while it has live notes or quotes, which would
    /// otherwise disappear from every listing with it.
    public func delete(_ id: EntityID) throws(StoreError) {
        let live = try tables.annotations.liveCount(of: id)
        guard live == 0 else { throw .bookHasAnnotations(id: id.rawValue, count: live) }
        _ = try change(id, action: .delete, parts: .metadata) { book in book.deletedAt = book.updatedAt }
    }

    /// One book by id, tombstoned or not.
    public func book(_ id: EntityID) throws(StoreError) -> Book {
        let cipher = try store.requireCipher()
        var found: Result<Book, UnreadableRecord>?
        try database.forEachRow(Self.bookByIDSQL, [.text(id.rawValue)]) { row in
            found = decode(row, cipher: cipher)
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
    package func version(_ id: EntityID) throws(StoreError) -> BookVersion {
        let book = try self.book(id)
        var clocks: (HybridTimestamp, HybridTimestamp, ProgressPolicy.Positions, HybridTimestamp, HybridTimestamp)?
        try database.forEachRow(Self.bookClocksSQL, [.text(id.rawValue)]) { row in
            guard let clock = try? HybridTimestamp(parsing: row.text("hlc")),
                  let metadata = try? HybridTimestamp(parsing: row.text("metadata_hlc")),
                  let progress = try? HybridTimestamp(parsing: row.text("progress_hlc")),
                  let rating = try? (row.optionalText("rating_hlc").map(HybridTimestamp.init(parsing:)) ?? .origin),
                  let edition = try? (row.optionalText("edition_hlc").map(HybridTimestamp.init(parsing:)) ?? .origin) else { return }
            let positions = try? (row.optionalText("progress_marks").map(ProgressPolicy.Positions.init(parsing:)))
                ?? ProgressPolicy.Positions(percent: book.progress, isRewind: row.int64("progress_rewind") == 1, clock: progress)
            if let positions { clocks = (clock, metadata, positions, rating, edition) }
        }
        guard let (clock, metadata, positions, rating, edition) = clocks else { throw .recordUnreadable(id: id.rawValue, field: "hlc") }
        return BookVersion(book, clock: clock, metadataClock: metadata, positions: positions, ratingClock: rating, editionClock: edition)
    }

    /// Every book, oldest first. A book whose sealed fields do not open is reported in
    /// place as a failure; the others still read.
    public func all(includeDeleted: Bool = false) throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        // Purged tombstones have nothing left to show.
        try all(where: includeDeleted ? "WHERE length(title) > 0" : "WHERE deleted_at IS NULL")
    }

    /// The books `filter` (a `WHERE` clause) selects, oldest first.
    func all(where filter: String) throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        let cipher = try store.requireCipher()
        var books: [Result<Book, UnreadableRecord>] = []
        try database.forEachRow("SELECT \(Self.columns) FROM book \(filter) ORDER BY created_at, id") { row in
            books.append(decode(row, cipher: cipher))
        }
        return books
    }

    /// The reading logs of the live books that have one (they are in the clear: nothing is
    /// decrypted). A log that does not read is left out.
    public func readingLogs() throws(StoreError) -> [ReadingLog] {
        var logs: [ReadingLog] = []
        try database.forEachRow("SELECT reading_log FROM book WHERE deleted_at IS NULL AND reading_log IS NOT NULL") { row in
            if let log = try? ReadingLog(parsing: row.text("reading_log")) { logs.append(log) }
        }
        return logs
    }

    /// Brings back a book deleted here, for a live note a merge brought into it: as every
    /// device derives the same from that note's operation, none is written.
    package func bringBack(_ id: EntityID) throws(StoreError) {
        tables.requireWrite()
        try database.run("UPDATE book SET deleted_at = NULL WHERE id = ?", [.text(id.rawValue)])
    }

    /// Whether a book is here, live, deleted, or deleted with its title purged.
    package func presence(_ id: EntityID) throws(StoreError) -> RecordPresence {
        var presence = RecordPresence.missing
        try database.forEachRow("SELECT deleted_at IS NOT NULL AS deleted, length(title) > 0 AS titled FROM book WHERE id = ?",
                                [.text(id.rawValue)]) { row in
            presence = row.int64("deleted") == 0 ? .live : (row.int64("titled") == 0 ? .purged : .deleted)
        }
        return presence
    }

    /// Throws unless `id` names a book that is not deleted.
    func requireLive(_ id: EntityID) throws(StoreError) {
        guard try presence(id) == .live else { throw .recordNotFound(id: id.rawValue) }
    }

    /// What a merge needs to know of book `id`: nil when it is not here.
    package func local(_ id: EntityID) throws(StoreError) -> LocalBook? {
        do {
            return .book(try version(id), liveAnnotations: try tables.annotations.liveCount(of: id))
        } catch .recordNotFound {
            return nil
        } catch .recordUnreadable {
            return .unreadable
        }
    }

    /// The live notes, quotes and sessions of every book that has had any, and when its
    /// latest session ended: one row per book of `book_activity`, which triggers keep
    /// (migration 0011).
    public func activity() throws(StoreError) -> [EntityID: BookActivity] {
        var byID: [EntityID: BookActivity] = [:]
        try database.forEachRow("SELECT book_id, notes, quotes, sessions, last_session FROM book_activity") { row in
            guard let id = try? EntityID(validating: row.text("book_id")) else { return }
            byID[id] = BookActivity(notes: Int(row.int64("notes")), quotes: Int(row.int64("quotes")),
                                    sessions: Int(row.int64("sessions")),
                                    lastSession: row.optionalInt64("last_session").map(Timestamp.init(millisecondsSince1970:)))
        }
        return byID
    }

    // MARK: - Rows

    /// Which parts of a book a change touches, each of which moves its own clock (the
    /// reading log's events carry theirs).
    package struct BookParts {
        /// Title, authors or deletion.
        package var metadata = false
        /// The position, and whether it is a rewind.
        package var progress = false
        package var rewind = false
        package var rating = false
        package var edition = false

        package init(metadata: Bool = false, progress: Bool = false, rewind: Bool = false, rating: Bool = false, edition: Bool = false) {
            (self.metadata, self.progress, self.rewind, self.rating, self.edition) = (metadata, progress, rewind, rating, edition)
        }

        package static let metadata = BookParts(metadata: true)
        package static func progress(rewind: Bool) -> BookParts { BookParts(progress: true, rewind: rewind) }
        /// Metadata and position (an import, or a book whose fields no longer opened).
        package static func all(rewind: Bool) -> BookParts { BookParts(metadata: true, progress: true, rewind: rewind) }
        package static let rating = BookParts(rating: true)
        /// A status change: only the reading log, whose new event has its own clock.
        package static let readingLog = BookParts()
    }

    /// Changes a book and records the operation. Only an import (`requireLive: false`) may
    /// change a deleted book: to bring it back.
    @discardableResult
    package func change(_ id: EntityID, action: OutboxAction, parts: BookParts, requireLive: Bool = true,
                _ change: (inout Book) -> Void) throws(StoreError) -> Book {
        try self.change(id, action: action, parts: parts, requireLive: requireLive) { book, _ in change(&book) }
    }

    /// ``change(_:action:parts:requireLive:_:)`` whose change also reads the clock of the
    /// change (what a status change records as its event's).
    @discardableResult
    package func change(_ id: EntityID, action: OutboxAction, parts: BookParts, requireLive: Bool = true,
                _ change: (inout Book, HybridTimestamp) -> Void) throws(StoreError) -> Book {
        tables.requireWrite()
        var version = try self.version(id)
        guard version.book.deletedAt == nil || !requireLive else { throw .recordNotFound(id: id.rawValue) }
        let base = version.clock
        let stamp = try store.tick()
        let baseVersion = version.book.version
        let original = (title: version.book.title, authors: version.book.authors)
        version.book.updatedAt = max(store.clock.now(), version.book.updatedAt)
        change(&version.book, stamp)
        version.book.version = try VersionNumber.next(after: baseVersion, of: id)
        version.clock = stamp
        if parts.metadata { version.metadataClock = stamp }
        if parts.progress { version.positions = version.positions.recording(version.book.progress, rewind: parts.rewind, at: stamp) }
        if parts.rating { version.ratingClock = stamp }
        if parts.edition { version.editionClock = stamp }
        version.book.progress = version.positions.current.percent
        try write(version, insert: false,
                  metadataChanged: version.book.title != original.title || version.book.authors != original.authors)
        try tables.outbox.enqueue(action, .book(version), clock: stamp, at: version.book.updatedAt, baseVersion: baseVersion, base: base)
        return version.book
    }

    /// Writes a book row with its clocks. The stored title and authors are kept unless
    /// `metadataChanged`: rewriting the title (a fresh nonce) empties the book title cache
    /// (migration 0004's trigger), which must happen when either changed (the cache holds
    /// both) and not on every progress change.
    package func write(_ version: BookVersion, insert: Bool, metadataChanged: Bool = true) throws(StoreError) {
        tables.requireWrite()
        let current = version.positions.current
        let onlyCurrent = ProgressPolicy.Positions(percent: current.percent, isRewind: current.isRewind, clock: current.clock)
        var values = try sealedValues(version.book)
        // A new book's clocks are mostly one: written once.
        let recordClock = version.clock.description
        func text(of clock: HybridTimestamp) -> SQLValue { .text(clock == version.clock ? recordClock : clock.description) }
        values[":hlc"] = .text(recordClock)
        values[":metadata_hlc"] = text(of: version.metadataClock)
        values[":progress_hlc"] = text(of: current.clock)
        values[":progress_rewind"] = .integer(current.isRewind ? 1 : 0)
        values[":progress_marks"] = version.positions == onlyCurrent ? .null : .text(version.positions.text)
        values[":rating_hlc"] = version.ratingClock == .origin ? .null : text(of: version.ratingClock)
        values[":edition_hlc"] = version.editionClock == .origin ? .null : text(of: version.editionClock)
        guard !insert else { return try database.run(Self.insertSQL, named: values) }
        values[":keep_metadata"] = .integer(metadataChanged ? 0 : 1)
        try database.run(Self.updateSQL, named: values)
    }

    /// Replaces a book's sealed title, authors, rating and edition, and its reading log, with
    /// `book`'s (a record whose own no longer open, replaced by a readable version of it).
    package func replaceSealedMetadata(with book: Book) throws(StoreError) {
        tables.requireWrite()
        let values = try sealedValues(book)
        try database.run("""
            UPDATE book SET title = :title, authors = :authors, reading_log = :reading_log, rating = :rating, edition = :edition
            WHERE id = :id
            """, named: [":id": values[":id"]!, ":title": values[":title"]!, ":authors": values[":authors"]!,
                         ":reading_log": values[":reading_log"]!, ":rating": values[":rating"]!, ":edition": values[":edition"]!])
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

    /// The book's own columns (``BookColumn``), bound by name, its title, authors, rating
    /// and edition each sealed to its field.
    private func sealedValues(_ book: Book) throws(StoreError) -> [String: SQLValue] {
        let cipher = try store.requireCipher()
        let id = book.id.rawValue
        // Written as every JSON of the journal is (`JSONString`), read back by `JSONDecoder`.
        let authors = JSONString.array(book.authors)
        return [":id": .text(id),
                ":title": .blob(try cipher.seal(book.title, table: "book", id: id, field: "title")),
                ":authors": .blob(try cipher.seal(authors, table: "book", id: id, field: "authors")),
                ":progress": .real(book.progress),
                ":created_at": .integer(book.createdAt.millisecondsSince1970),
                ":updated_at": .integer(book.updatedAt.millisecondsSince1970),
                ":deleted_at": .integer(book.deletedAt?.millisecondsSince1970), ":version": .integer(book.version),
                ":reading_log": book.readingLog.isEmpty ? .null : .text(book.readingLog.text),
                ":rating": try book.rating.map { (stars) throws(StoreError) in
                    .blob(try cipher.seal(String(stars), table: "book", id: id, field: "rating"))
                } ?? .null,
                ":edition": book.edition.isEmpty ? .null : .blob(try cipher.seal(book.edition.text, table: "book", id: id, field: "edition"))]
    }

    private func readingLog(_ row: Row, id: String) throws(UnreadableRecord) -> ReadingLog {
        guard !row.isNull(BookColumn.readingLog) else { return .empty }
        do { return try ReadingLog(parsing: row.text(BookColumn.readingLog)) } catch { throw UnreadableRecord(id: id, field: "reading_log") }
    }

    private func rating(_ row: Row, id: String, cipher: RecordCipher) throws(UnreadableRecord) -> Double? {
        guard !row.isNull(BookColumn.rating) else { return nil }
        let text = try cipher.open(row.blob(BookColumn.rating), table: "book", id: id, field: "rating")
        guard let stars = Double(text), (try? Rating.checked(stars)) != nil else { throw UnreadableRecord(id: id, field: "rating") }
        return stars
    }

    private func edition(_ row: Row, id: String, cipher: RecordCipher) throws(UnreadableRecord) -> Edition {
        guard !row.isNull(BookColumn.edition) else { return .unknown }
        let text = try cipher.open(row.blob(BookColumn.edition), table: "book", id: id, field: "edition")
        do { return try Edition(parsing: text) } catch { throw UnreadableRecord(id: id, field: "edition") }
    }

    /// A row of ``BookColumn``s as a book, or which of its fields does not read.
    private func decode(_ row: Row, cipher: RecordCipher) -> Result<Book, UnreadableRecord> {
        let id = row.text(BookColumn.id)
        return Result { () throws(UnreadableRecord) -> Book in
            guard let entityID = try? EntityID(validating: id) else { throw UnreadableRecord(id: id, field: "id") }
            // A purged tombstone (Store+Tombstones) has no content left; any other empty field is damage.
            let purged = !row.isNull(BookColumn.deletedAt) && row.blob(BookColumn.title).isEmpty
            let title = purged ? "" : try cipher.open(row.blob(BookColumn.title), table: "book", id: id, field: "title")
            let authorsJSON = purged ? "[]" : try cipher.open(row.blob(BookColumn.authors), table: "book", id: id, field: "authors")
            guard let authors = try? Self.authors(fromJSON: authorsJSON) else { throw UnreadableRecord(id: id, field: "authors") }
            return Book(id: entityID, title: title, authors: authors, progress: row.double(BookColumn.progress),
                        createdAt: Timestamp(millisecondsSince1970: row.int64(BookColumn.createdAt)),
                        updatedAt: Timestamp(millisecondsSince1970: row.int64(BookColumn.updatedAt)),
                        deletedAt: row.isNull(BookColumn.deletedAt) ? nil : Timestamp(millisecondsSince1970: row.int64(BookColumn.deletedAt)),
                        version: row.int64(BookColumn.version), readingLog: try readingLog(row, id: id),
                        rating: try rating(row, id: id, cipher: cipher), edition: try edition(row, id: id, cipher: cipher))
        }
    }
}

/// The columns of `book` a book is read from, in the order ``BookTable`` selects them.
enum BookColumn: Int32, TableColumns {
    case id, title, authors, progress, createdAt, updatedAt, deletedAt, version, readingLog, rating, edition

    var name: String {
        switch self {
        case .id: "id"
        case .title: "title"
        case .authors: "authors"
        case .progress: "progress"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .deletedAt: "deleted_at"
        case .version: "version"
        case .readingLog: "reading_log"
        case .rating: "rating"
        case .edition: "edition"
        }
    }
}
