#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock (flock) on a small file beside the vault, held while one
/// process upgrades it or cleans up after an upgrade, and released by the kernel if that
/// process dies.
///
/// A separate file, because closing any descriptor of the database itself would drop
/// SQLite's own POSIX locks in this process.
final class FileLock {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
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
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "open lock", errno: errno) }
        while flock(descriptor, waiting ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw .io(operation: "flock", errno: code)
        }
        return FileLock(descriptor: descriptor)
    }
}
