internal import CSQLite

/// A prepared statement, reused across calls by ``Database``'s cache.
final class Statement {
    let handle: OpaquePointer
    /// The connection it was prepared on (which finalizes it before it closes).
    private let connection: OpaquePointer

    init(handle: OpaquePointer, connection: OpaquePointer) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Each column's index by the name the query gives it, found once per statement: a read
    /// by name is then one dictionary lookup, not a scan of every column's name. A
    /// statement's names never change (no query selects `*`); the first of two equal names wins.
    fileprivate lazy var columnIndexes: [String: Int32] = {
        var indexes: [String: Int32] = [:]
        for index in 0..<sqlite3_column_count(handle) {
            guard let pointer = sqlite3_column_name(handle, index) else { continue }
            let name = String(cString: pointer)
            if indexes[name] == nil { indexes[name] = index }
        }
        return indexes
    }()

    /// Each named parameter's position (`:name` → 1…n), found once per statement: binding by
    /// name is then one dictionary lookup per value, not a call into SQLite with a C string.
    private lazy var parameterIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for index in 0..<sqlite3_bind_parameter_count(handle) {
            guard let pointer = sqlite3_bind_parameter_name(handle, index + 1) else { continue }
            indexes[String(cString: pointer)] = Int(index)
        }
        return indexes
    }()

    /// Clears the previous run and binds `values` to `?1...?n`.
    func bind(_ values: [SQLValue]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number):
                status = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                status = sqlite3_bind_double(handle, index, number)
            case .text(let string):
                var string = string
                status = string.withUTF8 { utf8 in
                    bmv_sqlite3_bind_text(handle, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(utf8.count))
                }
            case .blob(let bytes):
                // A zero-length blob must still be a blob, not NULL.
                status = bytes.withUnsafeBytes { buffer in
                    bmv_sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count))
                }
            case .null:
                status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else { throw DatabaseError.last(of: connection, code: status) }
        }
    }

    /// Advances to the next row; `false` when done.
    func step() throws(DatabaseError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError.last(of: connection, code: status)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Clears the previous run and binds each value to its named parameter (`:name`).
    func bind(named values: [String: SQLValue]) throws(DatabaseError) {
        var positional = [SQLValue](repeating: .null, count: Int(sqlite3_bind_parameter_count(handle)))
        for (name, value) in values {
            guard let offset = parameterIndexes[name] else { preconditionFailure("the statement has no parameter \(name)") }
            positional[offset] = value
        }
        try bind(positional)
    }

    /// Runs a statement that returns no rows, with its parameters bound by name.
    func run(named values: [String: SQLValue]) throws(DatabaseError) {
        try bind(named: values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLValue] = []) throws(DatabaseError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs a query, handing each row to `body`; `failure` makes SQLite's errors the caller's.
    func forEachRow<Failure: Error>(_ values: [SQLValue] = [], failure: (DatabaseError) -> Failure,
                                    _ body: (Row) throws(Failure) -> Void) throws(Failure) {
        do { try bind(values) } catch { throw failure(error) }
        defer { sqlite3_reset(handle) }
        while true {
            let hasRow: Bool
            do { hasRow = try step() } catch { throw failure(error) }
            guard hasRow else { return }
            try body(Row(statement: self))
        }
    }
}

/// The current row of a running statement. Valid only inside the `forEachRow` closure.
public struct Row {
    fileprivate let handle: OpaquePointer
    /// why `unowned(unsafe)`: a row exists only inside `forEachRow`, while its statement is
    /// held; a counted reference would add a retain and a release to every row of a scan.
    fileprivate unowned(unsafe) let statement: Statement

    fileprivate init(statement: Statement) {
        handle = statement.handle
        self.statement = statement
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's bytes (text or blob) without a copy, valid only inside `body`.
    public func withBytes<Result, Failure: Error>(_ column: Int32,
                                          _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        // sqlite3_column_blob first, then _bytes: the order SQLite documents as safe.
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// A table's columns, in the order the Store selects and inserts them, so a row is read by
/// a column's name wherever the SQL was written, never by a number kept in step by hand.
public protocol TableColumns: CaseIterable, RawRepresentable where RawValue == Int32, AllCases == [Self] {
    /// The column's name in the schema.
    var name: String { get }
}

extension TableColumns {
    /// Every column, comma-separated, for SELECT and INSERT.
    public static var list: String { allCases.map(\.name).joined(separator: ", ") }

    /// `?1, ?2, ...`, one parameter per column, in order: an INSERT of ``list`` whose values
    /// are `allCases.map { column in switch column { ... } }`, each given by its column, so
    /// the compiler checks that none is missing and none is out of place, at no cost per row.
    public static var placeholders: String { allCases.map { "?\($0.rawValue + 1)" }.joined(separator: ", ") }

    /// `name = ?n` for each of `columns`: what an upsert of ``placeholders`` changes in a row
    /// that is there already.
    public static func assignments(_ columns: [Self]) -> String {
        columns.map { "\($0.name) = ?\($0.rawValue + 1)" }.joined(separator: ", ")
    }
}

/// Columns read by the name the query gives them (`SELECT name, kind ...` or `... AS name`),
/// each a lookup in the statement's names (``Statement/columnIndexes``); a scan of thousands
/// of rows names its columns with a ``TableColumns`` enum, which costs nothing per read. A
/// name the query does not select is a programming error.
extension Row {
    /// The index of the column the query names `name`.
    public func index(of name: String) -> Int32 {
        guard let index = statement.columnIndexes[name] else { preconditionFailure("the query selects no column \(name)") }
        return index
    }

    public func isNull(_ name: String) -> Bool { isNull(index(of: name)) }
    public func int64(_ name: String) -> Int64 { int64(index(of: name)) }
    public func double(_ name: String) -> Double { double(index(of: name)) }
    public func text(_ name: String) -> String { text(index(of: name)) }
    public func blob(_ name: String) -> [UInt8] { blob(index(of: name)) }
    /// The column's text, nil when it is NULL.
    public func optionalText(_ name: String) -> String? {
        let column = index(of: name)
        return isNull(column) ? nil : text(column)
    }
    /// The column's integer, nil when it is NULL.
    public func optionalInt64(_ name: String) -> Int64? {
        let column = index(of: name)
        return isNull(column) ? nil : int64(column)
    }
}

extension Row {
    public func isNull<Column: TableColumns>(_ column: Column) -> Bool { isNull(column.rawValue) }
    public func int64<Column: TableColumns>(_ column: Column) -> Int64 { int64(column.rawValue) }
    public func double<Column: TableColumns>(_ column: Column) -> Double { double(column.rawValue) }
    public func text<Column: TableColumns>(_ column: Column) -> String { text(column.rawValue) }
    public func blob<Column: TableColumns>(_ column: Column) -> [UInt8] { blob(column.rawValue) }
    public func withBytes<Column: TableColumns, Result, Failure: Error>(
        _ column: Column, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withBytes(column.rawValue, body)
    }
}
