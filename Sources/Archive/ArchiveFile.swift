#if canImport(Glibc)
import Glibc
#endif
import VaultCrypto

/// A file of the archive as the manifest lists it.
public struct ArchiveFileEntry: Equatable, Sendable {
    /// Relative to the archive directory, with `/` between components.
    public let path: String
    public let bytes: Int64
    /// SHA-256 of the contents, 64 lowercase hex digits.
    public let sha256: String
}

/// One file being written into the archive: created new and private (0600, never through
/// a symlink), buffered, hashed as it is written, and flushed to disk before it is listed.
///
/// Writing never throws: the first failure is kept and every later write is skipped, so a
/// record loop over the vault needs no error path of its own (as with stdio's `ferror`).
/// ``finish()`` reports it.
final class ArchiveFile {
    private static let flushThreshold = 1 << 16

    let path: String
    /// How errors name the file: ``path``, but a book's file by its short id only (its name
    /// holds words of the title).
    private let displayName: String
    private var descriptor: Int32
    private(set) var buffer: [UInt8] = []
    private var hasher = SHA256()
    private var size: Int64 = 0
    private var failure: ArchiveError?

    /// Creates `relativePath` inside `directory`; it must not exist yet.
    init(directory: String, relativePath: String, displayName: String? = nil) throws(ArchiveError) {
        path = relativePath
        self.displayName = displayName ?? relativePath
        descriptor = open(directory + "/" + relativePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "create", path: self.displayName, errno: errno) }
        buffer.reserveCapacity(Self.flushThreshold * 2)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        flushIfFull()
    }

    func write(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        flushIfFull()
    }

    /// Appends straight into the buffer (for ``JSONText``).
    func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        flushIfFull()
    }

    /// Writes what is buffered, flushes the file to disk and closes it; the first failure
    /// of any write, if there was one.
    func finish() throws(ArchiveError) -> ArchiveFileEntry {
        flush()
        if failure == nil, fsync(descriptor) != 0 { failure = .io(operation: "fsync", path: displayName, errno: errno) }
        close(descriptor)
        descriptor = -1
        if let failure { throw failure }
        return ArchiveFileEntry(path: path, bytes: size, sha256: hasher.finalizeHex())
    }

    private func flushIfFull() {
        if buffer.count >= Self.flushThreshold { flush() }
    }

    private func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil, !buffer.isEmpty else { return }
        hasher.update(buffer)
        size += Int64(buffer.count)
        let failed: Int32? = buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failed { failure = .io(operation: "write", path: displayName, errno: failed) }
    }
}
