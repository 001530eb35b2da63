public import Journal
import SyncWire

/// `reading_session`: when the reader read, and how many pages, all in the clear. A session
/// can be corrected and deleted (schema v9), each change with its clock, which
/// ``SessionEditPolicy`` compares between devices. One an import recorded names where it
/// came from (schema v20, `source`, in the clear too).
public struct SessionTable {
    let tables: Tables
    private var store: Store { tables.store }
    private var database: Database { tables.database }

    // Made once: the statement cache is keyed by the text.
    private static let writeSQL = """
        INSERT INTO reading_session (\(SessionColumn.list)) VALUES (\(SessionColumn.placeholders))
        ON CONFLICT (id) DO UPDATE SET \(SessionColumn.assignments([.startedAt, .endedAt, .pagesRead, .deletedAt, .version, .hlc, .source]))
        """

    /// Saves a new session with its `create` operation and, when `percent` is given and
    /// beyond the book's position, moves the book there (with its operation). Returns the
    /// book when it moved.
    @discardableResult
    public func add(_ session: ReadingSession, movingProgressTo percent: Double? = nil) throws(StoreError) -> Book? {
        tables.requireWrite()
        _ = try store.requireCipher()
        try tables.books.requireLive(session.bookID)
        try insert(session, outboxState: .pending)
        guard let percent else { return nil }
        guard percent > (try tables.books.progress(of: session.bookID)) else { return nil }
        return try tables.books.change(session.bookID, action: .update, parts: .progress(rewind: false)) { book in
            book.progress = percent
        }
    }

    /// Inserts a session row and its `create` operation. The book must exist (a foreign key), and callers adding a new session check first
    /// that it is not deleted. A recording has the origin clock (``SessionEditPolicy``): the
    /// same on every device, and older than any change, so a session an archive brings back
    /// never undoes an edit or a deletion made elsewhere.
    package func insert(_ session: ReadingSession, outboxState: OutboxState) throws(StoreError) {
        tables.requireWrite()
        let stamp = try store.tick()
        let version = SessionVersion(session, clock: .origin)
        try write(version)
        try tables.outbox.enqueue(.create, .session(version), clock: stamp, at: store.clock.now(), baseVersion: 0, base: nil, state: outboxState)
    }

    /// Corrects a live session: `change` gets it as it stands and returns it changed, or throws the rule it would break (nothing is then written).
    /// A change to the same numbers writes nothing: the session comes back at its version.
    /// The change takes a new clock, which ``SessionEditPolicy`` compares between devices.
    @discardableResult
    public func edit(_ id: EntityID,
                     _ change: (ReadingSession) throws(JournalError) -> ReadingSession) throws(StoreError) -> ReadingSession {
        try self.change(id, action: .update) { (session) throws(StoreError) in
            do throws(JournalError) { return try change(session) } catch { throw .invalidInput(error) }
        }
    }

    /// Tombstones a live session.
    func delete(_ id: EntityID) throws(StoreError) {
        _ = try change(id, action: .delete) { (session) throws(StoreError) in
            var deleted = session
            deleted.deletedAt = store.clock.now()
            return deleted
        }
    }

    /// `requireLive: false`: an undelete, which changes a deleted session.
    func change(_ id: EntityID, action: OutboxAction, requireLive: Bool = true,
                _ change: (ReadingSession) throws(StoreError) -> ReadingSession) throws(StoreError) -> ReadingSession {
        tables.requireWrite()
        guard let local = try version(id), local.session.deletedAt == nil || !requireLive else { throw .recordNotFound(id: id.rawValue) }
        var changed = try change(local.session)
        guard changed != local.session else { return local.session }
        changed.version = try VersionNumber.next(after: local.session.version, of: id)
        let stamp = try store.tick()
        let version = SessionVersion(changed, clock: stamp)
        try write(version)
        try tables.outbox.enqueue(action, .session(version), clock: stamp, at: store.clock.now(), baseVersion: local.session.version, base: local.clock)
        return changed
    }

    /// Writes a session row with its clock: a new one, or one here changed (a merge stores
    /// the version ``SessionEditPolicy`` let win). Its book never changes.
    package func write(_ version: SessionVersion) throws(StoreError) {
        tables.requireWrite()
        let session = version.session
        try database.run(Self.writeSQL, SessionColumn.allCases.map { column -> SQLValue in
            switch column {
            case .id: .text(session.id.rawValue)
            case .bookID: .text(session.bookID.rawValue)
            case .startedAt: .integer(session.startedAt.millisecondsSince1970)
            case .endedAt: .integer(session.endedAt.millisecondsSince1970)
            case .pagesRead: .integer(Int64(session.pagesRead))
            case .deletedAt: .integer(session.deletedAt?.millisecondsSince1970)
            case .version: .integer(session.version)
            case .hlc: .text(version.clock.description)
            case .source: session.source.map { .text($0) } ?? .null
            }
        })
    }

    /// A book's live sessions, in the order they started.
    public func live(of bookID: EntityID) throws(StoreError) -> [ReadingSession] {
        try versions(where: "book_id = ? AND deleted_at IS NULL", [.text(bookID.rawValue)]).map(\.session)
    }

    /// The live sessions of books that are not deleted (of `bookID` alone, if given) that
    /// started at or after `since`, if given, in the order they started.
    public func live(book bookID: EntityID?, startedSince since: Timestamp?) throws(StoreError) -> [ReadingSession] {
        try versions(where: """
            deleted_at IS NULL AND book_id IN (SELECT id FROM book WHERE deleted_at IS NULL AND (?1 IS NULL OR id = ?1))
            AND (?2 IS NULL OR started_at >= ?2)
            """, [bookID.map { .text($0.rawValue) } ?? .null, since.map { .integer($0.millisecondsSince1970) } ?? .null]).map(\.session)
    }

    /// A book's sessions, deleted ones included, in the order they started: what an import
    /// from another program matches a session against.
    package func all(of bookID: EntityID) throws(StoreError) -> [ReadingSession] {
        try versions(where: "book_id = ?", [.text(bookID.rawValue)]).map(\.session)
    }

    /// One live reading session by id.
    public func session(_ id: EntityID) throws(StoreError) -> ReadingSession {
        guard let session = try versions(where: "id = ? AND deleted_at IS NULL", [.text(id.rawValue)]).first else {
            throw .recordNotFound(id: id.rawValue)
        }
        return session.session
    }

    /// The session `id` with its clock, deleted or not, or nil when it is not here (what a
    /// merge needs to know of it).
    package func version(_ id: EntityID) throws(StoreError) -> SessionVersion? {
        try versions(where: "id = ?", [.text(id.rawValue)]).first
    }

    func versions(where condition: String, _ values: [SQLValue]) throws(StoreError) -> [SessionVersion] {
        _ = try store.requireCipher()
        var sessions: [SessionVersion] = []
        try database.forEachRow("""
            SELECT \(SessionColumn.list) FROM reading_session WHERE \(condition) ORDER BY started_at, id
            """, values) { row in
            func time(_ column: SessionColumn) -> Timestamp { Timestamp(millisecondsSince1970: row.int64(column)) }
            guard let id = try? EntityID(validating: row.text(SessionColumn.id)),
                  let bookID = try? EntityID(validating: row.text(SessionColumn.bookID)) else { return }
            // A session recorded before schema v9, and never changed since, has no clock.
            let clock = row.isNull(SessionColumn.hlc) ? .origin : (try? HybridTimestamp(parsing: row.text(SessionColumn.hlc))) ?? .origin
            sessions.append(SessionVersion(
                ReadingSession(id: id, bookID: bookID, startedAt: time(.startedAt), endedAt: time(.endedAt),
                               pagesRead: Int(row.int64(SessionColumn.pagesRead)),
                               deletedAt: row.isNull(SessionColumn.deletedAt) ? nil : time(.deletedAt),
                               version: row.int64(SessionColumn.version),
                               source: row.isNull(SessionColumn.source) ? nil : row.text(SessionColumn.source)),
                clock: clock))
        }
        return sessions
    }
}

/// The columns of `reading_session`, in the order ``SessionTable`` selects and writes them.
enum SessionColumn: Int32, TableColumns {
    case id, bookID, startedAt, endedAt, pagesRead, deletedAt, version, hlc, source

    var name: String {
        switch self {
        case .id: "id"
        case .bookID: "book_id"
        case .startedAt: "started_at"
        case .endedAt: "ended_at"
        case .pagesRead: "pages_read"
        case .deletedAt: "deleted_at"
        case .version: "version"
        case .hlc: "hlc"
        case .source: "source"
        }
    }
}
