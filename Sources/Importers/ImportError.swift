/// Why a file from another program could not be read. Cases name a line, a table or a
/// row, never its text.
public enum ImportError: Error, Equatable, Sendable {
    /// The file is not UTF-8.
    case invalidUTF8
    /// Line `line` is not what the format has there.
    case malformed(line: Int, reason: String)
    /// A database (KOReader's statistics, a Kobo's) could not be read: SQLite's reason,
    /// which names a table or a column at most.
    case unreadableDatabase(reason: String)
    /// The database lacks a table or column its format has.
    case missingFromDatabase(String)
}
