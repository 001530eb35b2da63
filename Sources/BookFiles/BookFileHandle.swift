internal import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// The book file, opened once: its first bytes tell the format, and a MOBI's headers are read
/// through it (EPUB and PDF are opened again by their libraries, by path). Closed when dropped.
struct BookFileHandle: ~Copyable {
    private let file: FileDescriptor
    /// The file's size when it was opened.
    let size: Int

    /// Opens a regular file for reading. A directory is `EISDIR` and any other kind of file
    /// (a FIFO, a device) `EINVAL`, as FileIO refuses them, never waiting on one: neither is
    /// a book file.
    init(path: String) throws(BookFileError) {
        let file: FileDescriptor
        let status: FileStatus
        do {
            file = try FileDescriptor.open(path, .readOnly)
        } catch {
            throw .unreadable(errno: error.errno.rawValue)
        }
        do {
            status = try file.status()
        } catch {
            try? file.close()
            throw .unreadable(errno: error.errno.rawValue)
        }
        self.file = file
        size = Int(status.size)
    }

    deinit { try? file.close() }

    /// Up to `count` bytes from `offset`: fewer only at the end of the file.
    func read(at offset: Int, count: Int) throws(BookFileError) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result: Int
            do {
                result = try bytes.withUnsafeMutableBytes { buffer in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: Int64(offset + filled))
                }
            } catch {
                // The closure throws only FileIO's errors (Array's closures rethrow untyped).
                throw .unreadable(errno: (error as? FileIOError)?.errno.rawValue ?? EIO)
            }
            if result == 0 { break }
            filled += result
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
