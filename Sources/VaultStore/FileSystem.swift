#if canImport(Glibc)
import Glibc
#endif
import VaultCrypto

/// The file-system calls the Store makes, in one place: each either succeeds or throws
/// ``StoreError/io(operation:errno:)`` naming the call, never the file's contents.
enum FileSystem {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Creates `path` and any missing parents, each readable only by its owner.
    /// Directories that already exist keep their permissions: the reader chose them.
    static func makePrivateDirectory(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .io(operation: "mkdir", errno: errno)
            }
        }
    }

    /// Flushes a file or directory to stable storage.
    static func synchronize(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(operation: "open", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .io(operation: "fsync", errno: errno) }
    }

    /// Gives `source` the name `destination` only if nothing has that name yet, so two
    /// racing `init`s cannot replace each other's vault.
    static func linkWithoutReplacing(_ source: String, to destination: String) throws(StoreError) {
        guard link(source, destination) == 0 else {
            throw errno == EEXIST ? .vaultExists(path: destination) : .io(operation: "link", errno: errno)
        }
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    /// Size in bytes, or 0 when the file does not exist.
    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Bytes an unprivileged process may still write on the file system holding `path`.
    static func availableBytes(at path: String) throws(StoreError) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw .io(operation: "statvfs", errno: errno) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Atomically gives `source` the name `destination`, replacing it.
    static func rename(_ source: String, to destination: String) throws(StoreError) {
        guard Glibc.rename(source, destination) == 0 else { throw .io(operation: "rename", errno: errno) }
    }

    /// Names of the entries of a directory.
    static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func restrictToOwner(_ path: String) throws(StoreError) {
        guard chmod(path, 0o600) == 0 else { throw .io(operation: "chmod", errno: errno) }
    }

    /// 16 random hex characters, for the names of temporary files beside the vault.
    static func uniqueSuffix() throws(StoreError) -> String {
        do { return encodeHex(try randomBytes(count: 8)) } catch { throw .crypto(error) }
    }

    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
