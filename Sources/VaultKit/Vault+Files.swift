import Applier
public import BookFiles
internal import FileIO
import Foundation
public import Journal
import Telemetry
public import VaultStore

/// A book file as `file list` shows it: the attachment, its book, and whether its content
/// can be reached from this device.
public struct FileListing: Sendable {
    public enum Presence: String, Sendable {
        /// In this vault's file store, or linked on this device and there.
        case present
        /// Its blob or its linked file is gone.
        case missing
        /// Linked on this device, and no longer readable (permission taken away).
        case unreadable
        /// Linked, or stored, on another device only.
        case elsewhere
    }

    public let file: AttachedFile
    public let book: Book
    public let metadata: BookFileMetadata
    public let presence: Presence
    /// The device this file is kept on: this one, unless ``Presence/elsewhere``.
    public let isOnThisDevice: Bool
}

/// What `file add` did, with the book it went to.
public struct AddedFile: Sendable {
    public let addition: FileAddition
    public let book: Book
    public let format: BookFileFormat
    public let metadata: BookFileMetadata
}

/// What `file verify` found of one book file.
public struct FileCheck: Sendable {
    public enum State: Sendable, Equatable {
        /// The content hashes to its checksum.
        case intact
        /// Its blob or linked file is not where it was; `movedTo` names where `--search`
        /// found the same content (re-linked with `--repair`).
        case missing(movedTo: String?)
        /// The linked file is there but cannot be read (`errno`, e.g. permission taken away).
        case unreadable(errno: Int32)
        /// The content no longer hashes to its checksum (a linked file edited, a damaged blob).
        case changed
        /// Kept on another device: nothing here to check.
        case elsewhere
    }

    public let file: AttachedFile
    public let state: State
    /// True when `--repair` re-linked it.
    public let repaired: Bool
}

extension Vault {
    /// The directory, under `$XDG_RUNTIME_DIR`, `file open` decrypts into: private (0700),
    /// in memory on most systems, and emptied by the next command.
    static func openedFilesDirectory(runtimeDirectory: String, vaultID: String) -> String {
        runtimeDirectory + "/bmvault-open/" + vaultID
    }

    /// Reads a book file's format and metadata (never its text), with the real parser of
    /// its format; nothing in the vault is touched.
    public static func inspectBookFile(at path: String) throws(VaultError) -> BookFileInspection {
        do { return try BookFileInspector.inspect(path: path) } catch { throw .bookFile(error) }
    }

    /// Adds the book file at `path` to the book `reference` names, or (nil) to the book its
    /// metadata names, added when the vault has none. Stored encrypted in the file store, or
    /// with `link`, a handle to it where it lies. `progress`: bytes read of the file's size.
    public func addFile(at path: String, book reference: String?, link: Bool,
                        progress: (_ done: Int64, _ total: Int64) -> Void = { _, _ in }) throws(VaultError) -> AddedFile {
        let absolute = try Self.absolutePath(path)
        let inspection = try Self.inspectBookFile(at: absolute)
        let store = try unlockedStore()
        let choice: FileBookChoice
        if let reference {
            choice = .book(try book(named: reference).id)
        } else {
            choice = .matching(Self.importedBook(inspection.metadata, path: absolute))
        }
        let total = (try? FileSystem.status(absolute).size) ?? 0
        try storeCall { () throws(StoreError) in try store.files.sweep() }
        let addition = try storeCall { () throws(StoreError) in
            try store.files.add(at: absolute, format: inspection.format.rawValue, metadata: Self.encode(inspection.metadata),
                                linkOnly: link, book: choice, progress: { progress($0, total) })
        }
        if addition.bookIsNew { cachedTitles = nil }
        log.info("file.added", ["format": .public(inspection.format.rawValue), "bytes": .integer(addition.file.content.size),
                                "new_content": .boolean(addition.contentIsNew), "linked": .boolean(link)])
        let book = try store.reading { tables throws(StoreError) in try tables.books.book(addition.file.book) }
        return AddedFile(addition: addition, book: book, format: inspection.format, metadata: inspection.metadata)
    }

    /// Every book file (or one book's), oldest first, with where it can be reached.
    public func fileListings(book reference: String? = nil) throws(VaultError) -> [FileListing] {
        let store = try unlockedStore()
        let bookID = try reference.map { reference throws(VaultError) in try book(named: reference).id }
        let files = try store.reading { tables throws(StoreError) in try tables.bookFiles.attached(of: bookID) }
        let reachable = try store.reading { tables throws(StoreError) in try tables.bookFiles.reachableContentsByChecksum() }
        var books: [EntityID: Book] = [:]
        return try files.map { file throws(VaultError) in
            let book: Book
            if let known = books[file.book] {
                book = known
            } else {
                book = try store.reading { tables throws(StoreError) in try tables.books.book(file.book) }
                books[file.book] = book
            }
            let (presence, here) = presence(of: file.content, reachable: reachable, store: store)
            return FileListing(file: file, book: book, metadata: Self.decode(file.content.metadata), presence: presence, isOnThisDevice: here)
        }
    }

    /// How listings name a book file: the first eight digits of its id's random part, as
    /// short ids name notes (``ShortID``); a vault holds few enough files for eight to do.
    public static func shortFileID(_ id: EntityID) -> String {
        String(ShortID.randomPart(of: id).prefix(8))
    }

    /// The book file an ID argument names: its full id, the start of its random part (what
    /// listings show, six digits or more), or a unique prefix of the full id.
    public func attachedFile(_ reference: String) throws(VaultError) -> AttachedFile {
        let typed = reference.trimmingCharacters(in: .whitespaces).lowercased()
        guard typed.count >= BookReference.minimumPrefix, EntityID.isPossiblePrefix(typed) else { throw .malformedID }
        let store = try unlockedStore()
        let files = try store.reading { tables throws(StoreError) in try tables.bookFiles.attached() }
        if let exact = files.first(where: { $0.id.rawValue == typed }) { return exact }
        var matches = ShortID.isPossible(typed) ? files.filter { ShortID.randomPart(of: $0.id).hasPrefix(typed) } : []
        if matches.isEmpty { matches = files.filter { $0.id.rawValue.hasPrefix(typed) } }
        switch matches.count {
        case 0: throw .recordNotFound(id: typed)
        case 1: return matches[0]
        default: throw .ambiguousID(candidates: matches.map(\.id.rawValue).sorted())
        }
    }

    /// Writes a plain copy of a book file to `destination`, which must not exist yet: the
    /// copy the reader asked for. It is checked against the file's checksum as it is written;
    /// a copy that does not match is removed.
    public func exportFile(_ reference: String, to destination: String,
                           progress: (_ done: Int64, _ total: Int64) -> Void = { _, _ in }) throws(VaultError) -> AttachedFile {
        let file = try attachedFile(reference)
        let store = try unlockedStore()
        let output: FileDescriptor
        do {
            output = try FileDescriptor.create(destination)
        } catch {
            throw .outFileNotCreated(errno: error.errno.rawValue)
        }
        do {
            try storeCall { () throws(StoreError) in
                do throws(StoreError) {
                    try store.files.read(file, into: output, progress: { progress($0, file.content.size) })
                } catch {
                    // A stored copy that does not open (changed, cut short, run on) is not
                    // what was added, as `file verify` says: a damaged copy, not a crypto failure.
                    guard case .crypto = error else { throw error }
                    throw .fileChanged(id: file.id.rawValue, stored: true)
                }
                try Self.fileCall { () throws(FileIOError) in try output.sync() }
            }
            try? output.close()
        } catch {
            try? output.close()
            try? FileSystem.unlink(destination)
            throw error
        }
        return file
    }

    /// Decrypts a book file into a private directory under `runtimeDirectory`
    /// (`$XDG_RUNTIME_DIR`: absolute, ours, 0700) for a viewer, and returns its path. The plaintext is removed by
    /// ``removeOpenedFiles(runtimeDirectory:)``, which every command runs first.
    public func openFile(_ reference: String, runtimeDirectory: String?) throws(VaultError) -> String {
        // The editor buffer's rule: an absolute path to a directory of ours that no one else may enter.
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/"),
              let status = try? FileSystem.status(runtimeDirectory), status.kind == .directory,
              status.owner == getuid(), status.permissions & 0o077 == 0 else { throw .noRuntimeDirectory }
        let file = try attachedFile(reference)
        let directory = Self.openedFilesDirectory(runtimeDirectory: runtimeDirectory, vaultID: vaultID)
        do {
            try FileSystem.makeDirectories(directory, permissions: 0o700)
            try FileSystem.setPermissions(directory, 0o700)
        } catch {
            throw .storage(.io(operation: error.operation.rawValue, errno: error.errno.rawValue))
        }
        let path = directory + "/" + Self.shortFileID(file.id) + "." + file.content.format
        try? FileSystem.unlink(path)
        _ = try exportFile(file.id.rawValue, to: path)
        return path
    }

    /// Removes what `file open` decrypted for an earlier command (a viewer that still has
    /// it open keeps reading it: the name goes, not its open copy).
    public static func removeOpenedFiles(runtimeDirectory: String?, vaultID: String) {
        guard let runtimeDirectory, !runtimeDirectory.isEmpty else { return }
        let directory = openedFilesDirectory(runtimeDirectory: runtimeDirectory, vaultID: vaultID)
        guard FileSystem.exists(directory, followingLinks: false) else { return }
        try? FileSystem.removeTree(directory)
    }

    /// Detaches a book file from its book; its stored copy goes when no book has it.
    public func removeFile(_ reference: String) throws(VaultError) -> AttachedFile {
        let file = try attachedFile(reference)
        let store = try unlockedStore()
        try storeCall { () throws(StoreError) in try store.files.remove(file.id) }
        log.info("file.removed", ["stored": .boolean(file.content.isStored)])
        return file
    }

    /// The file of the book `reference` names that a locator goes in: its only file, or the
    /// one `fileReference` names.
    public func fileForLocator(of reference: String, file fileReference: String?) throws(VaultError) -> AttachedFile {
        let book = try book(named: reference)
        if let fileReference {
            let file = try attachedFile(fileReference)
            guard file.book == book.id else { throw .recordNotFound(id: fileReference) }
            return file
        }
        let store = try unlockedStore()
        let files = try store.reading { tables throws(StoreError) in try tables.bookFiles.attached(of: book.id) }
        guard !files.isEmpty else { throw .noFile }
        guard files.count == 1 else { throw .severalFiles(candidates: files.map(\.id.rawValue)) }
        return files[0]
    }

    /// Records the reader's place in a book file: `epubcfi(...)`, `p. 120`, `loc 1234`, `42%`.
    public func setFileLocator(_ file: AttachedFile, to text: String) throws(VaultError) {
        let locator = try journalCall { () throws(JournalError) in try Locator(text) }
        let store = try unlockedStore()
        try store.writing { tables throws(StoreError) in try tables.bookFiles.setLocator(file.id, to: locator) }
    }

    /// Re-hashes every stored blob and every file linked on this device; a linked file that
    /// is gone is looked for under `search` (by size, then checksum) and, with `repair`,
    /// re-linked there. Nothing is ever deleted.
    public func verifyFiles(search: String?, repair: Bool) throws(VaultError) -> [FileCheck] {
        let store = try unlockedStore()
        let files = try store.reading { tables throws(StoreError) in try tables.bookFiles.attached() }
        let searchRoot = try search.map { search throws(VaultError) in try Self.absolutePath(search) }
        var checked: [EntityID: (FileCheck.State, Bool)] = [:]
        return try files.map { file throws(VaultError) in
            if let known = checked[file.content.id] { return FileCheck(file: file, state: known.0, repaired: known.1) }
            var (state, repaired) = (verify(file, store: store), false)
            if state == .missing(movedTo: nil), let searchRoot, let link = file.content.link, file.content.deviceID == store.metadata.deviceID {
                if let found = Self.find(file.content, under: searchRoot, excluding: link.path) {
                    state = .missing(movedTo: found.path)
                    if repair {
                        try store.writing { tables throws(StoreError) in try tables.bookFiles.relink(file.content.id, to: found) }
                        repaired = true
                    }
                }
            }
            checked[file.content.id] = (state, repaired)
            return FileCheck(file: file, state: state, repaired: repaired)
        }
    }

    private func verify(_ file: AttachedFile, store: Store) -> FileCheck.State {
        do {
            try store.files.read(file, into: nil)
            return .intact
        } catch .fileElsewhere {
            return .elsewhere
        } catch .fileUnreachable(_, _, let errno) {
            return errno == ENOENT || errno == ENOTDIR ? .missing(movedTo: nil) : .unreadable(errno: errno)
        } catch .io(_, let errno) {
            // Opening was fine (a file gone is `fileUnreachable`): reading it failed.
            return .unreadable(errno: errno)
        } catch {
            return .changed
        }
    }

    // MARK: - Helpers

    /// `reachable`: ``BookFileTable/reachableContentsByChecksum()``, read once per listing.
    private func presence(of attached: FileContent, reachable: [String: FileContent], store: Store) -> (FileListing.Presence, Bool) {
        let content = store.reachableContent(for: attached, among: reachable)
        if content.isStored {
            if store.files.holdsBlob(of: content) { return (.present, true) }
            // Stored by another device, whose blob never came here: kept there.
            return content.deviceID == store.metadata.deviceID ? (.missing, true) : (.elsewhere, false)
        }
        guard let link = content.link, content.deviceID == store.metadata.deviceID else { return (.elsewhere, false) }
        do {
            try FileSystem.checkAccess(link.path, .read)
            return (.present, true)
        } catch {
            return (error.errno.rawValue == ENOENT || error.errno.rawValue == ENOTDIR ? .missing : .unreadable, true)
        }
    }

    /// The first regular file under `root` (links not followed, at most 16 levels down) with
    /// `content`'s size and checksum.
    private static func find(_ content: FileContent, under root: String, excluding old: String) -> FileLink? {
        var pending: [(String, Int)] = [(root, 0)]
        while let (directory, depth) = pending.popLast() {
            for name in ((try? FileSystem.entries(of: directory)) ?? []).sorted() where name != "." && name != ".." {
                let path = directory + "/" + name
                guard let status = try? FileSystem.status(path, followingLinks: false) else { continue }
                if status.kind == .directory, depth < 16 { pending.append((path, depth + 1)); continue }
                guard status.kind == .regular, status.size == content.size, path != old,
                      let descriptor = try? FileDescriptor.open(path, .readOnly) else { continue }
                defer { try? descriptor.close() }
                if let hashed = try? BookFiles.checksum(of: descriptor), hashed == content.checksum {
                    return FileLink(path: path, modifiedMilliseconds: status.modifiedMilliseconds)
                }
            }
        }
        return nil
    }

    /// What an import needs to find (or add) the book a file's metadata names: its title (the
    /// file's name when it names none), creators, identifiers, and the ISBN and year as its edition.
    static func importedBook(_ metadata: BookFileMetadata, path: String) -> ImportedBook {
        let name = FileSystem.fileName(of: path)
        let stem = name.split(separator: ".").dropLast().joined(separator: ".")
        let title = metadata.title ?? (stem.isEmpty ? name : stem)
        let isbn = metadata.identifiers.lazy.filter { $0.hasPrefix("isbn:") }
            .compactMap { try? Edition.checkedISBN(String($0.dropFirst(5))) }.first
        let year = metadata.date.flatMap { date in Int(date.drop { !$0.isNumber }.prefix(4)) }
        var edition = Edition(isbn: isbn)
        if let year, let checked = try? Edition.checkedYear(year) { edition.year = checked }
        return ImportedBook(title: title, authors: metadata.creators, identifiers: metadata.identifiers, edition: edition)
    }

    static func encode(_ metadata: BookFileMetadata) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(metadata)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    static func decode(_ text: String) -> BookFileMetadata {
        (try? JSONDecoder().decode(BookFileMetadata.self, from: Data(text.utf8))) ?? BookFileMetadata()
    }

    static func absolutePath(_ path: String) throws(VaultError) -> String {
        if path.hasPrefix("/") { return path }
        do {
            return try FileSystem.currentDirectory() + "/" + path
        } catch {
            throw .storage(.io(operation: error.operation.rawValue, errno: error.errno.rawValue))
        }
    }

    static func fileCall<Result>(_ body: () throws(FileIOError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw .io(operation: error.operation.rawValue, errno: error.errno.rawValue) }
    }
}
