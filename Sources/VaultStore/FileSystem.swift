internal import FileIO
import VaultCrypto

/// The file-system calls the Store makes, through FileIO: each either succeeds or throws
/// ``StoreError/io(operation:errno:)`` naming the call, never the file's contents.
enum FileSystem {
    static func exists(_ path: String) -> Bool {
        FileIO.FileSystem.exists(path)
    }

    /// Whether `path` is a folder (following a link to one).
    static func isDirectory(_ path: String) -> Bool {
        (try? FileIO.FileSystem.status(path))?.kind == .directory
    }

    /// Creates `path` and any missing parents, each readable only by its owner.
    /// Directories that already exist keep their permissions: the reader chose them.
    static func makePrivateDirectory(_ path: String) throws(StoreError) {
        try call { () throws(FileIOError) in try FileIO.FileSystem.makeDirectories(path, permissions: 0o700) }
    }

    /// Flushes a file another library wrote (SQLite's copy) to stable storage.
    static func synchronizeFile(_ path: String) throws(StoreError) {
        try call { () throws(FileIOError) in try FileIO.FileSystem.syncFile(path) }
    }

    /// Flushes a directory, so the names just made or removed in it survive a crash.
    static func synchronizeDirectory(_ path: String) throws(StoreError) {
        try call { () throws(FileIOError) in try FileIO.FileSystem.syncDirectory(path) }
    }

    /// Gives `source` the name `destination` only if nothing has that name yet, so two
    /// racing `init`s cannot replace each other's vault.
    static func linkWithoutReplacing(_ source: String, to destination: String) throws(StoreError) {
        do {
            try FileIO.FileSystem.link(source, to: destination)
        } catch {
            throw error.errno == .exists ? .vaultExists(path: destination) : StoreError(error)
        }
    }

    /// Gives a finished backup its name only if nothing has it (`renameat2` with
    /// `RENAME_NOREPLACE`); where the file system refuses that flag, checks the name is free
    /// and renames, which is as safe for the one process writing that name.
    static func renameBackupWithoutReplacing(_ source: String, to destination: String) throws(StoreError) {
        do {
            try FileIO.FileSystem.renameWithoutReplacing(source, to: destination)
        } catch where error.errno == .exists {
            throw .backupExists(path: destination)
        } catch where error.errno == .invalidArgument {
            guard !exists(destination) else { throw .backupExists(path: destination) }
            try rename(source, to: destination)
        } catch {
            throw StoreError(error)
        }
    }

    /// Creates `path` (0600) holding `text`, flushed; a file already there is
    /// ``StoreError/backupExists(path:)``, left alone.
    static func createBackupFile(_ path: String, holding text: String) throws(StoreError) {
        do {
            let file = try FileDescriptor.create(path, permissions: 0o600)
            defer { try? file.close() }
            try file.writeAll(text)
            try file.sync()
        } catch {
            throw error.errno == .exists ? .backupExists(path: path) : StoreError(error)
        }
    }

    /// A small regular file's bytes, at most `limit` of them.
    static func readSmallFile(_ path: String, limit: Int) throws(StoreError) -> [UInt8] {
        try call { () throws(FileIOError) in try FileIO.FileSystem.readRegularFile(at: path, limit: limit) }
    }

    /// The SHA-256 of the file at `path`, read a mebibyte at a time.
    static func sha256(of path: String) throws(StoreError) -> String {
        try call { () throws(FileIOError) in
            let file = try FileDescriptor.open(path, .readOnly)
            defer { try? file.close() }
            var digest = SHA256()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while case let count = try file.read(into: &chunk), count > 0 {
                digest.update(chunk[..<count])
            }
            return digest.finalizeHex()
        }
    }

    /// Removes a file if it is there; a leftover that cannot be removed is left for later.
    static func remove(_ path: String) {
        try? FileIO.FileSystem.unlink(path)
    }

    /// Size in bytes, or 0 when the file does not exist.
    static func size(_ path: String) -> Int64 {
        (try? FileIO.FileSystem.status(path).size) ?? 0
    }

    /// Bytes an unprivileged process may still write on the file system holding `path`.
    static func availableBytes(at path: String) throws(StoreError) -> Int64 {
        try call { () throws(FileIOError) in try FileIO.FileSystem.availableBytes(onFileSystemOf: path) }
    }

    /// Atomically gives `source` the name `destination`, replacing it.
    static func rename(_ source: String, to destination: String) throws(StoreError) {
        try call { () throws(FileIOError) in try FileIO.FileSystem.rename(source, to: destination) }
    }

    /// Names of the entries of a directory, sorted; none when it cannot be read.
    static func entries(of directory: String) -> [String] {
        ((try? FileIO.FileSystem.entries(of: directory)) ?? []).sorted()
    }

    static func restrictToOwner(_ path: String) throws(StoreError) {
        try call { () throws(FileIOError) in try FileIO.FileSystem.setPermissions(path, 0o600) }
    }

    /// 16 random hex characters, for the names of temporary files beside the vault.
    static func uniqueSuffix() throws(StoreError) -> String {
        do { return encodeHex(try randomBytes(count: 8)) } catch { throw .crypto(error) }
    }

    static func fileName(of path: String) -> String {
        FileIO.FileSystem.fileName(of: path)
    }

    static func directory(of path: String) -> String {
        FileIO.FileSystem.directory(of: path)
    }

    private static func call<Result>(_ body: () throws(FileIOError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw StoreError(error) }
    }
}

extension StoreError {
    /// A failed file-system call, by the name FileIO gives it (`fsync`, `rename`, ...); a
    /// full disk, a file past `ulimit -f` and a file that changed while it was read are
    /// said as such, whichever call met them.
    init(_ error: FileIOError) {
        if error.operation == .changed { self = .fileChangedWhileRead; return }
        switch error.errno {
        case .noSpace: self = .diskFull
        case .fileTooLarge: self = .fileTooLarge
        default: self = .io(operation: error.operation.rawValue, errno: error.errno.rawValue)
        }
    }
}
