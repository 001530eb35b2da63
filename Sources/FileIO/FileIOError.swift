/// A failed file-system call: which operation, and the error number. It never holds a path
/// or any bytes read or written, so it can be logged and shown as it is; each module maps it
/// into its own error, naming the file the way that module's errors already do.
public struct FileIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A readable name for the call that failed. The names are those the modules' errors
    /// already used (they reach messages, logs and the outbox's last error class), so
    /// mapping keeps them as they were.
    public struct Operation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String

        /// Any other call's name, for ``systemCall(_:_:)`` (`waitpid`).
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The name itself: `fsync`.
        public var description: String { rawValue }

        /// `open(2)` of an existing file or directory (or of a file it may create).
        public static let open = Operation(rawValue: "open")
        /// `open(2)` with `O_CREAT | O_EXCL`: a new file, never an existing one.
        public static let create = Operation(rawValue: "create")
        /// `read(2)`.
        public static let read = Operation(rawValue: "read")
        /// `write(2)`, or a write that made no progress.
        public static let write = Operation(rawValue: "write")
        /// `pipe2(2)`.
        public static let pipe = Operation(rawValue: "pipe")
        /// `memfd_create(2)`.
        public static let memfd = Operation(rawValue: "memfd_create")
        /// `close(2)`: can be the first report of a write that did not reach the disk.
        public static let close = Operation(rawValue: "close")
        /// `fsync(2)` of a file or a directory.
        public static let fsync = Operation(rawValue: "fsync")
        /// `syncfs(2)` of a whole file system.
        public static let syncfs = Operation(rawValue: "syncfs")
        /// `flock(2)`, to lock or to unlock.
        public static let flock = Operation(rawValue: "flock")
        /// `fchmod(2)` or `chmod(2)`.
        public static let chmod = Operation(rawValue: "chmod")
        /// `stat(2)` or `lstat(2)`.
        public static let stat = Operation(rawValue: "stat")
        /// Not a call: a file changed while it was read (``FileDescriptor/checkUnchanged(since:bytesRead:)``).
        public static let changed = Operation(rawValue: "changed")
        /// `poll(2)`: waiting for a pipe.
        public static let poll = Operation(rawValue: "poll")
        /// `fcntl(2)`: a descriptor's flags.
        public static let fcntl = Operation(rawValue: "fcntl")
        /// A file of the wrong kind where a regular file was needed (a FIFO, a device, a directory).
        public static let type = Operation(rawValue: "type")
        /// `statvfs(3)`: free space.
        public static let statvfs = Operation(rawValue: "statvfs")
        /// `access(2)`.
        public static let access = Operation(rawValue: "access")
        /// `mkdir(2)`.
        public static let mkdir = Operation(rawValue: "mkdir")
        /// `mkdtemp(3)`.
        public static let mkdtemp = Operation(rawValue: "mkdtemp")
        /// `rmdir(2)`.
        public static let rmdir = Operation(rawValue: "rmdir")
        /// Reading a directory's entries (`opendir(3)`, `readdir(3)`).
        public static let list = Operation(rawValue: "list")
        /// `link(2)`: fails with `EEXIST` on a taken name.
        public static let link = Operation(rawValue: "link")
        /// `rename(2)`, which replaces.
        public static let rename = Operation(rawValue: "rename")
        /// `renameat2(2)` with `RENAME_NOREPLACE`.
        public static let renameat2 = Operation(rawValue: "renameat2")
        /// `unlink(2)`.
        public static let unlink = Operation(rawValue: "unlink")
        /// `getcwd(3)`.
        public static let getcwd = Operation(rawValue: "getcwd")
    }

    /// The call that failed.
    public let operation: Operation
    /// Why it failed.
    public let errno: Errno

    /// The failure of `operation` with `errno`.
    public init(_ operation: Operation, _ errno: Errno) {
        self.operation = operation
        self.errno = errno
    }

    /// `write: ENOSPC`.
    public var description: String { "\(operation): \(errno)" }
}
