internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection, used from one thread at a time. Its calls throw `Failure`, the
/// error of the module that uses it (the Store's `StoreError`, an importer's
/// `ImportError`), made from SQLite's by the `failure` it was opened with.
///
/// Settings chosen for durability first: WAL with `synchronous=EXTRA`, so a committed note
/// survives a power cut; foreign keys on; defensive mode on; a busy timeout so two bmvault
/// processes writing at once wait for each other instead of failing.
public final class Database<Failure: Error> {
    /// How long a writer waits for another process's transaction before giving up.
    public static var busyTimeoutMilliseconds: Int32 { 10_000 }

    public let path: String
    private let handle: OpaquePointer
    private let failure: (DatabaseError) -> Failure
    private var statements: [String: Statement] = [:]
    /// How many write transactions this connection has begun: tells one from the next.
    public private(set) var writeTransactionCount = 0

    /// Opens the database at `path`; with `create`, makes the file if it is missing; with
    /// `readOnly`, never writes to it (a backup being restored from). `failure` makes each
    /// of SQLite's errors the caller's.
    public convenience init(path: String, create: Bool, readOnly: Bool = false,
                            failure: @escaping (DatabaseError) -> Failure) throws(DatabaseError) {
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if create { flags |= SQLITE_OPEN_CREATE }
        try self.init(opening: path, name: path, flags: flags, failure: failure)
    }

    /// Opens another program's database at `path` to read it, as a file nothing changes
    /// while it is read (SQLite's `immutable` URI parameter): nothing is ever written to it
    /// or beside it (no journal, no WAL index, no lock), even in a folder that may be
    /// written, such as a mounted e-reader's. What a WAL beside it holds that is not yet in
    /// the file is not read.
    public convenience init(readingImmutable path: String, failure: @escaping (DatabaseError) -> Failure) throws(DatabaseError) {
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        try self.init(opening: "file:" + Self.uriPath(path) + "?immutable=1", name: path, flags: flags, failure: failure)
    }

    /// `path` as the path of a `file:` URI: every byte but the unreserved ones and `/`
    /// percent-encoded, so a `?`, `#` or `%` in a file name stays part of the name.
    static func uriPath(_ path: String) -> String {
        let digits = Array("0123456789ABCDEF")
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0f)])
            }
        }
        return encoded
    }

    private init(opening filename: String, name path: String, flags: Int32,
                 failure: @escaping (DatabaseError) -> Failure) throws(DatabaseError) {
        _ = memoryStatisticsOff
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(filename, &opened, flags, nil)
        guard let opened, status == SQLITE_OK else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(opened)
            throw DatabaseError(code: ResultCode(primaryOf: status), extendedCode: status, message: message)
        }
        self.path = path
        self.handle = opened
        self.failure = failure
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        _ = bmv_sqlite3_set_defensive(handle, 1)
        // why EXTRA: in WAL mode it syncs exactly what FULL does; with a rollback journal (an
        // import's, or a vault an interrupted import left in that mode) it also syncs the
        // directory once the journal is deleted, without which a commit could be undone by a
        // power cut.
        let pragmas = "PRAGMA foreign_keys = ON; PRAGMA synchronous = EXTRA; PRAGMA trusted_schema = OFF; PRAGMA temp_store = MEMORY;"
        let pragmaStatus = sqlite3_exec(handle, pragmas, nil, nil, nil)
        guard pragmaStatus == SQLITE_OK else {
            let error = lastError(code: pragmaStatus)
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no arguments (schema scripts, pragmas).
    public func execute(_ sql: String) throws(Failure) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(lastError(code: status)) }
    }

    /// Runs one statement that returns no rows, with `values` bound to `?1...?n`.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws(Failure) {
        do { try statement(sql).run(values) } catch { throw failure(error) }
    }

    /// Runs one statement that returns no rows, with `values` bound to its named parameters
    /// (`:name`): for statements with more than a handful, where positions would have to be
    /// kept in step by hand.
    public func run(_ sql: String, named values: [String: SQLValue]) throws(Failure) {
        do { try statement(sql).run(named: values) } catch { throw failure(error) }
    }

    /// The first column of the first row `sql` returns, as an integer: a count, an
    /// existence check (`SELECT EXISTS ...`), one value. Nil when there is no row, or the
    /// value is NULL.
    public func integer(_ sql: String, _ values: [SQLValue] = []) throws(Failure) -> Int64? {
        var value: Int64?
        var first = true
        try forEachRow(sql, values) { row in
            guard first else { return }
            first = false
            value = row.isNull(0) ? nil : row.int64(0)
        }
        return value
    }

    /// Runs a query, handing each row to `body`. Rows are read one at a time, so memory
    /// does not grow with the size of the result.
    public func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ body: (Row) throws(Failure) -> Void) throws(Failure) {
        let prepared: Statement
        do { prepared = try statement(sql) } catch { throw failure(error) }
        try prepared.forEachRow(values, failure: failure, body)
    }

    /// A prepared statement for `sql`, compiled once per connection and reused.
    private func statement(_ sql: String) throws(DatabaseError) -> Statement {
        if let cached = statements[sql] { return cached }
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard status == SQLITE_OK, let prepared else { throw lastError(code: status) }
        let statement = Statement(handle: prepared, connection: handle)
        statements[sql] = statement
        return statement
    }

    /// Runs `body`, one write transaction that adds or changes much of the file (an archive
    /// import, a schema upgrade), with a rollback journal instead of the WAL when no other
    /// connection has the database open. The pages are then written once, into the file,
    /// instead of twice (into the WAL, then again by the checkpoint), and the journal keeps
    /// only the originals of the pages that existed before. `synchronous = EXTRA` (every connection's)
    /// syncs the directory after the journal's deletion, which is the commit, so a committed
    /// transaction is as durable as in WAL mode.
    ///
    /// While it runs, other processes wait for the vault (up to the busy timeout, then fail
    /// with `busy`) instead of reading the snapshot before it; and a process that began
    /// reading before the first page reached the file can make the import wait for it, or
    /// fail the same way and roll back. With another connection open the switch fails at
    /// once and `body` runs in WAL mode as usual. Afterwards the database is in WAL mode
    /// again; if even that fails, or the process dies first, the next open puts it back
    /// (``restoreWriteAheadLog()``).
    public func withRollbackJournalIfAlone<Result, BodyFailure: Error>(_ body: () throws(BodyFailure) -> Result) throws(BodyFailure) -> Result {
        guard withoutWaiting({ switchJournalMode(to: "delete") }) else { return try body() }
        defer { _ = withoutWaiting { switchJournalMode(to: "wal") } }
        return try body()
    }

    /// Puts a database that was left with a rollback journal (an import or an upgrade
    /// killed half-way: SQLite has rolled it back by now) in WAL mode again, unless another
    /// connection is using it at this moment (an import or an upgrade running in another
    /// process, which will do it). Never waits: a busy vault is not held up twice.
    public func restoreWriteAheadLog() {
        withoutWaiting {
            var mode = ""
            try? forEachRow("PRAGMA journal_mode") { row in mode = row.text("journal_mode") }
            if !mode.isEmpty, mode != "wal" { _ = switchJournalMode(to: "wal") }
        }
    }

    /// Sets the journal mode; true when it is set.
    private func switchJournalMode(to mode: String) -> Bool {
        var result = ""
        do {
            try forEachRow("PRAGMA journal_mode = \(mode)") { row in result = row.text("journal_mode") }
        } catch {
            return false
        }
        return result == mode
    }

    /// Runs `body` with no busy timeout: what it asks of a locked database fails at once.
    private func withoutWaiting<Result>(_ body: () -> Result) -> Result {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds) }
        return body()
    }

    /// Runs `body` with SQLite's defensive mode off, then turns it on again: only for a
    /// migration that edits the schema's text in place (``Migration/editsSchemaText``), which
    /// defensive mode forbids along with every other way SQL could corrupt the file.
    public func withoutDefensiveMode<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        _ = bmv_sqlite3_set_defensive(handle, 0)
        defer { _ = bmv_sqlite3_set_defensive(handle, 1) }
        return try body()
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// True while a transaction is open. After `SQLITE_FULL` SQLite may leave one open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`),
    /// so two processes never both read and then both try to write. Commits on return;
    /// rolls back on any error, including a failed commit.
    public func writeTransaction<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try beginImmediate()
        return try committing(body)
    }

    /// `BEGIN IMMEDIATE`, counted (``writeTransactionCount``): for a transaction whose end
    /// the caller manages itself.
    public func beginImmediate() throws(Failure) {
        try execute("BEGIN IMMEDIATE")
        writeTransactionCount += 1
    }

    /// Like ``writeTransaction(_:)``, but returns nil at once, instead of waiting up to the
    /// busy timeout, when another connection holds the write lock: for work that may as well
    /// be skipped, such as refreshing a cache.
    public func writeTransactionWithoutWaiting<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result? {
        let began = withoutWaiting { sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) }
        if ResultCode(primaryOf: began) == .busy { return nil }
        guard began == SQLITE_OK else { throw failure(lastError(code: began)) }
        writeTransactionCount += 1
        return try committing(body)
    }

    /// Runs `body` in the transaction just begun: commits on return, rolls back on any
    /// error, including a failed commit.
    private func committing<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Runs `body` in a read transaction, so every row it reads comes from one snapshot.
    /// Inside a transaction already (an export's snapshot), `body` simply shares it.
    public func readTransaction<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        if isInTransaction { return try body() }
        try execute("BEGIN DEFERRED")
        defer { rollbackIfNeeded() }
        return try body()
    }

    /// Copies the whole database, as one consistent snapshot (the copy holds a read lock),
    /// page by page into a new file at `destination`, which SQLite syncs when it commits.
    /// why not `VACUUM INTO`: that rebuilds every b-tree; a page copy is the same bytes in
    /// about half the time, which matters for the snapshot an upgrade takes of a large vault.
    public func copy(to destination: String) throws(Failure) {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(destination, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        defer { sqlite3_close_v2(opened) }
        guard let target = opened, status == SQLITE_OK else {
            throw failure(DatabaseError(code: ResultCode(primaryOf: status), extendedCode: status, message: "cannot create the copy"))
        }
        // No journal beside the copy: a copy cut short is a `.partial`, deleted whole anyway.
        sqlite3_exec(target, "PRAGMA journal_mode = OFF", nil, nil, nil)
        guard let backup = sqlite3_backup_init(target, "main", handle, "main") else {
            throw failure(DatabaseError(code: ResultCode(primaryOf: sqlite3_errcode(target)), extendedCode: sqlite3_extended_errcode(target),
                                           message: String(cString: sqlite3_errmsg(target)), systemErrno: sqlite3_system_errno(target)))
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            let code = stepped == SQLITE_DONE ? finished : stepped
            // The copy's errno says whether a write met a full disk or `ulimit -f`.
            throw failure(DatabaseError(code: ResultCode(primaryOf: code), extendedCode: code, message: String(cString: sqlite3_errmsg(target)),
                                           systemErrno: sqlite3_system_errno(target)))
        }
    }

    /// Rolls back whatever is open. Safe to call when nothing is.
    public func rollbackIfNeeded() {
        if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    func lastError(code: Int32) -> DatabaseError {
        DatabaseError.last(of: handle, code: code)
    }
}

extension DatabaseError {
    /// The error of the call on `connection` that returned `code`.
    static func last(of connection: OpaquePointer, code: Int32) -> DatabaseError {
        let extended = sqlite3_extended_errcode(connection)
        return DatabaseError(code: ResultCode(primaryOf: code), extendedCode: extended,
                             message: String(cString: sqlite3_errmsg(connection)), systemErrno: sqlite3_system_errno(connection))
    }
}

// Not Sendable: an SQLite connection opened NOMUTEX, with its statement cache, belongs to one thread at a time.
@available(*, unavailable)
extension Database: Sendable {}

/// SQLite's memory statistics, which bmvault never reads, turned off once before the first
/// connection: every allocation SQLite makes otherwise takes a global mutex to count it (an
/// import of 20,000 books: some 2% of its instructions). A lazy global, so it runs once,
/// before SQLite initializes itself at the first open.
private let memoryStatisticsOff: Void = {
    _ = bmv_sqlite3_memory_statistics_off()
}()
