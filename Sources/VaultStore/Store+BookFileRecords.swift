import Journal
import SyncWire
import VaultCrypto

/// Book files as records devices exchange (schema v18): each attachment (`book_file`) with
/// the content it names (`file`), read and written as a ``BookFileVersion``. Every change
/// made here is written with its operation in one transaction; a change from another device
/// is written as ``JournalMerge`` decided it, with none.
extension Store {
    private static let bookFileColumns = """
        b.id, b.book_id, b.file_id, b.locator, b.created_at, b.updated_at, b.removed_at, b.version, b.hlc, b.locator_hlc,
        f.format, f.size, f.checksum, f.metadata, f.file_key, f.device_id, f.created_at
        """

    /// Book files (attachments) matching `condition` (on `b`, the attachment, and `f`, its
    /// content), sealed fields opened, oldest first. One whose fields do not open is left
    /// out (`check` reports it).
    func readBookFiles(where condition: String, _ values: [SQLValue] = []) throws(StoreError) -> [BookFileVersion] {
        let cipher = try requireCipher()
        var files: [BookFileVersion] = []
        try database.forEachRow("""
            SELECT \(Self.bookFileColumns) FROM book_file b JOIN file f ON f.id = b.file_id
            WHERE \(condition) ORDER BY b.created_at, b.id
            """, values) { row in
            let id = row.text(0), contentID = row.text(2)
            guard let entity = try? EntityID(validating: id), let book = try? EntityID(validating: row.text(1)),
                  let content = try? EntityID(validating: contentID),
                  let checksum = try? cipher.open(row.blob(12), table: "file", id: contentID, field: "checksum"),
                  let metadata = Self.openMetadata(row.blob(13), of: contentID, with: cipher) else { return }
            var locator: Locator?
            if !row.isNull(3) {
                guard let text = try? cipher.open(row.blob(3), table: "book_file", id: id, field: "locator"),
                      let checked = try? Locator(text) else { return }
                locator = checked
            }
            let clock = row.isNull(8) ? HybridTimestamp.origin : (try? HybridTimestamp(parsing: row.text(8)))
            let locatorClock = row.isNull(9) ? HybridTimestamp.origin : (try? HybridTimestamp(parsing: row.text(9)))
            guard let clock, let locatorClock else { return }
            let file = BookFile(
                id: entity, bookID: book,
                content: BookFile.Content(id: content, format: row.text(10), size: row.int64(11), checksum: checksum, metadata: metadata,
                                          deviceID: row.text(15), sealedKey: row.isNull(14) ? nil : row.blob(14),
                                          createdAt: Timestamp(millisecondsSince1970: row.int64(16))),
                locator: locator, createdAt: Timestamp(millisecondsSince1970: row.int64(4)),
                updatedAt: Timestamp(millisecondsSince1970: row.int64(5)),
                removedAt: row.isNull(6) ? nil : Timestamp(millisecondsSince1970: row.int64(6)), version: row.int64(7))
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
    func localBookFile(_ id: EntityID) throws(StoreError) -> BookFileVersion? {
        try readBookFiles(where: "b.id = ?", [.text(id.rawValue)]).first
    }

    /// Attaches `content` (a row here) to `book` as a new book file, with its `create`
    /// operation. Inside a write transaction.
    func insertAttachment(id: EntityID, content: FileContent, to book: EntityID, locator: Locator?,
                          createdAt: Timestamp) throws(StoreError) -> BookFileVersion {
        let now = clock.now()
        let stamp = try tick()
        let sealedKey = try sealedKeyColumn(of: content.id)
        let file = BookFile(id: id, bookID: book,
                            content: BookFile.Content(id: content.id, format: content.format, size: content.size, checksum: content.checksum,
                                                      metadata: content.metadata, deviceID: content.deviceID, sealedKey: sealedKey,
                                                      createdAt: content.createdAt),
                            locator: locator, createdAt: createdAt, updatedAt: now, removedAt: nil, version: 1)
        // No place recorded yet: none to outrank one recorded in another attachment of it.
        let version = BookFileVersion(file, clock: stamp, locatorClock: locator == nil ? .origin : stamp)
        try writeAttachment(version)
        try tablesOfThisTransaction.outbox.enqueue(.create, .bookFile(version), clock: stamp, at: now, baseVersion: 0, base: nil)
        return version
    }

    /// Changes a book file here at a new version, with its operation: `movesAttachment` for a
    /// change of attached or removed (its clock moves), `movesLocator` for a new place (the
    /// locator's clock moves); a key given moves neither. Inside a write transaction.
    @discardableResult
    func changeBookFile(_ before: BookFileVersion, movesAttachment: Bool = false, movesLocator: Bool = false,
                        _ change: (inout BookFile, Timestamp) -> Void) throws(StoreError) -> BookFileVersion {
        let now = clock.now()
        let stamp = try tick()
        var version = before
        change(&version.file, now)
        version.file.updatedAt = max(now, before.file.updatedAt)
        version.file.version = try VersionNumber.next(after: before.file.version, of: before.file.id)
        if movesAttachment { version.clock = stamp }
        if movesLocator { version.locatorClock = stamp }
        try writeAttachment(version)
        try tablesOfThisTransaction.outbox.enqueue(version.file.isRemoved ? .delete : .update, .bookFile(version), clock: stamp, at: now,
                    baseVersion: before.file.version, base: before.clock)
        return version
    }

    /// Writes a book file's attachment row (its content's row is here already).
    func writeAttachment(_ version: BookFileVersion) throws(StoreError) {
        let file = version.file
        let locator = try file.locator.map { (locator) throws(StoreError) in
            SQLValue.blob(try requireCipher().seal(locator.text, table: "book_file", id: file.id.rawValue, field: "locator"))
        }
        try database.run("""
            INSERT INTO book_file (id, book_id, file_id, locator, created_at, updated_at, removed_at, version, hlc, locator_hlc)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (id) DO UPDATE SET locator = ?4, updated_at = ?6, removed_at = ?7, version = ?8, hlc = ?9, locator_hlc = ?10
            """, [.text(file.id.rawValue), .text(file.bookID.rawValue), .text(file.content.id.rawValue), locator ?? .null,
                  .integer(file.createdAt.millisecondsSince1970), .integer(file.updatedAt.millisecondsSince1970),
                  .integer(file.removedAt?.millisecondsSince1970), .integer(file.version),
                  version.clock == .origin ? .null : .text(version.clock.description),
                  version.locatorClock == .origin ? .null : .text(version.locatorClock.description)])
    }

    /// Writes a book file another device sent, as the merge decided: its content is added
    /// when new here (never linked: a link is its own device's), and takes the key it
    /// carries when it has none here, opened with the vault key or one a rekey retired and
    /// sealed again under the current one (a key that opens under neither is left out: the
    /// file stays on the other device). Inside the merge's transaction.
    func writeBookFileFromElsewhere(_ version: BookFileVersion) throws(StoreError) {
        let content = version.file.content
        var here: (hasKey: Bool, found: Bool) = (false, false)
        try database.forEachRow("SELECT file_key IS NOT NULL FROM file WHERE id = ?", [.text(content.id.rawValue)]) { row in
            here = (row.int64(0) != 0, true)
        }
        let key = here.hasKey ? nil : try content.sealedKey.flatMap { (sealed) throws(StoreError) in try resealedFileKey(sealed, of: content.id) }
        if !here.found {
            let cipher = try requireCipher()
            try insertFileContent(FileContent(id: content.id, format: content.format, size: content.size, checksum: content.checksum,
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
            sealed = row.blob(0)
        }
        return sealed
    }

    /// `sealed`, a content's key as another device sealed it, sealed again under the current
    /// key; nil when it opens under no key known here.
    private func resealedFileKey(_ sealed: [UInt8], of content: EntityID) throws(StoreError) -> [UInt8]? {
        let sealer = try requireCipher().sealer
        var opener = sealer
        if let keyID = FieldSealer.keyID(of: sealed), keyID != sealer.keyID {
            guard let retired = try read({ tables throws(StoreError) in try tables.keys.retired() }).lazy.compactMap({ try? $0.sealer(openedWith: sealer) }).first(where: { $0.keyID == keyID })
            else { return nil }
            opener = retired
        }
        guard var plain = try? opener.open(sealed, table: "file", recordID: content.rawValue, field: "file_key") else { return nil }
        let key = try Self.cryptoCall { () throws(CryptoError) in try FileKey(opened: &plain) }
        return try sealFileKey(key, id: content)
    }

    /// Moves every file attached to `book` to `other`: removed from the one, attached to
    /// the other under a new id unless it has that content (by SHA-256) already. Inside a
    /// write transaction (a book merge).
    func moveFiles(from book: EntityID, to other: EntityID) throws(StoreError) {
        var contents: [EntityID: FileContent] = [:]
        for content in try fileContents() { contents[content.id] = content }
        var held = Set(try readBookFiles(where: "b.book_id = ? AND b.removed_at IS NULL", [.text(other.rawValue)]).map(\.file.content.checksum))
        for attached in try readBookFiles(where: "b.book_id = ? AND b.removed_at IS NULL", [.text(book.rawValue)]) {
            let moved = try changeBookFile(attached, movesAttachment: true) { file, now in file.removedAt = now }
            guard let content = contents[attached.file.content.id], held.insert(content.checksum).inserted else { continue }
            let now = clock.now()
            _ = try insertAttachment(id: EntityID.generate(at: now), content: content, to: other, locator: moved.file.locator, createdAt: now)
        }
    }
}
