#if canImport(Glibc)
import Glibc
#endif

/// Why a book file's metadata could not be read. No case holds anything taken from the file
/// (a reason is a phrase written here), so an error can be shown and logged as it is.
public enum BookFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `open(2)`, `read(2)` or `fstat(2)` failed: `EACCES`, `ENOENT`, `EISDIR` (a directory),
    /// `EINVAL` (a FIFO, a device: not a regular file).
    case unreadable(errno: Int32)
    /// Not an EPUB, a MOBI/AZW3 or a PDF.
    case unknownFormat
    /// The file is of this format, but broken where its metadata is; `reason` is a fixed
    /// phrase of bmvault's, never text from the file.
    case damaged(BookFileFormat, reason: String)
    /// DRM or a password keeps the metadata from being read.
    case encrypted(BookFileFormat)

    /// One line for the CLI. It names the error number and bmvault's phrases only.
    public var description: String {
        switch self {
        case .unreadable(let errno): "the book file cannot be read: \(String(cString: strerror(errno)))"
        case .unknownFormat: "not a book file bmvault reads (an EPUB, MOBI, AZW3 or PDF)"
        case .damaged(let format, let reason): "a damaged \(format.name) file: \(reason)"
        case .encrypted(let format): "an encrypted \(format.name) file (DRM or a password): its metadata cannot be read"
        }
    }

    /// `damaged` with a reason that can only be a literal in this module's source, so no
    /// reader can put the file's text into one by mistake.
    static func damaged(_ format: BookFileFormat, because reason: StaticString) -> BookFileError {
        .damaged(format, reason: reason.description)
    }
}
