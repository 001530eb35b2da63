#if canImport(Glibc)
import Glibc
#endif

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

    static func restrictToOwner(_ path: String) throws(StoreError) {
        guard chmod(path, 0o600) == 0 else { throw .io(operation: "chmod", errno: errno) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
