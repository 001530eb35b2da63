internal import FileIO

/// A file of the archive as the manifest lists it.
public struct ArchiveFileEntry: Equatable, Sendable {
    /// Relative to the archive directory, with `/` between components.
    public let path: String
    public let bytes: Int64
    /// SHA-256 of the contents, 64 lowercase hex digits.
    public let sha256: String
}

/// One file being written into the archive: created new and private (0600, never through
/// a symlink) and buffered here; each full buffer goes to the ``BackgroundWriter`` thread,
/// which hashes and writes it (``FileSink``).
///
/// Writing never throws: the first failure is kept and every later write is skipped, so a
/// record loop over the vault needs no error path of its own (as with stdio's `ferror`).
/// The entry of ``finish()`` reports it.
final class ArchiveFile {
    private static let flushThreshold = 1 << 16
    /// Room for a full buffer and the record that fills it, so appends rarely reallocate.
    private static let bufferCapacity = flushThreshold + (1 << 15)

    private let sink: FileSink
    private let writer: BackgroundWriter
    private(set) var buffer: [UInt8] = []

    /// Creates `relativePath` inside `directory`; it must not exist yet. `displayName` is
    /// how errors name it: a book's file by its short id only (its name holds words of the
    /// title). A file that is not `hashed` gets no SHA-256 (it is not in the manifest).
    init(directory: String, relativePath: String, displayName: String? = nil, hashed: Bool = true,
         writer: BackgroundWriter) throws(ArchiveError) {
        let name = displayName ?? relativePath
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.create(directory + "/" + relativePath, permissions: 0o600) } catch { throw .io(error, path: name) }
        sink = FileSink(descriptor: descriptor, path: relativePath, displayName: name, hashed: hashed)
        self.writer = writer
        buffer.reserveCapacity(Self.bufferCapacity)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        flushIfFull()
    }

    /// Appends straight into the buffer (for ``JSONText``).
    func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        flushIfFull()
    }

    /// Has `format` append bytes on the writer thread, after everything written so far: for
    /// text whose making costs as much as hashing it (a book's Markdown), so the two threads
    /// share the work.
    func appendOnWriterThread(_ format: @escaping @Sendable (inout [UInt8]) -> Void) {
        flush()
        let sink = self.sink
        writer.submit {
            var out: [UInt8] = []
            format(&out)
            sink.write(out)
        }
    }

    /// Hands over what is buffered and closes the file. Its entry (size and SHA-256, or the
    /// first failure) is ready once the writer thread has drained.
    func finish() -> FileSink {
        flush()
        let sink = self.sink
        writer.submit { sink.close() }
        return sink
    }

    private func flushIfFull() {
        if buffer.count >= Self.flushThreshold { flush() }
    }

    private func flush() {
        guard !buffer.isEmpty else { return }
        let chunk = buffer
        buffer = []
        buffer.reserveCapacity(Self.bufferCapacity)
        let sink = self.sink
        writer.submit { sink.write(chunk) }
    }
}
