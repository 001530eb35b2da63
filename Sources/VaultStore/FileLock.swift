#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock (flock) on a small file beside the vault, held while one
/// process upgrades or rekeys it, and released by the kernel if that process dies.
///
/// A separate file, because closing any descriptor of the database itself would drop
/// SQLite's own POSIX locks in this process.
final class FileLock {
    private let descriptor: Int32

    /// Waits until the lock is ours.
    init(path: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "open lock", errno: errno) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(descriptor)
                throw .io(operation: "flock", errno: code)
            }
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
