/// An SQLite failure. Like GRDB, it never carries bound values or SQL arguments, so a
/// failing INSERT cannot print a quote: only the result codes and SQLite's own message,
/// which names tables and constraints but not the values in them.
struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code: what kind of failure this is.
    let code: ResultCode
    /// The extended result code, which says more (`SQLITE_IOERR_FSYNC` rather than `SQLITE_IOERR`).
    let extendedCode: Int32
    let message: String

    var description: String { "SQLite error \(extendedCode): \(message)" }

    /// `SQLITE_FULL`: a write found the disk full.
    var isDiskFull: Bool { code == .full }
    /// `SQLITE_BUSY` / `SQLITE_LOCKED`: another process held the lock past the busy timeout.
    var isBusy: Bool { code == .busy || code == .locked }
    /// `SQLITE_NOTADB`: the file is not an SQLite database (or is encrypted by something else).
    var isNotADatabase: Bool { code == .notADatabase }
}
