internal import CFileIO
#if canImport(Glibc)
import Glibc
#endif

/// An open file or directory. A plain value, as in swift-system: whoever opens it closes it
/// (`defer { try? descriptor.close() }`), so it can live in a lock-protected state or cross
/// to a writer thread. Every call that fails throws a ``FileIOError``; a call interrupted by
/// a signal is made again (but `close`), a call that really failed never is.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The kernel's number, for the calls that stay outside this module (a terminal's
    /// `tcgetattr`).
    public let rawValue: Int32

    /// A descriptor opened elsewhere (a pipe's end, in tests).
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Descriptor 0: piped text, a passphrase given with `--passphrase-stdin`.
    public static let standardInput = FileDescriptor(rawValue: 0)
    /// Descriptor 1: what the reader or a script asked for.
    public static let standardOutput = FileDescriptor(rawValue: 1)
    /// Descriptor 2: messages, prompts and `--verbose` log lines.
    public static let standardError = FileDescriptor(rawValue: 2)

    /// Whether a descriptor is opened to read, to write, or both.
    public enum AccessMode: Sendable {
        /// `O_RDONLY`.
        case readOnly
        /// `O_WRONLY`.
        case writeOnly
        /// `O_RDWR`: a lock file, a terminal.
        case readWrite
    }

    /// What ``open(_:_:options:permissions:)`` may do besides opening.
    public struct OpenOptions: OptionSet, Sendable {
        /// The `O_` flags.
        public let rawValue: Int32

        /// Flags as `open(2)` takes them.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// Create the file if it is missing (with the given permissions), else open it.
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// Every write goes to the end, even with other writers (a log).
        public static let append = OpenOptions(rawValue: O_APPEND)
        /// Fail with `ENOTDIR` unless the path is a directory (one to fsync or syncfs).
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// Fail with `ELOOP` if the last component is a symbolic link, instead of following it.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// Do not wait at the open: a FIFO with no writer opens at once instead of blocking.
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    }

    /// Opens `path`. Always close-on-exec, so the editor bmvault starts never inherits a
    /// descriptor of the vault, its lock or an archive. `permissions` apply only to a file
    /// made by `.create`; owner-only by default, because every file bmvault makes holds or
    /// describes a journal.
    ///
    /// Opened `.readOnly` (but with `.directory`), `path` must be a regular file: a FIFO
    /// put where a file was (a blob, a backup, a CA file, an editor's buffer) would block
    /// the open, and then every read, for ever. So it is opened with `O_NONBLOCK`, checked
    /// with `fstat` (what was opened, not what the name meant a moment before), refused
    /// with operation `type` (`EISDIR` for a directory, `EINVAL` for anything else), and
    /// given blocking reads again unless `.nonBlocking` was asked for.
    public static func open(_ path: String, _ mode: AccessMode, options: OpenOptions = [],
                            permissions: UInt32 = 0o600) throws(FileIOError) -> FileDescriptor {
        let access = switch mode {
        case .readOnly: O_RDONLY
        case .writeOnly: O_WRONLY
        case .readWrite: O_RDWR
        }
        let mustBeRegular = mode == .readOnly && !options.contains(.directory)
        let flags = access | options.rawValue | O_CLOEXEC | (mustBeRegular ? O_NONBLOCK : 0)
        let descriptor = FileDescriptor(rawValue: try systemCall(.open) { Glibc.open(path, flags, permissions) })
        guard mustBeRegular else { return descriptor }
        do throws(FileIOError) {
            let kind = try descriptor.status().kind
            guard kind == .regular else { throw FileIOError(.type, kind == .directory ? .isDirectory : .invalidArgument) }
            if !options.contains(.nonBlocking) {
                _ = try systemCall(.fcntl) { bmv_set_blocking(descriptor.rawValue) }
            }
        } catch {
            try? descriptor.close()
            throw error
        }
        return descriptor
    }

    /// `/dev/null`, open for reading: the standard input of a program bmvault runs, which
    /// must not read what was piped to bmvault. (The one device bmvault reads on purpose;
    /// ``open(_:_:options:permissions:)`` refuses devices.)
    public static func nullDevice() throws(FileIOError) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.open) { Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC) })
    }

    /// A pipe, both ends close-on-exec (a child is given one end explicitly, with dup2).
    public static func pipe() throws(FileIOError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try systemCall(.pipe) { pipe2(&ends, O_CLOEXEC) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// An anonymous file that lives in memory only (`memfd_create(2)`), open for reading
    /// and writing: for text that must be read as a file but may never touch a disk, such
    /// as an archive piped to `import -`. `/proc/self/fd/N` opens it again, from the start.
    public static func memoryFile(named name: String) throws(FileIOError) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.memfd) { bmv_memory_file(name) })
    }

    /// Creates a new file at `path`, open for writing, or fails with `EEXIST` if anything
    /// has that name (a file, a directory, a symbolic link: it is never followed). So two
    /// processes can never write one file, and no one can plant a link bmvault would write
    /// through.
    public static func create(_ path: String, permissions: UInt32 = 0o600) throws(FileIOError) -> FileDescriptor {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        return FileDescriptor(rawValue: try systemCall(.create) { Glibc.open(path, flags, permissions) })
    }

    /// What this descriptor refers to (`fstat(2)`): checked after opening, so the answer
    /// is about the file read, not about whatever a path named a moment before.
    public func status() throws(FileIOError) -> FileStatus {
        var info = stat()
        _ = try systemCall(.stat) { fstat(rawValue, &info) }
        return FileStatus(info)
    }

    /// Fails with operation `changed` (`EAGAIN`: try again once it is still) unless this
    /// file, read from start to end into `bytesRead` bytes, is still as `before` (its status
    /// when reading began) said: the same size and modification time, and every byte of that
    /// size read. A file rewritten while it was read (a download restarted, a sync tool
    /// replacing it) would otherwise be kept as a mixture, or cut short, under a checksum
    /// of that mixture.
    public func checkUnchanged(since before: FileStatus, bytesRead: Int64) throws(FileIOError) {
        let after = try status()
        guard bytesRead == before.size, after.size == before.size,
              after.modifiedMilliseconds == before.modifiedMilliseconds else { throw FileIOError(.changed, .wouldBlock) }
    }

    /// Waits up to `milliseconds` for something to read, or the end of the stream
    /// (`poll(2)`): for a pipe from a program that may never write or close it. True when a
    /// read would not block.
    public func waitUntilReadable(milliseconds: Int32) throws(FileIOError) -> Bool {
        var request = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return try systemCall(.poll) { Glibc.poll(&request, 1, milliseconds) } > 0
    }

    /// Reads up to `buffer.count` bytes into `buffer` and returns how many; 0 only at the
    /// end of the file (or for an empty buffer).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileIOError) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        return try systemCall(.read) { Glibc.read(rawValue, base, buffer.count) }
    }

    /// Reads up to `buffer.count` bytes from `offset` (`pread(2)`: the file position is left
    /// alone) and returns how many; 0 only at or past the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(FileIOError) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        return try systemCall(.read) { pread(rawValue, base, buffer.count, off_t(offset)) }
    }

    /// Reads up to `chunk.count` bytes into the start of `chunk` and returns how many: for
    /// a file read front to back through one reused buffer.
    public func read(into chunk: inout [UInt8]) throws(FileIOError) -> Int {
        try chunk.withUnsafeMutableBytes { buffer in Result { () throws(FileIOError) in try read(into: buffer) } }.get()
    }

    /// Copies this file, from its start to its end, to `output` (at its position), in chunks
    /// of 1 MiB, whatever this file's position; returns how many bytes were copied.
    @discardableResult
    public func copyAll(to output: FileDescriptor) throws(FileIOError) -> Int64 {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(FileIOError) in try read(into: buffer, at: offset) }
            }.get()
            if count == 0 { return offset }
            try chunk.withUnsafeBytes { buffer in
                Result { () throws(FileIOError) in try output.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
            }.get()
            offset += Int64(count)
        }
    }

    /// Everything from the current position to the end of the file.
    public func readAll() throws(FileIOError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try read(into: &chunk)
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes every byte of `buffer`: `write(2)` may take only part of it (a pipe, a signal,
    /// a nearly full disk), so it is called until all of it is taken, or one call fails.
    public func writeAll(_ buffer: UnsafeRawBufferPointer) throws(FileIOError) {
        // An empty buffer may have no base address at all.
        guard var base = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let written = try systemCall(.write) { Glibc.write(rawValue, base, remaining) }
            // A file that takes nothing would be asked forever.
            guard written > 0 else { throw FileIOError(.write, .ioError) }
            base += written
            remaining -= written
        }
    }

    /// Writes every byte of `bytes` (see ``writeAll(_:)-(UnsafeRawBufferPointer)``).
    public func writeAll(_ bytes: [UInt8]) throws(FileIOError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(FileIOError) in try writeAll(buffer) } }.get()
    }

    /// Writes `text` as UTF-8 (see ``writeAll(_:)-(UnsafeRawBufferPointer)``).
    public func writeAll(_ text: String) throws(FileIOError) {
        var text = text
        try text.withUTF8 { utf8 in Result { () throws(FileIOError) in try writeAll(UnsafeRawBufferPointer(utf8)) } }.get()
    }

    /// Flushes this file's data and metadata to stable storage (`fsync(2)`): after it, a
    /// crash or power cut keeps what was written.
    public func sync() throws(FileIOError) {
        _ = try systemCall(.fsync) { fsync(rawValue) }
    }

    /// Flushes the whole file system holding this descriptor (`syncfs(2)`): one journal
    /// commit for every file written there, where an fsync per file costs one each. It
    /// reports the write-back errors of that file system since this descriptor was opened,
    /// so open it before writing the files it vouches for.
    public func syncFileSystem() throws(FileIOError) {
        _ = try systemCall(.syncfs) { bmv_syncfs(rawValue) }
    }

    /// Sets the permission bits (`fchmod(2)`): for a file that may have been made by
    /// someone else, with a wider mode, before bmvault opened it.
    public func setPermissions(_ permissions: UInt32) throws(FileIOError) {
        _ = try systemCall(.chmod) { fchmod(rawValue, permissions) }
    }

    /// Takes an exclusive advisory lock (`flock(2)`) on the file: waiting for another
    /// process to release it when `waiting`, else returning false at once if one holds it.
    /// The kernel releases it when the file is closed, even if the process dies.
    public func lockExclusively(waiting: Bool) throws(FileIOError) -> Bool {
        do throws(FileIOError) {
            _ = try systemCall(.flock) { flock(rawValue, waiting ? LOCK_EX : LOCK_EX | LOCK_NB) }
            return true
        } catch where error.errno == .wouldBlock {
            return false
        }
    }

    /// Releases a lock taken with ``lockExclusively(waiting:)`` before the file is closed.
    public func unlock() throws(FileIOError) {
        _ = try systemCall(.flock) { flock(rawValue, LOCK_UN) }
    }

    /// Closes the descriptor. Never retried: Linux frees the number even when `close` is
    /// interrupted, and another thread may already have been given it. A failure can be
    /// the first report of a write that did not reach the disk.
    public func close() throws(FileIOError) {
        let result = Glibc.close(rawValue)
        let code = Errno(rawValue: errno)
        // An injected fault is checked after closing, so a test does not leak the descriptor.
        try InjectedFaults.check(.close)
        guard result == 0 else { throw FileIOError(.close, code) }
    }
}
