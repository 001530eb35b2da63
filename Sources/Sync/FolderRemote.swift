import Foundation
internal import FileIO

/// A remote that is a directory: a USB stick, a NAS mount, a folder Syncthing or Nextcloud
/// keeps in step. It needs no locks: each device writes only its own files, each file is
/// created once (written under a temporary name, flushed, then linked to its final name,
/// which fails if it exists) and never changed.
///
///     <location>/bmvault-<vault id>/vault.json                  the descriptor
///     <location>/bmvault-<vault id>/devices/<device id>/<clock>.<idempotency key>.op
///     <location>/bmvault-<vault id>/devices/<device id>/acknowledgement   replaced at each sync
public final class FolderRemote: Remote {
    public let name: String
    public let location: String
    let vaultID: String
    var root: String { location + "/bmvault-" + vaultID }
    /// Directories known to exist, so a push of thousands of operations makes each once.
    private var madeDirectories = Set<String>()
    /// The vault folder, opened before the first write of a batch: `syncfs` reports only
    /// the write-back errors that happen after the descriptor it is given was opened.
    private var commitDescriptor: FileDescriptor?

    deinit {
        try? commitDescriptor?.close()
    }

    /// The vault folder for ``commitWrites()``, opened if it is not open yet.
    @discardableResult
    private func openForCommit() throws(RemoteError) -> FileDescriptor {
        if let commitDescriptor { return commitDescriptor }
        try makeDirectory(root)
        let descriptor = try call { () throws(FileIOError) in try FileDescriptor.open(root, .readOnly) }
        commitDescriptor = descriptor
        return descriptor
    }

    public init(name: String, location: String, vaultID: String) {
        self.name = name
        self.location = location
        self.vaultID = vaultID
    }

    public func checkReachable() throws(RemoteError) {
        let status: FileStatus
        do { status = try FileSystem.status(location) } catch { throw .unreachable(errno: error.errno.rawValue) }
        guard status.kind == .directory else { throw .unreachable(errno: Errno.notDirectory.rawValue) }
        do { try FileSystem.checkAccess(location, [.read, .write, .search]) } catch { throw .unreachable(errno: error.errno.rawValue) }
    }

    public func readDescriptor() throws(RemoteError) -> [UInt8]? {
        let path = root + "/vault.json"
        guard FileSystem.exists(path) else { return nil }
        return try read(path)
    }

    public func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError) {
        try makeDirectory(root)
        try replaceAtomically(root + "/vault.json", with: bytes)
    }

    public func devices() throws(RemoteError) -> [String] {
        let directory = root + "/devices"
        guard FileSystem.exists(directory) else { return [] }
        return try entries(of: directory).filter { !$0.hasPrefix(".") }
    }

    public func operationNames(of device: String) throws(RemoteError) -> [String] {
        let directory = root + "/devices/" + device
        guard FileSystem.exists(directory) else { return [] }
        return try entries(of: directory).filter { $0.hasSuffix(".op") }
    }

    public func readOperation(_ name: String, of device: String) throws(RemoteError) -> [UInt8] {
        try read(root + "/devices/" + device + "/" + name)
    }

    @discardableResult
    public func writeOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) -> Bool {
        let directory = root + "/devices/" + device
        if !madeDirectories.contains(directory) {
            try makeDirectory(directory)
            madeDirectories.insert(directory)
        }
        try openForCommit()
        let final = directory + "/" + name
        let temporary = directory + "/.tmp-" + UUID().uuidString
        try write(temporary, bytes, flush: false)
        defer { try? FileSystem.unlink(temporary) }
        do {
            try FileSystem.link(temporary, to: final)
        } catch {
            if error.errno == .exists { return false }
            throw RemoteError(error)
        }
        return true
    }

    public func replaceOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) {
        try openForCommit()
        let directory = root + "/devices/" + device
        let temporary = directory + "/.tmp-" + UUID().uuidString
        try write(temporary, bytes, flush: false)
        try rename(temporary, to: directory + "/" + name)
    }

    public func removeOperation(_ name: String, of device: String) throws(RemoteError) {
        try openForCommit()
        do {
            try FileSystem.unlink(root + "/devices/" + device + "/" + name)
        } catch {
            guard error.errno == .notFound else { throw RemoteError(error) }
        }
    }

    public func readAcknowledgement(of device: String) throws(RemoteError) -> [UInt8]? {
        let path = root + "/devices/" + device + "/acknowledgement"
        guard FileSystem.exists(path) else { return nil }
        return try read(path)
    }

    public func writeAcknowledgement(_ bytes: [UInt8], of device: String) throws(RemoteError) {
        let directory = root + "/devices/" + device
        try makeDirectory(directory)
        try replaceAtomically(directory + "/acknowledgement", with: bytes)
    }

    /// One `syncfs` for a whole batch of operation files, instead of two `fsync`s per file.
    public func commitWrites() throws(RemoteError) {
        let descriptor = try openForCommit()
        try call { () throws(FileIOError) in try descriptor.syncFileSystem() }
    }

    // MARK: - Files

    /// Names in `directory`, sorted.
    private func entries(of directory: String) throws(RemoteError) -> [String] {
        try call { () throws(FileIOError) in try FileSystem.entries(of: directory) }.sorted()
    }

    private func read(_ path: String) throws(RemoteError) -> [UInt8] {
        try call { () throws(FileIOError) in try FileSystem.readFile(at: path) }
    }

    /// Writes a new file; `flush` makes it durable on its own (not needed for an operation
    /// file: ``commitWrites()`` flushes a whole batch). A failed write leaves no file.
    private func write(_ path: String, _ bytes: [UInt8], flush: Bool = true) throws(RemoteError) {
        let descriptor = try call { () throws(FileIOError) in try FileDescriptor.create(path, permissions: 0o600) }
        defer { try? descriptor.close() }
        do {
            try descriptor.writeAll(bytes)
            if flush { try descriptor.sync() }
        } catch {
            try? FileSystem.unlink(path)
            throw RemoteError(error)
        }
    }

    /// Renames `temporary` to `path`, replacing it; a temporary file that cannot be renamed is removed.
    private func rename(_ temporary: String, to path: String) throws(RemoteError) {
        do {
            try FileSystem.rename(temporary, to: path)
        } catch {
            try? FileSystem.unlink(temporary)
            throw RemoteError(error)
        }
    }

    /// Writes and flushes a new version under a temporary name, renames it over `path`, then
    /// flushes the directory, so the new name survives a crash; a failed flush is reported,
    /// because the descriptor or acknowledgement may not survive one.
    private func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(RemoteError) {
        let temporary = path + ".tmp-" + UUID().uuidString
        try write(temporary, bytes)
        try rename(temporary, to: path)
        try call { () throws(FileIOError) in try FileSystem.syncDirectory(FileSystem.directory(of: path)) }
    }

    private func makeDirectory(_ path: String) throws(RemoteError) {
        try call { () throws(FileIOError) in try FileSystem.makeDirectories(path, permissions: 0o700) }
    }

    private func call<Result>(_ body: () throws(FileIOError) -> Result) throws(RemoteError) -> Result {
        do { return try body() } catch { throw RemoteError(error) }
    }
}

extension RemoteError {
    /// A failed file-system call, by the name FileIO gives it (`link`, `fsync`, ...).
    init(_ error: FileIOError) {
        self = .io(operation: error.operation.rawValue, errno: error.errno.rawValue)
    }
}
