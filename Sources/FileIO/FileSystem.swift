internal import CFileIO
#if canImport(Glibc)
import Glibc
#endif

/// What `stat(2)` says about a file, as much of it as bmvault's callers look at.
public struct FileStatus: Equatable, Sendable {
    /// The kinds of file callers tell apart.
    public enum Kind: Sendable {
        /// A plain file.
        case regular
        /// A directory.
        case directory
        /// A symbolic link, seen only with `followingLinks: false`.
        case symbolicLink
        /// A device, a socket, a pipe.
        case other
    }

    /// Which kind of file.
    public let kind: Kind
    /// Size in bytes.
    public let size: Int64
    /// The permission bits (`0o700`), without the file type.
    public let permissions: UInt32
    /// The owner's user id: a private directory must be the reader's own.
    public let owner: UInt32
    /// Which file this is (device and inode): the same for two names or descriptors of one file.
    public let identity: FileIdentity
    /// When its content last changed, in milliseconds since 1970: a linked book file that
    /// changed is hashed again.
    public let modifiedMilliseconds: Int64
}

/// A file's device and inode numbers.
public struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
}

extension FileStatus {
    /// From what `stat(2)` or `fstat(2)` filled in.
    init(_ info: stat) {
        let kind: Kind = switch info.st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        default: .other
        }
        self.init(kind: kind, size: Int64(info.st_size), permissions: info.st_mode & 0o7777, owner: info.st_uid,
                  identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)),
                  modifiedMilliseconds: Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000)
    }
}

/// Operations on paths: the file-system calls that take a name rather than a descriptor.
/// Each throws ``FileIOError`` naming the call; none puts the path in it.
public enum FileSystem {
    /// The directory that holds `path` (`.` for a bare name, `/` for a name at the root),
    /// whose flush makes a new or removed name in it durable.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    public static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The process's current directory (`getcwd(3)`), against which a relative path given
    /// by the reader is made absolute.
    public static func currentDirectory() throws(FileIOError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let found = buffer.withUnsafeMutableBufferPointer { getcwd($0.baseAddress, $0.count) != nil }
        guard found else { throw FileIOError(.getcwd, Errno(rawValue: errno)) }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether anything is at `path`: a broken symbolic link counts only when
    /// `followingLinks` is false.
    public static func exists(_ path: String, followingLinks: Bool = true) -> Bool {
        (try? status(path, followingLinks: followingLinks)) != nil
    }

    /// What is at `path` (`stat(2)`); with `followingLinks` false, a symbolic link itself
    /// (`lstat(2)`), so a link planted in an archive or a runtime directory is seen as one.
    public static func status(_ path: String, followingLinks: Bool = true) throws(FileIOError) -> FileStatus {
        var info = stat()
        _ = try systemCall(.stat) { followingLinks ? stat(path, &info) : lstat(path, &info) }
        return FileStatus(info)
    }

    /// Bytes an unprivileged process may still write on the file system holding `path`
    /// (`statvfs(3)`): to refuse work that cannot fit before starting it.
    public static func availableBytes(onFileSystemOf path: String) throws(FileIOError) -> Int64 {
        var info = statvfs()
        _ = try systemCall(.statvfs) { statvfs(path, &info) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// What ``checkAccess(_:_:)`` asks for.
    public struct Access: OptionSet, Sendable {
        /// The `_OK` flags.
        public let rawValue: Int32

        /// Flags as `access(2)` takes them.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The right to read a file or list a directory.
        public static let read = Access(rawValue: R_OK)
        /// The right to write a file or make names in a directory.
        public static let write = Access(rawValue: W_OK)
        /// For a directory: the right to reach the names in it.
        public static let search = Access(rawValue: X_OK)
    }

    /// Fails unless this process may use `path` as `access` says (`access(2)`): to tell
    /// a folder the reader cannot write from one that is only missing.
    public static func checkAccess(_ path: String, _ access: Access) throws(FileIOError) {
        _ = try systemCall(.access) { Glibc.access(path, access.rawValue) }
    }

    /// Makes one directory, or fails (`EEXIST` if the name is taken). Owner-only by default.
    public static func makeDirectory(_ path: String, permissions: UInt32 = 0o700) throws(FileIOError) {
        _ = try systemCall(.mkdir) { mkdir(path, permissions) }
    }

    /// Makes `path` and any missing parents with `permissions`. Directories that already
    /// exist keep theirs: the reader chose them.
    public static func makeDirectories(_ path: String, permissions: UInt32 = 0o700) throws(FileIOError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do throws(FileIOError) {
                try makeDirectory(prefix, permissions: permissions)
            } catch where error.errno == .exists {
                continue
            }
        }
    }

    /// Makes a new private (0700) directory whose name is `prefix` and six random
    /// characters (`mkdtemp(3)`), and returns its path: no other process can have chosen it.
    public static func makeTemporaryDirectory(prefix: String) throws(FileIOError) -> String {
        try InjectedFaults.check(.mkdtemp)
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made else { throw FileIOError(.mkdtemp, Errno(rawValue: errno)) }
        return made
    }

    /// The names in `directory`, without `.` and `..`, in the order the directory gives
    /// them: sort them where order matters.
    public static func entries(of directory: String) throws(FileIOError) -> [String] {
        try InjectedFaults.check(.list)
        guard let stream = opendir(directory) else { throw FileIOError(.list, Errno(rawValue: errno)) }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on failure; only errno tells them apart.
            errno = 0
            guard let entry = readdir(stream) else {
                guard errno == 0 else { throw FileIOError(.list, Errno(rawValue: errno)) }
                return names
            }
            let name = String(cString: bmv_dirent_name(entry))
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// The whole file at `path`, which must be a regular file of at most `limit` bytes: for
    /// files someone else may have put there (a remote folder, an archive). A symbolic link
    /// fails with `ELOOP`, a FIFO, device or directory as every read-only open does
    /// (operation `type`), and a longer file with `EFBIG`, without reading past the limit;
    /// so no such file can hang the reader or fill its memory.
    public static func readRegularFile(at path: String, limit: Int) throws(FileIOError) -> [UInt8] {
        let descriptor = try FileDescriptor.open(path, .readOnly, options: [.noFollow])
        defer { try? descriptor.close() }
        let status = try descriptor.status()
        guard status.size <= Int64(limit) else { throw FileIOError(.read, .fileTooLarge) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try descriptor.read(into: &chunk)
            if count == 0 { return bytes }
            // The file may grow while it is read: the limit holds all the same.
            guard bytes.count + count <= limit else { throw FileIOError(.read, .fileTooLarge) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// The whole file at `path`, a regular file (see ``FileDescriptor/open(_:_:options:permissions:)``).
    public static func readFile(at path: String) throws(FileIOError) -> [UInt8] {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { try? descriptor.close() }
        return try descriptor.readAll()
    }

    /// Gives the file at `source` the new name `destination` too (`link(2)`), failing with
    /// `EEXIST` if that name is taken. A file written completely under a temporary name and
    /// then linked appears at once and whole, and is never replaced: two writers racing for
    /// one name cannot both win.
    public static func link(_ source: String, to destination: String) throws(FileIOError) {
        _ = try systemCall(.link) { Glibc.link(source, destination) }
    }

    /// Gives `source` the name `destination`, atomically replacing whatever had it
    /// (`rename(2)`): readers see the old file or the new one, never a mixture.
    public static func rename(_ source: String, to destination: String) throws(FileIOError) {
        _ = try systemCall(.rename) { Glibc.rename(source, destination) }
    }

    /// Gives `source` the name `destination` only if that name is free, else fails with
    /// `EEXIST` (`renameat2(2)` with `RENAME_NOREPLACE`): create-or-fail like
    /// ``link(_:to:)``, without a second name to remove, and for directories too. Some file
    /// systems (network ones among them) refuse the flag with `EINVAL`.
    public static func renameWithoutReplacing(_ source: String, to destination: String) throws(FileIOError) {
        _ = try systemCall(.renameat2) { bmv_rename_noreplace(source, destination) }
    }

    /// Removes the name `path` (`unlink(2)`); the file goes when no other name or open
    /// descriptor refers to it.
    public static func unlink(_ path: String) throws(FileIOError) {
        _ = try systemCall(.unlink) { Glibc.unlink(path) }
    }

    /// Removes an empty directory (`rmdir(2)`).
    public static func removeDirectory(_ path: String) throws(FileIOError) {
        _ = try systemCall(.rmdir) { rmdir(path) }
    }

    /// Removes `path` and, if it is a directory, everything in it. Symbolic links are
    /// removed, never followed, so nothing outside `path` is touched.
    public static func removeTree(_ path: String) throws(FileIOError) {
        guard try status(path, followingLinks: false).kind == .directory else { return try unlink(path) }
        for name in try entries(of: path) { try removeTree(path + "/" + name) }
        try removeDirectory(path)
    }

    /// Sets the permission bits of the file at `path` (`chmod(2)`).
    public static func setPermissions(_ path: String, _ permissions: UInt32) throws(FileIOError) {
        _ = try systemCall(.chmod) { chmod(path, permissions) }
    }

    /// Flushes the file at `path` to stable storage (opened read-only, then `fsync(2)`):
    /// for a file another library wrote, before it is given its final name.
    public static func syncFile(_ path: String) throws(FileIOError) {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { try? descriptor.close() }
        try descriptor.sync()
    }

    /// Flushes a directory (`fsync(2)` of the directory itself): a name just created,
    /// renamed or removed in it survives a crash only after this.
    public static func syncDirectory(_ path: String) throws(FileIOError) {
        let descriptor = try FileDescriptor.open(path, .readOnly, options: .directory)
        defer { try? descriptor.close() }
        try descriptor.sync()
    }
}
