import Foundation
import FileIO
import Telemetry

/// A remote that is a directory: a USB stick, a NAS mount, a folder Syncthing or Nextcloud
/// keeps in step. It needs no locks: each device writes only its own files, and each
/// operation file is created once and never changed (``CreateOnce``).
///
///     <location>/bmvault-<vault id>/vault.json                  the descriptor
///     <location>/bmvault-<vault id>/devices/<device id>/<clock>.<idempotency key>.op
///     <location>/bmvault-<vault id>/devices/<device id>/acknowledgement   replaced at each sync
///     <location>/bmvault-<vault id>/files/<content id>      a book file's encrypted blob
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

    /// How an operation file is created once, so that a name is never written twice. The
    /// first that the folder's file system supports, learnt at the first upload:
    enum CreateOnce {
        /// Written whole under a temporary name, then linked to its name (`link(2)` fails if
        /// the name is taken): ext4, btrfs, XFS, NFS.
        case link
        /// The same, renamed with `renameat2(RENAME_NOREPLACE)`, where there are no hard
        /// links but the flag is known (vfat through the kernel, some FUSE drivers).
        case renameWithoutReplacing
        /// Created under its name, failing if it exists (`FileDescriptor.create`), written,
        /// flushed and read back (exFAT and FAT through FUSE). A crash mid-write can leave the name with part
        /// of the file; only this device writes names in its folder, and its next upload finds
        /// the damaged file and replaces it (``SyncEngine``), so it is as safe for one writer.
        case exclusiveCreate
    }
    private(set) var createOnce = CreateOnce.link

    deinit {
        try? commitDescriptor?.close()
    }

    /// The vault folder for ``commitWrites()``, opened if it is not open yet.
    @discardableResult
    private func openForCommit() throws(RemoteError) -> FileDescriptor {
        if let commitDescriptor { return commitDescriptor }
        try makeDirectory(root)
        let descriptor = try call { () throws(FileIOError) in try FileDescriptor.open(root, .readOnly, options: .directory) }
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
        guard FileSystem.exists(path, followingLinks: false) else { return nil }
        try checkIsFolder(root)
        return try read(path)
    }

    public func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError) {
        try makeDirectory(root)
        try replaceAtomically(root + "/vault.json", with: bytes)
    }

    /// The largest file bmvault reads from a remote: an operation holding a note of the
    /// largest size (1 MiB), JSON-escaped and sealed, stays well under it. A larger file, a
    /// FIFO or a device is not bmvault's, and is never read into memory or waited on.
    static let largestFile = 16 << 20

    /// Device folders: entries of `devices/` named like a device id (32 lowercase hex
    /// digits) that are folders, not links. Anything else there (a `desktop.ini`, a sync
    /// tool's conflict folder, a link) is skipped and counted in the log, never a reason to
    /// give up on the remote.
    public func devices() throws(RemoteError) -> [String] {
        let directory = root + "/devices"
        guard FileSystem.exists(directory, followingLinks: false) else { return [] }
        try checkIsFolder(directory)
        var devices: [String] = []
        var skipped = 0
        for name in try entries(of: directory) {
            if Self.isDeviceID(name), (try? FileSystem.status(directory + "/" + name, followingLinks: false))?.kind == .directory {
                devices.append(name)
            } else if !name.hasPrefix(".") {
                skipped += 1
            }
        }
        if skipped > 0 { log.warning("sync.remote.strayEntries", ["remote": .public(name), "count": .integer(Int64(skipped))]) }
        return devices
    }

    /// Whether `name` has the form of a device id (Migration0003: 16 random bytes in hex).
    static func isDeviceID(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    public func operationNames(of device: String) throws(RemoteError) -> [String] {
        let directory = root + "/devices/" + device
        guard FileSystem.exists(directory, followingLinks: false) else { return [] }
        try checkIsFolder(directory)
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
        return try createFileOnce(at: directory + "/" + name, in: directory, bytes)
    }

    /// Tries, in a scratch folder of its own that it removes, what syncing will do in the
    /// folder: create a file once (learning how, ``CreateOnce``) and be refused a second
    /// time, read it back, replace a file atomically. Throws what failed, so that `remote
    /// add` can name a file-system problem before the first sync meets it.
    public func probe() throws(RemoteError) {
        let scratch = location + "/.bmvault-probe-" + UUID().uuidString
        try makeDirectory(scratch)
        defer { try? FileSystem.removeTree(scratch) }
        let bytes = Array("bmvault checks that this folder can hold its files\n".utf8)
        let file = scratch + "/created-once"
        guard try createFileOnce(at: file, in: scratch, bytes) else { throw .io(operation: "create", errno: Errno.exists.rawValue) }
        guard try !createFileOnce(at: file, in: scratch, bytes) else { throw .io(operation: "create-once", errno: Errno.exists.rawValue) }
        guard try read(file) == bytes else { throw .io(operation: "verify", errno: Errno.ioError.rawValue) }
        try replaceAtomically(scratch + "/replaced", with: bytes)
        try replaceAtomically(scratch + "/replaced", with: bytes + bytes)
        guard try read(scratch + "/replaced") == bytes + bytes else { throw .io(operation: "verify", errno: Errno.ioError.rawValue) }
    }

    /// Creates `final` holding `bytes` unless the name is taken (then false), the first
    /// way of ``CreateOnce`` this file system supports.
    private func createFileOnce(at final: String, in directory: String, _ bytes: [UInt8]) throws(RemoteError) -> Bool {
        if createOnce == .exclusiveCreate { return try createExclusively(final, bytes) }
        let temporary = directory + "/.tmp-" + UUID().uuidString
        try write(temporary, bytes, flush: false)
        defer { try? FileSystem.unlink(temporary) }
        if createOnce == .link {
            switch try attempt({ () throws(FileIOError) in try FileSystem.link(temporary, to: final) }, unsupported: Self.meansNoHardLinks) {
            case .made: return true
            case .taken: return false
            case .unsupported: createOnce = .renameWithoutReplacing
            }
        }
        if createOnce == .renameWithoutReplacing {
            switch try attempt({ () throws(FileIOError) in try FileSystem.renameWithoutReplacing(temporary, to: final) },
                               unsupported: { Self.meansNoHardLinks($0) || $0 == .invalidArgument }) {
            case .made: return true
            case .taken: return false
            case .unsupported: createOnce = .exclusiveCreate
            }
        }
        return try createExclusively(final, bytes)
    }

    /// How one way of creating a file once went.
    private enum Attempt {
        case made, taken, unsupported
    }

    /// Runs one way of creating a file once: `taken` when the name exists, `unsupported` when
    /// it fails with an error number `unsupported` accepts (the next way is then tried).
    private func attempt(_ create: () throws(FileIOError) -> Void, unsupported: (Errno) -> Bool) throws(RemoteError) -> Attempt {
        do {
            try create()
            return .made
        } catch where error.errno == .exists {
            return .taken
        } catch where unsupported(error.errno) {
            return .unsupported
        } catch {
            throw RemoteError(error)
        }
    }

    /// What `link` (or `renameat2`'s flag) failing with `errno` says: this file system has no
    /// such thing, rather than that something went wrong.
    static func meansNoHardLinks(_ errno: Errno) -> Bool {
        [.notPermitted, .notSupported, .noSuchCall, .tooManyLinks].contains(errno)
    }

    /// ``CreateOnce/exclusiveCreate``: false when the name is taken.
    private func createExclusively(_ path: String, _ bytes: [UInt8]) throws(RemoteError) -> Bool {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.create(path, permissions: 0o600)
        } catch {
            if error.errno == .exists { return false }
            throw RemoteError(error)
        }
        defer { try? descriptor.close() }
        do {
            try descriptor.writeAll(bytes)
            try descriptor.sync()
        } catch {
            try? FileSystem.unlink(path)
            throw RemoteError(error)
        }
        let readBack: [UInt8]
        do {
            readBack = try read(path)
        } catch {
            try? FileSystem.unlink(path)
            throw error
        }
        guard readBack == bytes else {
            try? FileSystem.unlink(path)
            throw .io(operation: "verify", errno: Errno.ioError.rawValue)
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
        guard FileSystem.exists(path, followingLinks: false) else { return nil }
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

    // MARK: - Book files

    public func fileBlobNames() throws(RemoteError) -> Set<String> {
        let directory = root + "/files"
        guard FileSystem.exists(directory, followingLinks: false) else { return [] }
        try checkIsFolder(directory)
        return Set(try entries(of: directory).filter { !$0.hasPrefix(".") })
    }

    /// Copied under a temporary name, flushed, renamed into place, the folder flushed.
    public func writeFileBlob(_ name: String, from source: FileDescriptor) throws(RemoteError) {
        let directory = root + "/files"
        try makeDirectory(directory)
        let temporary = directory + "/.tmp-" + UUID().uuidString
        let output = try call { () throws(FileIOError) in try FileDescriptor.create(temporary, permissions: 0o600) }
        do {
            defer { try? output.close() }
            try call { () throws(FileIOError) in
                try source.copyAll(to: output)
                try output.sync()
            }
        } catch {
            try? FileSystem.unlink(temporary)
            throw error
        }
        try rename(temporary, to: directory + "/" + name)
        try call { () throws(FileIOError) in try FileSystem.syncDirectory(directory) }
    }

    /// Only a regular file, never through a link.
    public func readFileBlob(_ name: String, into output: FileDescriptor) throws(RemoteError) {
        let source: FileDescriptor
        do {
            source = try FileDescriptor.open(root + "/files/" + name, .readOnly, options: [.noFollow])
        } catch where error.errno == .symbolicLink {
            throw .malformed(what: "not a file bmvault writes")
        } catch {
            throw RemoteError(error)
        }
        defer { try? source.close() }
        guard try call({ () throws(FileIOError) in try source.status() }).kind == .regular else {
            throw .malformed(what: "not a file bmvault writes")
        }
        _ = try call { () throws(FileIOError) in try source.copyAll(to: output) }
    }

    public func removeFileBlob(_ name: String) throws(RemoteError) {
        do {
            try FileSystem.unlink(root + "/files/" + name)
        } catch {
            guard error.errno == .notFound else { throw RemoteError(error) }
        }
    }

    // MARK: - Files

    /// Names in `directory`, sorted.
    private func entries(of directory: String) throws(RemoteError) -> [String] {
        try call { () throws(FileIOError) in try FileSystem.entries(of: directory) }.sorted()
    }

    /// A file of bmvault's on the remote: a regular file, not a link, of at most
    /// ``largestFile`` bytes; anything else is `malformed` (the sync counts it and goes on).
    private func read(_ path: String) throws(RemoteError) -> [UInt8] {
        do {
            return try FileSystem.readRegularFile(at: path, limit: Self.largestFile)
        } catch where error.operation == .type || [.fileTooLarge, .symbolicLink, .noDeviceOrAddress].contains(error.errno) {
            throw .malformed(what: "not a file bmvault writes")
        } catch {
            throw RemoteError(error)
        }
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

    /// Makes `path` and the folders above it, down from the remote's location, and checks
    /// that each is a folder and not a link: a link planted there would send this device's
    /// files into another directory. `path` is always below the location (the vault folder,
    /// a device's folder, the probe's scratch folder).
    private func makeDirectory(_ path: String) throws(RemoteError) {
        // Down from the location one folder at a time: each that exists must be a folder and
        // not a link before anything is made inside it.
        var current = location
        for component in path.dropFirst(location.count + 1).split(separator: "/") {
            current += "/" + component
            if FileSystem.exists(current, followingLinks: false) {
                try checkIsFolder(current)
            } else {
                do {
                    try FileSystem.makeDirectory(current, permissions: 0o700)
                } catch where error.errno == .exists {
                    try checkIsFolder(current)   // made meanwhile by another process
                } catch {
                    throw RemoteError(error)
                }
            }
        }
    }

    private func checkIsFolder(_ path: String) throws(RemoteError) {
        let status = try call { () throws(FileIOError) in try FileSystem.status(path, followingLinks: false) }
        guard status.kind == .directory else { throw .malformed(what: "a link or a file where a folder belongs") }
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
