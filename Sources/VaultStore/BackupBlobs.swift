internal import FileIO

/// The book files' encrypted blobs inside a backup: one table of the backup copy only,
/// `backup_blob`, holding each stored content's blob as the file store keeps it (sealed under
/// the content's own key, which the copy holds sealed under the vault key), in parts of 1 MiB.
/// So a backup stays one SQLite file, as encrypted as the vault, its SHA-256 covering the
/// blobs too, and nothing new is parsed: `restore` reads the table back through SQLite and
/// drops it before the vault is opened. A vault never has this table; a backup without it
/// (`--without-files`, or any bmvault before this one) restores as before.
enum BackupBlobs {
    static let table = "backup_blob"

    /// The table's text, exactly: a backup whose `backup_blob` says anything else (another
    /// column, a trigger or index on it) is not as bmvault made it. A later layout would be
    /// a table of another name.
    static let createSQL = "CREATE TABLE backup_blob (file_id TEXT NOT NULL, part INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (file_id, part))"

    static let partSize = 1 << 20

    /// The stored contents an attached file needs, as the `file` sweep keeps them (the copy's
    /// own rows, so the blobs match the snapshot).
    private static let neededSQL = """
        SELECT id FROM file f WHERE file_key IS NOT NULL
          AND EXISTS (SELECT 1 FROM book_file WHERE file_id = f.id AND removed_at IS NULL) ORDER BY id
        """

    /// The blobs `copy` needs that `store` holds (a content kept on another device has none here).
    static func held(by store: FileStore, for copy: Database) throws(StoreError) -> [String] {
        var ids: [String] = []
        try copy.forEachRow(neededSQL) { row in ids.append(row.text("id")) }
        return ids.filter { FileSystem.exists(store.blobPath($0)) }
    }

    /// Writes the blobs of `ids` from `store` into `copy`'s `backup_blob`, in one transaction;
    /// returns how many went in (one removed meanwhile by `file remove` is left out).
    static func write(_ ids: [String], from store: FileStore, into copy: Database) throws(StoreError) -> Int {
        // No book file, no table: the backup is then the one every bmvault restores.
        guard !ids.isEmpty else { return 0 }
        try copy.execute(createSQL)
        var written = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: partSize, alignment: 16)
        defer { buffer.deallocate() }
        try copy.writeTransaction { () throws(StoreError) in
            for id in ids {
                let blob: FileDescriptor
                do throws(FileIOError) {
                    blob = try store.openBlob(id)
                } catch where error.errno == .notFound {
                    continue
                } catch {
                    throw StoreError(error)
                }
                defer { try? blob.close() }
                var part: Int64 = 0
                while true {
                    let count = try call { () throws(FileIOError) in try FileStore.readFully(blob, into: buffer) }
                    if count == 0 && part > 0 { break }
                    try copy.run("INSERT INTO backup_blob (file_id, part, bytes) VALUES (?, ?, ?)",
                                 [.text(id), .integer(part), .blob(Array(UnsafeRawBufferPointer(rebasing: buffer[..<count])))])
                    part += 1
                    if count < partSize { break }
                }
                written += 1
            }
        }
        return written
    }

    /// Whether `backup` holds blobs: a `backup_blob` exactly as ``createSQL`` makes it, and
    /// nothing else on it (else ``StoreError/backupAltered(path:)``).
    static func isPresent(in backup: Database, path: String) throws(StoreError) -> Bool {
        var objects: [String] = []
        try backup.forEachRow("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL", [.text(table)]) { row in
            objects.append(row.text("sql"))
        }
        guard !objects.isEmpty else { return false }
        guard objects == [createSQL] else { throw .backupAltered(path: path) }
        return true
    }

    /// Writes every blob `copy` holds into `store` (each under `.incoming-<id>`, flushed, then
    /// renamed into place, the folder flushed last), then drops the table and compacts the
    /// copy, which becomes the vault. Returns the ids written, for a caller that must take
    /// them away again. The blobs are not opened here (the vault is locked): each authenticates
    /// when it is read, as every blob does.
    static func restore(from copy: Database, into store: FileStore) throws(StoreError) -> [String] {
        var ids: [String] = []
        try copy.forEachRow("SELECT DISTINCT file_id FROM backup_blob ORDER BY file_id") { row in ids.append(row.text("file_id")) }
        var written: [String] = []
        do throws(StoreError) {
            if !ids.isEmpty { try FileSystem.makePrivateDirectory(store.directory) }
            for id in ids {
                // A backup's own name for a blob goes into a path: it must be an id, nothing more.
                guard id.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }), !id.isEmpty else { continue }
                let incoming = store.directory + "/.incoming-" + id
                let file = try call { () throws(FileIOError) in try FileDescriptor.create(incoming) }
                defer { try? file.close() }
                try copy.forEachRow("SELECT bytes FROM backup_blob WHERE file_id = ? ORDER BY part", [.text(id)]) { (row) throws(StoreError) in
                    try row.withBytes(0) { (bytes) throws(StoreError) in try call { () throws(FileIOError) in try file.writeAll(bytes) } }
                }
                try call { () throws(FileIOError) in try file.sync() }
                try FileSystem.rename(incoming, to: store.blobPath(id))
                written.append(id)
            }
            if !written.isEmpty { try FileSystem.synchronizeDirectory(store.directory) }
            try copy.execute("DROP TABLE backup_blob")
            try copy.execute("VACUUM")
        } catch {
            for id in written { store.remove(id) }
            for id in ids { FileSystem.remove(store.directory + "/.incoming-" + id) }
            throw error
        }
        return written
    }

    private static func call<Result>(_ body: () throws(FileIOError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw StoreError(error) }
    }
}
