import Archive
import BookFiles
internal import FileIO
import Journal
import VaultStore

/// The book files of an export: each book's listing (journal.json's `files`, the front
/// matter of its Markdown file) and, for `export --with-files`, their plain copies under
/// `files/`, one per content however many books have it, each checked against its SHA-256
/// as it is written. A file whose copy cannot be made (gone, damaged, kept on another
/// device) is listed without one and named in ``notCopied``.
struct ExportFileListings {
    private let withFiles: Bool
    private var byBook: [EntityID: [AttachedFile]] = [:]
    /// The plain copy of each content tried so far (nil: it could not be made).
    private var copies: [EntityID: String?] = [:]
    /// The book files listed without the plain copy `--with-files` asked for.
    private(set) var notCopied: [EntityID] = []
    /// Plain copies written.
    private(set) var copied = 0

    init(store: Store, withFiles: Bool) throws(StoreError) {
        self.withFiles = withFiles
        for file in try store.read({ tables throws(StoreError) in try tables.bookFiles.attached() }) { byBook[file.book, default: []].append(file) }
    }

    /// The files of `book`, oldest first, their plain copies written first when asked.
    mutating func listing(of book: Book, store: Store, writer: ArchiveWriter) throws -> [ArchiveBookFile] {
        var listing: [ArchiveBookFile] = []
        for file in byBook[book.id] ?? [] {
            let path = withFiles && book.deletedAt == nil ? try plainCopy(of: file, bookTitle: book.title, store: store, writer: writer) : nil
            listing.append(ArchiveBookFile(
                id: file.id, format: file.content.format, size: file.content.size, sha256: file.content.checksum,
                kept: file.content.isStored ? .stored : .linked, addedAt: file.createdAt, locator: file.locator,
                metadata: ArchiveBookFile.Metadata(Vault.decode(file.content.metadata)), path: path))
        }
        return listing
    }

    /// The path in the archive of `file`'s plain copy, written now unless its content's was.
    private mutating func plainCopy(of file: AttachedFile, bookTitle: String, store: Store, writer: ArchiveWriter) throws -> String? {
        if let tried = copies[file.content.id] {
            if tried == nil { notCopied.append(file.id) }
            return tried
        }
        let relative = writer.plainCopyPath(for: file.id, format: file.content.format, bookTitle: bookTitle)
        let destination = try writer.plainCopyDestination(relative)
        let output: FileDescriptor
        do { output = try FileDescriptor.create(destination) } catch { throw StoreError.io(operation: error.operation.rawValue, errno: error.errno.rawValue) }
        do {
            try store.files.read(file, into: output)
            try? output.close()
        } catch {
            try? output.close()
            try? FileSystem.unlink(destination)
            switch error {
            case .fileUnreachable, .fileChanged, .fileElsewhere, .crypto:
                copies[file.content.id] = .some(nil)
                notCopied.append(file.id)
                return nil
            default:
                throw error
            }
        }
        writer.addPlainCopy(relative, bytes: file.content.size, sha256: file.content.checksum)
        copies[file.content.id] = relative
        copied += 1
        return relative
    }
}

extension ArchiveBookFile.Metadata {
    /// The archive's form of what a file says of itself.
    init(_ metadata: BookFileMetadata) {
        self.init(title: metadata.title, creators: metadata.creators, language: metadata.language, identifiers: metadata.identifiers,
                  publisher: metadata.publisher, date: metadata.date, hasCover: metadata.hasCover)
    }

    /// The same, as the vault keeps it.
    var bookFileMetadata: BookFileMetadata {
        BookFileMetadata(title: title, creators: creators, language: language, identifiers: identifiers, publisher: publisher,
                         date: date, hasCover: hasCover)
    }
}
