internal import SQLiteDatabase

/// Another program's SQLite database (KOReader's statistics, a Kobo's `KoboReader.sqlite`),
/// opened to be read and nothing else: SQLite's immutable mode, so nothing is written to the
/// file or beside it (no journal, no WAL index, no lock), even on a mounted e-reader.
/// Queries are SELECTs of the tables and columns the format has; a file without them is
/// not that format.
struct ForeignDatabase {
    /// SQLite's first 16 bytes: how a database file begins.
    static let header = Array("SQLite format 3\0".utf8)

    private let database: Database<ImportError>

    /// Opens `path`, or throws ``ImportError/unreadableDatabase(reason:)``.
    init(path: String) throws(ImportError) {
        let opened: Database<ImportError>
        do { opened = try Database(readingImmutable: path, failure: Self.failure) } catch { throw Self.failure(error) }
        // A file that is not a database fails at its first read, not at the open.
        _ = try opened.integer("SELECT count(*) FROM sqlite_schema")
        database = opened
    }

    /// SQLite's error, without anything the file holds: its message names a table or a
    /// column at most, never a value.
    private static func failure(_ error: DatabaseError) -> ImportError {
        .unreadableDatabase(reason: error.isNotADatabase ? "not an SQLite database" : error.message)
    }

    /// The names of the file's tables.
    func tables() throws(ImportError) -> Set<String> {
        var names = Set<String>()
        try database.forEachRow("SELECT name FROM sqlite_schema WHERE type = 'table'") { row in names.insert(row.text("name")) }
        return names
    }

    /// The names of `table`'s columns.
    func columns(of table: String) throws(ImportError) -> Set<String> {
        var names = Set<String>()
        try database.forEachRow("SELECT name FROM pragma_table_info(?1)", [.text(table)]) { row in names.insert(row.text("name")) }
        return names
    }

    /// Each row of `sql` (a SELECT, with `texts` bound to `?1...?n`) handed to `body`, its
    /// values read by column name.
    func forEachRow(_ sql: String, texts: [String] = [], _ body: (ForeignRow) throws(ImportError) -> Void) throws(ImportError) {
        try database.forEachRow(sql, texts.map(SQLValue.text)) { (row) throws(ImportError) in try body(ForeignRow(row: row)) }
    }

    /// Whether the file at `path` begins as a database does and has every one of `tables`.
    static func has(_ tables: Set<String>, at path: String) -> Bool {
        guard let database = try? ForeignDatabase(path: path), let names = try? database.tables() else { return false }
        return names.isSuperset(of: tables)
    }
}

/// A row of another program's database, read by column name. A value of another type than
/// the one asked for is read as SQLite converts it; NULL is nil.
struct ForeignRow {
    fileprivate let row: Row

    func text(_ column: String) -> String? { row.isNull(column) ? nil : row.text(column) }
    func integer(_ column: String) -> Int64? { row.isNull(column) ? nil : row.int64(column) }
    func double(_ column: String) -> Double? { row.isNull(column) ? nil : row.double(column) }
}
