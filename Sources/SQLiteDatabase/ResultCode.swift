internal import CSQLite

/// An SQLite primary result code, by name. The values come from sqlite3.h through the C
/// module, so no other file spells a result code as a number. Only the codes the Store
/// tells apart are named.
public struct ResultCode: Equatable, Sendable {
    public let rawValue: Int32

    /// The primary code of `code`: an extended code (`SQLITE_IOERR_FSYNC`, which bmvault
    /// asks for with `SQLITE_OPEN_EXRESCODE`) carries it in its low byte.
    public init(primaryOf code: Int32) {
        rawValue = code & 0xff
    }

    /// `SQLITE_BUSY`: another connection held a lock for longer than the busy timeout.
    public static let busy = ResultCode(primaryOf: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a lock conflict within one process.
    public static let locked = ResultCode(primaryOf: SQLITE_LOCKED)
    /// `SQLITE_FULL`: the disk is full (SQLite's Unix VFS reports `ENOSPC` this way).
    public static let full = ResultCode(primaryOf: SQLITE_FULL)
    /// `SQLITE_IOERR`: the operating system refused a read, write or sync (its errno says why).
    public static let ioError = ResultCode(primaryOf: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: a page of the file is malformed (cut short, a byte changed).
    public static let corrupt = ResultCode(primaryOf: SQLITE_CORRUPT)
    /// `SQLITE_NOTADB`: the file is not an SQLite database (or is encrypted by something else).
    public static let notADatabase = ResultCode(primaryOf: SQLITE_NOTADB)
}
