internal import FileIO

/// An SQLite failure. Like GRDB, it never carries bound values or SQL arguments, so a
/// failing INSERT cannot print a quote: only the result codes and SQLite's own message,
/// which names tables and constraints but not the values in them.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code: what kind of failure this is.
    public let code: ResultCode
    /// The extended result code, which says more (`SQLITE_IOERR_FSYNC` rather than `SQLITE_IOERR`).
    public let extendedCode: Int32
    public let message: String
    /// The errno of the system call behind an `SQLITE_IOERR` (`sqlite3_system_errno`), or 0.
    public var systemErrno: Int32 = 0

    public var description: String { "SQLite error \(extendedCode): \(message)" }

    /// `SQLITE_FULL`, or an I/O error whose write found no space (with under a page free,
    /// SQLite reports `SQLITE_IOERR_WRITE` rather than `SQLITE_FULL`).
    public var isDiskFull: Bool { code == .full || (code == .ioError && systemErrno == Errno.noSpace.rawValue) }
    /// An I/O error from a file-size limit (`ulimit -f`, `EFBIG`).
    public var isFileTooLarge: Bool { code == .ioError && systemErrno == Errno.fileTooLarge.rawValue }
    /// `SQLITE_BUSY` / `SQLITE_LOCKED`: another process held the lock past the busy timeout.
    public var isBusy: Bool { code == .busy || code == .locked }
    /// `SQLITE_NOTADB`: the file is not an SQLite database (or is encrypted by something else).
    public var isNotADatabase: Bool { code == .notADatabase }
}
