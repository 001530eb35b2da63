internal import FileIO

/// An exclusive advisory lock (flock) on a small file beside the vault, held while one
/// process upgrades it or cleans up after an upgrade, and released by the kernel if that
/// process dies.
///
/// A separate file, because closing any descriptor of the database itself would drop
/// SQLite's own POSIX locks in this process. The holder removes the file as it lets go, so
/// none stays beside the vault; a process that was waiting on the removed file finds, once
/// it has the lock, that the name no longer leads to the file it locked, and locks afresh.
final class FileLock {
    private let descriptor: FileDescriptor
    private let path: String

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        try? FileIO.FileSystem.unlink(path)
        try? descriptor.unlock()
        try? descriptor.close()
    }

    /// Waits until the lock is ours.
    static func acquire(path: String) throws(StoreError) -> FileLock {
        guard let lock = try lock(path: path, waiting: true) else { throw .busy }
        return lock
    }

    /// The lock if no other process holds it now; nil when one does (not a failure: the
    /// caller skips work another process is in the middle of).
    static func acquireIfFree(path: String) throws(StoreError) -> FileLock? {
        try lock(path: path, waiting: false)
    }

    private static func lock(path: String, waiting: Bool) throws(StoreError) -> FileLock? {
        while true {
            let descriptor: FileDescriptor
            do {
                descriptor = try FileDescriptor.open(path, .readWrite, options: .create, permissions: 0o600)
            } catch {
                throw .io(operation: "open lock", errno: error.errno.rawValue)
            }
            do {
                guard try descriptor.lockExclusively(waiting: waiting) else {
                    try? descriptor.close()
                    return nil
                }
                // The holder before removed the file while this process waited: lock the new one.
                guard let named = try? FileIO.FileSystem.status(path, followingLinks: false),
                      named.identity == (try descriptor.status()).identity else {
                    try? descriptor.close()
                    continue
                }
            } catch {
                try? descriptor.close()
                throw StoreError(error)
            }
            return FileLock(descriptor: descriptor, path: path)
        }
    }
}
