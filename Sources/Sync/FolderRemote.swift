import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
    private var commitDescriptor: Int32 = -1

    deinit {
        if commitDescriptor >= 0 { close(commitDescriptor) }
    }

    /// Opens the vault folder for ``commitWrites()`` if it is not open yet.
    private func openForCommit() throws(RemoteError) {
        guard commitDescriptor < 0 else { return }
        try makeDirectory(root)
        let descriptor = open(root, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(operation: "open", errno: errno) }
        commitDescriptor = descriptor
    }

    public init(name: String, location: String, vaultID: String) {
        self.name = name
        self.location = location
        self.vaultID = vaultID
    }

    public func checkReachable() throws(RemoteError) {
        var info = stat()
        guard stat(location, &info) == 0 else { throw .unreachable(errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .unreachable(errno: ENOTDIR) }
        guard access(location, R_OK | W_OK | X_OK) == 0 else { throw .unreachable(errno: errno) }
    }

    public func readDescriptor() throws(RemoteError) -> [UInt8]? {
        let path = root + "/vault.json"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try read(path)
    }

    public func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError) {
        try makeDirectory(root)
        try replaceAtomically(root + "/vault.json", with: bytes)
    }

    public func devices() throws(RemoteError) -> [String] {
        let directory = root + "/devices"
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        return try entries(of: directory).filter { !$0.hasPrefix(".") }
    }

    public func operationNames(of device: String) throws(RemoteError) -> [String] {
        let directory = root + "/devices/" + device
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
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
        defer { unlink(temporary) }
        guard link(temporary, final) == 0 else {
            if errno == EEXIST { return false }
            throw .io(operation: "link", errno: errno)
        }
        return true
    }

    public func replaceOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) {
        try openForCommit()
        let directory = root + "/devices/" + device
        let temporary = directory + "/.tmp-" + UUID().uuidString
        try write(temporary, bytes, flush: false)
        guard rename(temporary, directory + "/" + name) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(operation: "rename", errno: code)
        }
    }

    public func removeOperation(_ name: String, of device: String) throws(RemoteError) {
        try openForCommit()
        guard unlink(root + "/devices/" + device + "/" + name) == 0 || errno == ENOENT else {
            throw .io(operation: "unlink", errno: errno)
        }
    }

    public func readAcknowledgement(of device: String) throws(RemoteError) -> [UInt8]? {
        let path = root + "/devices/" + device + "/acknowledgement"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try read(path)
    }

    public func writeAcknowledgement(_ bytes: [UInt8], of device: String) throws(RemoteError) {
        let directory = root + "/devices/" + device
        try makeDirectory(directory)
        try replaceAtomically(directory + "/acknowledgement", with: bytes)
    }

    /// One `syncfs` for a whole batch of operation files, instead of two `fsync`s per file.
    public func commitWrites() throws(RemoteError) {
        try openForCommit()
        guard linuxSyncfs(commitDescriptor) == 0 else { throw .io(operation: "syncfs", errno: errno) }
    }

    // MARK: - Files

    private func entries(of directory: String) throws(RemoteError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw .io(operation: "list", errno: EIO)
        }
    }

    private func read(_ path: String) throws(RemoteError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(operation: "open", errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 { if errno == EINTR { continue }; throw .io(operation: "read", errno: errno) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    private func write(_ path: String, _ bytes: [UInt8], flush: Bool = true) throws(RemoteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "create", errno: errno) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                unlink(path)
                throw .io(operation: "write", errno: code)
            }
            offset += written
        }
        guard !flush || fsync(descriptor) == 0 else {
            let code = errno
            unlink(path)
            throw .io(operation: "fsync", errno: code)
        }
    }

    private func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(RemoteError) {
        let temporary = path + ".tmp-" + UUID().uuidString
        try write(temporary, bytes)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(operation: "rename", errno: code)
        }
        syncDirectory((path as NSString).deletingLastPathComponent)
    }

    private func makeDirectory(_ path: String) throws(RemoteError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw .io(operation: "mkdir", errno: errno) }
        }
    }

    private func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// glibc's `syncfs(2)` (flush one file system), which Swift's Glibc module hides behind
/// `_GNU_SOURCE`.
@_silgen_name("syncfs")
private func linuxSyncfs(_ descriptor: Int32) -> Int32
