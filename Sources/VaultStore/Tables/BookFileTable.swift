import Journal
import SyncWire
import VaultCrypto

/// Book files as records devices exchange (schema v18): each attachment (`book_file`) with
/// the content it names (`file`), read and written as a ``BookFileVersion``. Every change
/// made here is written with its operation in one transaction; a change from another device
/// is written as ``JournalMerge`` decided it, with none.
public struct BookFileTable {
    let tables: Tables
    var store: Store { tables.store }
    var database: Database { tables.database }

    /// Book files (attachments) matching `condition` (on `b`, the attachment, and `f`, its
    /// content), sealed fields opened, oldest first. One whose fields do not open is left
    /// out (`check` reports it).
    func versions(where condition: String, _ values: [SQLValue] = []) throws(StoreError) -> [BookFileVersion] {
        typealias Column = BookFileColumn
        let cipher = try store.requireCipher()
        var files: [BookFileVersion] = []
        try database.forEachRow("""
            SELECT \(Column.list) FROM book_file b JOIN file f ON f.id = b.file_id
            WHERE \(condition) ORDER BY b.created_at, b.id
            """, values) { row in
            let id = row.text(Column.id), contentID = row.text(Column.contentID)
            func optional<Value>(_ column: Column, _ value: (Column) -> Value) -> Value? { row.isNull(column) ? nil : value(column) }
            func time(_ column: Column) -> Timestamp { Timestamp(millisecondsSince1970: row.int64(column)) }
            guard let entity = try? EntityID(validating: id), let book = try? EntityID(validating: row.text(Column.bookID)),
                  let content = try? EntityID(validating: contentID),
                  let checksum = try? cipher.open(row.blob(Column.checksum), table: "file", id: contentID, field: "checksum"),
                  let metadata = Self.openMetadata(row.blob(Column.metadata), of: contentID, with: cipher) else { return }
            var locator: Locator?
            if let sealed = optional(.locator, row.blob) {
                guard let text = try? cipher.open(sealed, table: "book_file", id: id, field: "locator"),
                      let checked = try? Locator(text) else { return }
                locator = checked
            }
            // NULL is the origin clock, as `writeAttachment` stores it.
            guard let clock = try? optional(.hlc, row.text).map(HybridTimestamp.init(parsing:)) ?? .origin,
                  let locatorClock = try? optional(.locatorHLC, row.text).map(HybridTimestamp.init(parsing:)) ?? .origin else { return }
            let file = BookFile(
                id: entity, bookID: book,
                content: BookFile.Content(id: content, format: row.text(Column.format), size: row.int64(Column.size), checksum: checksum,
                                          metadata: metadata, deviceID: row.text(Column.deviceID), sealedKey: optional(.fileKey, row.blob),
                                          createdAt: time(.contentCreatedAt)),
                locator: locator, createdAt: time(.createdAt), updatedAt: time(.updatedAt),
                removedAt: optional(.removedAt, time), version: row.int64(Column.version))
            files.append(BookFileVersion(file, clock: clock, locatorClock: locatorClock))
        }
        return files
    }

    /// A content's metadata opened; a purged one (empty, ``purgeRemovedFiles(before:)``)
    /// says nothing: `{}`. Nil when it does not open.
    static func openMetadata(_ sealed: [UInt8], of content: String, with cipher: RecordCipher) -> String? {
        sealed.isEmpty ? "{}" : try? cipher.open(sealed, table: "file", id: content, field: "metadata")
    }

    /// The book file `id`, removed or not, or nil when it is not here.
    package func local(_ id: EntityID) throws(StoreError) -> BookFileVersion? {
        try versions(where: "b.id = ?", [.text(id.rawValue)]).first
    }

    /// Attaches `content` (a row here) to `book` as a new book file, with its `create`
    /// operation.
    package func insertAttachment(id: EntityID, content: FileContent, to book: EntityID, locator: Locator?,
                          createdAt: Timestamp) throws(StoreError) -> BookFileVersion {
        tables.requireWrite()
        let now = store.clock.now()
        let stamp = try store.tick()
        let sealedKey = try sealedKeyColumn(of: content.id)
        let file = BookFile(id: id, bookID: book,
                            content: BookFile.Content(id: content.id, format: content.format, size: content.size, checksum: content.checksum,
                                                      metadata: content.metadata, deviceID: content.deviceID, sealedKey: sealedKey,
                                                      createdAt: content.createdAt),
                            locator: locator, createdAt: createdAt, updatedAt: now, removedAt: nil, version: 1)
        // No place recorded yet: none to outrank one recorded in another attachment of it.
        let version = BookFileVersion(file, clock: stamp, locatorClock: locator == nil ? .origin : stamp)
        try writeAttachment(version)
        try tables.outbox.enqueue(.create, .bookFile(version), clock: stamp, at: now, baseVersion: 0, base: nil)
        return version
    }

    /// Changes a book file here at a new version, with its operation: `movesAttachment` for a
    /// change of attached or removed (its clock moves), `movesLocator` for a new place (the
    /// locator's clock moves); a key given moves neither.
    @discardableResult
    func change(_ before: BookFileVersion, movesAttachment: Bool = false, movesLocator: Bool = false,
                        _ change: (inout BookFile, Timestamp) -> Void) throws(StoreError) -> BookFileVersion {
        tables.requireWrite()
        let now = store.clock.now()
        let stamp = try store.tick()
        var version = before
        change(&version.file, now)
        version.file.updatedAt = max(now, before.file.updatedAt)
        version.file.version = try VersionNumber.next(after: before.file.version, of: before.file.id)
        if movesAttachment { version.clock = stamp }
        if movesLocator { version.locatorClock = stamp }
        try writeAttachment(version)
        try tables.outbox.enqueue(version.file.isRemoved ? .delete : .update, .bookFile(version), clock: stamp, at: now,
                    baseVersion: before.file.version, base: before.clock)
        return version
    }

    /// Writes a book file's attachment row (its content's row is here already).
    func writeAttachment(_ version: BookFileVersion) throws(StoreError) {
        tables.requireWrite()
        let file = version.file
        let locator = try file.locator.map { (locator) throws(StoreError) in
            SQLValue.blob(try store.requireCipher().seal(locator.text, table: "book_file", id: file.id.rawValue, field: "locator"))
        }
        try database.run("""
            INSERT INTO book_file (id, book_id, file_id, locator, created_at, updated_at, removed_at, version, hlc, locator_hlc)
            VALUES (:id, :book_id, :file_id, :locator, :created_at, :updated_at, :removed_at, :version, :hlc, :locator_hlc)
            ON CONFLICT (id) DO UPDATE SET locator = :locator, updated_at = :updated_at, removed_at = :removed_at, version = :version,
                                           hlc = :hlc, locator_hlc = :locator_hlc
            """, named: [":id": .text(file.id.rawValue), ":book_id": .text(file.bookID.rawValue), ":file_id": .text(file.content.id.rawValue),
                         ":locator": locator ?? .null, ":created_at": .integer(file.createdAt.millisecondsSince1970),
                         ":updated_at": .integer(file.updatedAt.millisecondsSince1970),
                         ":removed_at": .integer(file.removedAt?.millisecondsSince1970), ":version": .integer(file.version),
                         ":hlc": version.clock == .origin ? .null : .text(version.clock.description),
                         ":locator_hlc": version.locatorClock == .origin ? .null : .text(version.locatorClock.description)])
    }

    /// Writes a book file another device sent, as the merge decided: its content is added
    /// when new here (never linked: a link is its own device's), and takes the key it
    /// carries when it has none here, opened with the vault key or one a rekey retired and
    /// sealed again under the current one (a key that opens under neither is left out: the
    /// file stays on the other device).
    package func writeFromElsewhere(_ version: BookFileVersion) throws(StoreError) {
        tables.requireWrite()
        let content = version.file.content
        var here: (hasKey: Bool, found: Bool) = (false, false)
        try database.forEachRow("SELECT file_key IS NOT NULL AS has_key FROM file WHERE id = ?", [.text(content.id.rawValue)]) { row in
            here = (row.int64("has_key") != 0, true)
        }
        let key = here.hasKey ? nil : try content.sealedKey.flatMap { (sealed) throws(StoreError) in try resealedFileKey(sealed, of: content.id) }
        if !here.found {
            let cipher = try store.requireCipher()
            try insertContent(FileContent(id: content.id, format: content.format, size: content.size, checksum: content.checksum,
                                              metadata: content.metadata, isStored: key != nil, link: nil, deviceID: content.deviceID,
                                              createdAt: content.createdAt),
                                  sealedKey: key, cipher: cipher)
        } else if let key {
            try database.run("UPDATE file SET file_key = ? WHERE id = ? AND file_key IS NULL", [.blob(key), .text(content.id.rawValue)])
        }
        try writeAttachment(version)
    }

    /// A content's key as the `file` row holds it (sealed), or nil.
    private func sealedKeyColumn(of content: EntityID) throws(StoreError) -> [UInt8]? {
        var sealed: [UInt8]?
        try database.forEachRow("SELECT file_key FROM file WHERE id = ? AND file_key IS NOT NULL", [.text(content.rawValue)]) { row in
            sealed = row.blob("file_key")
        }
        return sealed
    }

    /// `sealed`, a content's key as another device sealed it, sealed again under the current
    /// key; nil when it opens under no key known here.
    private func resealedFileKey(_ sealed: [UInt8], of content: EntityID) throws(StoreError) -> [UInt8]? {
        let sealer = try store.requireCipher().sealer
        var opener = sealer
        if let keyID = FieldSealer.keyID(of: sealed), keyID != sealer.keyID {
            guard let retired = try tables.keys.retired().lazy.compactMap({ try? $0.sealer(openedWith: sealer) }).first(where: { $0.keyID == keyID })
            else { return nil }
            opener = retired
        }
        guard var plain = try? opener.open(sealed, table: "file", recordID: content.rawValue, field: "file_key") else { return nil }
        let key = try Store.cryptoCall { () throws(CryptoError) in try FileKey(opened: &plain) }
        return try sealFileKey(key, id: content)
    }

    /// Moves every file attached to `book` to `other`: removed from the one, attached to
    /// the other under a new id unless it has that content (by SHA-256) already. Inside a
    /// write transaction (a book merge).
    func move(from book: EntityID, to other: EntityID) throws(StoreError) {
        var contentsByID: [EntityID: FileContent] = [:]
        for content in try contents() { contentsByID[content.id] = content }
        var held = Set(try versions(where: "b.book_id = ? AND b.removed_at IS NULL", [.text(other.rawValue)]).map(\.file.content.checksum))
        for attached in try versions(where: "b.book_id = ? AND b.removed_at IS NULL", [.text(book.rawValue)]) {
            let moved = try change(attached, movesAttachment: true) { file, now in file.removedAt = now }
            guard let content = contentsByID[attached.file.content.id], held.insert(content.checksum).inserted else { continue }
            let now = store.clock.now()
            _ = try insertAttachment(id: EntityID.generate(at: now), content: content, to: other, locator: moved.file.locator, createdAt: now)
        }
    }

    /// Inserts a content's row; `sealedKey` is its key sealed under the vault key (``sealFileKey(_:id:)``).
    func insertContent(_ content: FileContent, sealedKey: [UInt8]?, cipher: RecordCipher) throws(StoreError) {
        tables.requireWrite()
        let id = content.id.rawValue
        try database.run("""
            INSERT INTO file (id, format, size, checksum, metadata, file_key, link_path, link_mtime, device_id, created_at)
            VALUES (:id, :format, :size, :checksum, :metadata, :file_key, :link_path, :link_mtime, :device_id, :created_at)
            """, named: [":id": .text(id), ":format": .text(content.format), ":size": .integer(content.size),
                         ":checksum": .blob(try cipher.seal(content.checksum, table: "file", id: id, field: "checksum")),
                         ":metadata": .blob(try cipher.seal(content.metadata, table: "file", id: id, field: "metadata")),
                         ":file_key": sealedKey.map { .blob($0) } ?? .null,
                         ":link_path": try content.link.map { link throws(StoreError) in
                             .blob(try cipher.seal(link.path, table: "file", id: id, field: "link_path"))
                         } ?? .null,
                         ":link_mtime": content.link.map { .integer($0.modifiedMilliseconds) } ?? .null,
                         ":device_id": .text(content.deviceID), ":created_at": .integer(content.createdAt.millisecondsSince1970)])
    }

    /// Attaches `content` to `book`, unless it is attached already; returns the attachment
    /// as listings show it (the same file attached by another device, whose copy is not
    /// here, is attached again with this device's copy, and shown once with it).
    func attach(_ content: FileContent, to book: EntityID) throws(StoreError) -> (AttachedFile, Bool) {
        let attachments = try versions(where: "b.book_id = ? AND b.file_id = ? AND b.removed_at IS NULL",
                                          [.text(book.rawValue), .text(content.id.rawValue)])
        if attachments.isEmpty {
            let now = store.clock.now()
            _ = try insertAttachment(id: EntityID.generate(at: now), content: content, to: book, locator: nil, createdAt: now)
        }
        guard let shown = try attached(of: book).first(where: { $0.content.checksum == content.checksum }) else {
            throw .recordNotFound(id: content.id.rawValue)
        }
        return (shown, !attachments.isEmpty)
    }

    // MARK: - Reading

    /// Every content, with its sealed fields opened (a row that does not open is left out:
    /// `check` reports it).
    func contents() throws(StoreError) -> [FileContent] {
        try contents(where: "", [])
    }

    private func contents(where condition: String, _ bindings: [SQLValue]) throws(StoreError) -> [FileContent] {
        let cipher = try store.requireCipher()
        var contents: [FileContent] = []
        try database.forEachRow("""
            SELECT id, format, size, checksum, metadata, file_key IS NOT NULL AS is_stored, link_path, link_mtime, device_id, created_at
            FROM file \(condition) ORDER BY created_at, id
            """, bindings) { row in
            let id = row.text("id")
            guard let entity = try? EntityID(validating: id),
                  let checksum = try? cipher.open(row.blob("checksum"), table: "file", id: id, field: "checksum"),
                  let metadata = Self.openMetadata(row.blob("metadata"), of: id, with: cipher) else { return }
            var link: FileLink?
            if !row.isNull("link_path") {
                guard let path = try? cipher.open(row.blob("link_path"), table: "file", id: id, field: "link_path") else { return }
                link = FileLink(path: path, modifiedMilliseconds: row.optionalInt64("link_mtime") ?? 0)
            }
            contents.append(FileContent(id: entity, format: row.text("format"), size: row.int64("size"), checksum: checksum,
                                        metadata: metadata, isStored: row.int64("is_stored") != 0, link: link,
                                        deviceID: row.text("device_id"), createdAt: Timestamp(millisecondsSince1970: row.int64("created_at"))))
        }
        return contents
    }

    /// Every book file attached (or one book's), oldest first. The same content attached to
    /// a book twice (two devices that each attached it before they synced) is shown once:
    /// under the attachment with the smaller id, at the place recorded last in either, so
    /// every device shows the same.
    public func attached(of book: EntityID? = nil) throws(StoreError) -> [AttachedFile] {
        var contentsByID: [EntityID: FileContent] = [:]
        for content in try contents() { contentsByID[content.id] = content }
        let live = try versions(where: book == nil ? "b.removed_at IS NULL" : "b.removed_at IS NULL AND b.book_id = ?",
                                     book.map { [.text($0.rawValue)] } ?? [])
        var groups: [String: [BookFileVersion]] = [:]
        for version in live { groups[version.file.bookID.rawValue + "/" + version.file.content.checksum, default: []].append(version) }
        return live.compactMap { version -> AttachedFile? in
            let group = groups[version.file.bookID.rawValue + "/" + version.file.content.checksum] ?? [version]
            guard version.file.id == group.map(\.file.id).min(), let content = contentsByID[version.file.content.id] else { return nil }
            let placed = group.max { $0.locatorClock < $1.locatorClock } ?? version
            return AttachedFile(id: version.file.id, book: version.file.bookID, content: content, locator: placed.file.locator?.text,
                                createdAt: version.file.createdAt, updatedAt: group.map(\.file.updatedAt).max() ?? version.file.updatedAt)
        }
    }

    /// One book file, by its id.
    public func attached(_ id: EntityID) throws(StoreError) -> AttachedFile {
        guard let file = try attached().first(where: { $0.id == id }) else { throw .recordNotFound(id: id.rawValue) }
        return file
    }

    /// Gives content `id`, only linked until now, the key of its newly stored blob: sealed
    /// in its row, and sent to the other devices with each attachment of it.
    func giveKey(_ key: FileKey, to id: EntityID) throws(StoreError) {
        tables.requireWrite()
        let sealed = try sealFileKey(key, id: id)
        try database.run("UPDATE file SET file_key = ? WHERE id = ?", [.blob(sealed), .text(id.rawValue)])
        for attached in try versions(where: "b.file_id = ? AND b.removed_at IS NULL", [.text(id.rawValue)]) {
            try change(attached) { file, _ in file.content.sealedKey = sealed }
        }
    }

    /// Records the reader's current place in a book file, with its operation.
    public func setLocator(_ id: EntityID, to locator: Locator) throws(StoreError) {
        tables.requireWrite()
        guard let before = try local(id), !before.file.isRemoved else { throw .recordNotFound(id: id.rawValue) }
        try change(before, movesLocator: true) { file, _ in file.locator = locator }
    }

    /// Records where a linked file lies now (`file verify --repair` found it moved).
    public func relink(_ content: EntityID, to link: FileLink) throws(StoreError) {
        tables.requireWrite()
        let sealed = try store.requireCipher().seal(link.path, table: "file", id: content.rawValue, field: "link_path")
        try database.run("UPDATE file SET link_path = ?, link_mtime = ? WHERE id = ? AND device_id = ?",
                         [.blob(sealed), .integer(link.modifiedMilliseconds), .text(content.rawValue), .text(store.metadata.deviceID)])
    }

    /// Detaches a book file from its book (every attachment of that content to that book,
    /// each with its operation: the removal syncs). The rows stay, removed, so other devices
    /// learn of it; a linked file is never touched where it lies. Returns the contents no
    /// book has any more, whose blobs the Store removes once this has committed.
    func remove(_ id: EntityID) throws(StoreError) -> [String] {
        tables.requireWrite()
        guard let shown = try local(id), !shown.file.isRemoved else { throw .recordNotFound(id: id.rawValue) }
        let same = try versions(where: "b.book_id = ? AND b.removed_at IS NULL", [.text(shown.file.bookID.rawValue)])
            .filter { $0.file.content.checksum == shown.file.content.checksum }
        for attached in same {
            try change(attached, movesAttachment: true) { file, now in file.removedAt = now }
        }
        return try unattachedContents(among: same.map(\.file.content.id))
    }

    /// Of `contents`, those no live attachment has any more (their blobs may go).
    func unattachedContents(among contents: [EntityID]) throws(StoreError) -> [String] {
        var gone: [String] = []
        for content in Set(contents) {
            var attached = false
            try database.forEachRow("SELECT 1 FROM book_file WHERE file_id = ? AND removed_at IS NULL LIMIT 1",
                                    [.text(content.rawValue)]) { _ in attached = true }
            if !attached { gone.append(content.rawValue) }
        }
        return gone
    }

    /// The contents whose bytes this device can read, by SHA-256 (the oldest of each): how
    /// identical content is recognised, whichever device added it.
    public func reachableContentsByChecksum() throws(StoreError) -> [String: FileContent] {
        var found: [String: FileContent] = [:]
        for content in try contents() where found[content.checksum] == nil && store.isReachableHere(content) {
            found[content.checksum] = content
        }
        return found
    }

    /// What this device reads a content's bytes from: the content itself when it can, else
    /// another with the same SHA-256 that it can (two devices that added the same file made
    /// two contents, each with its blob on its own device), else the content itself.
    public func reachableContent(for content: FileContent) throws(StoreError) -> FileContent {
        if store.isReachableHere(content) { return content }
        return store.reachableContent(for: content, among: try reachableContentsByChecksum())
    }

    /// Detaches every file of `book` (a purged book), as removed when the book was deleted,
    /// and empties what a content no other book has still says (its metadata names the book;
    /// its key opens a blob that goes); returns those contents' ids, whose blobs the caller
    /// removes once the transaction commits. The rows stay, removed, as every tombstone does:
    /// they tell the remotes that carry files which blobs can go (``BookFiles/blobsToForget()``).
    ///
    func detachFiles(ofBook book: EntityID) throws(StoreError) -> [String] {
        tables.requireWrite()
        var contents: [String] = []
        try database.forEachRow("SELECT DISTINCT file_id FROM book_file WHERE book_id = ?", [.text(book.rawValue)]) { row in
            contents.append(row.text("file_id"))
        }
        try database.run("""
            UPDATE book_file SET locator = NULL, removed_at = COALESCE(removed_at, (SELECT deleted_at FROM book WHERE id = ?1))
            WHERE book_id = ?1
            """, [.text(book.rawValue)])
        var gone: [String] = []
        for content in contents {
            try database.run("""
                UPDATE file SET metadata = X'', file_key = NULL, link_path = NULL, link_mtime = NULL
                WHERE id = ?1 AND (length(metadata) > 0 OR file_key IS NOT NULL OR link_path IS NOT NULL)
                  AND NOT EXISTS (SELECT 1 FROM book_file WHERE file_id = ?1 AND removed_at IS NULL)
                """, [.text(content)])
            if database.changes > 0 { gone.append(content) }
        }
        return gone
    }

    // MARK: - Keys

    func sealFileKey(_ key: FileKey, id: EntityID) throws(StoreError) -> [UInt8] {
        let sealer = try store.requireCipher().sealer
        return try Store.cryptoCall { () throws(CryptoError) in
            try key.withUnsafeBytes { bytes throws(CryptoError) in
                try sealer.seal(UnsafeRawBufferPointer(bytes), table: "file", recordID: id.rawValue, field: "file_key")
            }
        }
    }

    func fileKey(of id: EntityID) throws(StoreError) -> FileKey {
        var sealed: [UInt8]?
        try database.forEachRow("SELECT file_key FROM file WHERE id = ? AND file_key IS NOT NULL", [.text(id.rawValue)]) { row in
            sealed = row.blob("file_key")
        }
        guard let sealed else { throw .recordNotFound(id: id.rawValue) }
        let sealer = try store.requireCipher().sealer
        return try Store.cryptoCall { () throws(CryptoError) in
            var plain = try sealer.open(sealed, table: "file", recordID: id.rawValue, field: "file_key")
            return try FileKey(opened: &plain)
        }
    }

}

/// The columns a book file is read from: its attachment (`b`, `book_file`) and its content
/// (`f`, `file`), in the order ``BookFileTable`` selects them.
enum BookFileColumn: Int32, TableColumns {
    case id, bookID, contentID, locator, createdAt, updatedAt, removedAt, version, hlc, locatorHLC
    case format, size, checksum, metadata, fileKey, deviceID, contentCreatedAt

    var name: String {
        switch self {
        case .id: "b.id"
        case .bookID: "b.book_id"
        case .contentID: "b.file_id"
        case .locator: "b.locator"
        case .createdAt: "b.created_at"
        case .updatedAt: "b.updated_at"
        case .removedAt: "b.removed_at"
        case .version: "b.version"
        case .hlc: "b.hlc"
        case .locatorHLC: "b.locator_hlc"
        case .format: "f.format"
        case .size: "f.size"
        case .checksum: "f.checksum"
        case .metadata: "f.metadata"
        case .fileKey: "f.file_key"
        case .deviceID: "f.device_id"
        case .contentCreatedAt: "f.created_at"
        }
    }
}
