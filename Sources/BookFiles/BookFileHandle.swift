#if canImport(Glibc)
import Glibc
#endif

/// The book file, opened once: its first bytes tell the format, and a MOBI's headers are read
/// through it (EPUB and PDF are opened again by their libraries, by path). Closed when dropped.
struct BookFileHandle: ~Copyable {
    private let descriptor: Int32
    /// The file's size when it was opened.
    let size: Int

    /// Opens a regular file for reading. A directory is `EISDIR` and any other kind of file
    /// (a FIFO, a device) `EINVAL`: neither is a book file, and reading a FIFO could block.
    init(path: String) throws(BookFileError) {
        var descriptor: Int32
        repeat { descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .unreadable(errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw .unreadable(errno: code)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .unreadable(errno: status.st_mode & S_IFMT == S_IFDIR ? EISDIR : EINVAL)
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset`: fewer only at the end of the file.
    func read(at offset: Int, count: Int) throws(BookFileError) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno: errno)
            }
            if result == 0 { break }
            filled += result
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
