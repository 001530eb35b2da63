internal import FileIO

/// journal.json's quotes written while its notes section is still open: kept aside in a
/// file of the staging directory (never listed, removed once used) and appended when the
/// notes section closes. So one pass over the journal's notes and quotes, in the order
/// both sections and the books' Markdown files want, decrypts each of them once.
final class QuoteSpool {
    static let fileName = "journal.json.quotes"

    private let directory: String
    private let writer: BackgroundWriter
    private let file: ArchiveFile
    /// Records kept, and tombstones among them.
    private(set) var count = 0
    private(set) var deleted = 0

    init(directory: String, writer: BackgroundWriter) throws(ArchiveError) {
        self.directory = directory
        self.writer = writer
        file = try ArchiveFile(directory: directory, relativePath: Self.fileName, hashed: false, writer: writer)
    }

    /// Appends one quote's record, as the quotes section lays it out.
    func append(deleted isDeleted: Bool, _ record: (inout [UInt8]) -> Void) {
        file.append(record)
        count += 1
        if isDeleted { deleted += 1 }
    }

    /// Appends everything kept to `target`, then removes the spool file; the first failure
    /// (of writing it or reading it back), if there was one.
    func move(to target: ArchiveFile) -> ArchiveError? {
        let sink = file.finish()
        writer.drain()
        let path = directory + "/" + Self.fileName
        defer { try? FileSystem.unlink(path) }
        do { _ = try sink.entry() } catch { return error }
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.open(path, .readOnly) } catch { return .io(error, path: Self.fileName) }
        defer { try? descriptor.close() }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read: Int
            do { read = try descriptor.read(into: &chunk) } catch { return .io(error, path: Self.fileName) }
            if read == 0 { return nil }
            target.append { $0.append(contentsOf: chunk[0..<read]) }
        }
    }
}
