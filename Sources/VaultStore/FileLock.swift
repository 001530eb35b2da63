internal import FileIO

/// An exclusive advisory lock (flock) on a small file beside the vault, held while one
/// process upgrades it or cleans up after an upgrade, and released by the kernel if that
/// process dies.
///
/// A separate file, because closing any descriptor of the database itself would drop
/// SQLite's own POSIX locks in this process.
final class FileLock {
    private let descriptor: FileDescriptor

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    deinit {
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
        } catch {
            try? descriptor.close()
            throw StoreError(error)
        }
        return FileLock(descriptor: descriptor)
    }
}
