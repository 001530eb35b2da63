public import Journal
public import VaultStore

/// A book file an archive lists (journal.json's `files`), as the import hands it over.
public struct ImportedBookFile: Sendable {
    public let id: EntityID
    public let book: EntityID
    public let format: String
    public let size: Int64
    /// SHA-256 of the plain file, as the archive records it.
    public let checksum: String
    /// What the file says of itself, as JSON (``FileContent/metadata``).
    public let metadata: String
    public let locator: Locator?
    public let addedAt: Timestamp
    /// The archive's plain copy of it (`export --with-files`), or nil.
    public let plainCopy: String?

    public init(id: EntityID, book: EntityID, format: String, size: Int64, checksum: String, metadata: String, locator: Locator?,
                addedAt: Timestamp, plainCopy: String?) {
        self.id = id
        self.book = book
        self.format = format
        self.size = size
        self.checksum = checksum
        self.metadata = metadata
        self.locator = locator
        self.addedAt = addedAt
        self.plainCopy = plainCopy
    }
}

/// Book files re-attached from an archive's plain copies. The blobs are written before the
/// transaction commits, each under the lock the file store holds until its row is there:
/// the import's transaction (``ImportTransaction``) keeps them once it commits and removes
/// them when it does not, so an import that fails leaves no blob behind (and a kill leaves one the next
/// sweep takes).
extension ArchiveImport {
    /// Attaches `file` to its book with the archive's id, unless the vault has that book
    /// file already (by id, or the same content attached to that book under another id) or
    /// the book is not here live. A content the vault holds (by SHA-256) is attached, not
    /// stored again; otherwise it is stored from the archive's plain copy,
    /// which must be what the archive says (``StoreError/fileChanged(id:stored:)`` otherwise). A
    /// file the archive lists without a plain copy is only counted.
    public func add(_ file: ImportedBookFile) throws(StoreError) {
        let known = try tables.bookFiles.local(file.id) != nil
        if known { summary.unchanged += 1 }
        guard !known, try presence(of: file.book) == .live else { return }
        let content: FileContent
        if let existing = try contentsByChecksum()[file.checksum] {
            if try tables.bookFiles.attached(of: file.book).contains(where: { $0.content.checksum == file.checksum }) {
                summary.unchanged += 1
                return
            }
            content = existing
        } else {
            guard let plainCopy = file.plainCopy else {
                summary.filesNotCarried += 1
                return
            }
            content = try storeContent(of: file, from: plainCopy)
            contents?[file.checksum] = content
            summary.filesStored += 1
        }
        _ = try tables.bookFiles.insertAttachment(id: file.id, content: content, to: file.book, locator: file.locator, createdAt: file.addedAt)
        summary.filesAttached += 1
    }

    /// Stores the plain copy at `path` as a new content, checked against what the archive says of it.
    private func storeContent(of file: ImportedBookFile, from path: String) throws(StoreError) -> FileContent {
        try transaction.storeContent(from: path, format: file.format, metadata: file.metadata, checksum: file.checksum,
                                     size: file.size, for: file.id)
    }

    /// The vault's contents by SHA-256, read once per import and kept up to date by it.
    private func contentsByChecksum() throws(StoreError) -> [String: FileContent] {
        if let contents { return contents }
        let found = try tables.bookFiles.reachableContentsByChecksum()
        contents = found
        return found
    }
}
