#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import VaultCrypto

/// One archive file as the ``BackgroundWriter`` thread sees it: its descriptor, the size and
/// SHA-256 of what was written so far, and the first failure. After a failure every later
/// write is skipped; ``entry()`` reports it.
final class FileSink: Sendable {
    private struct State {
        var descriptor: Int32
        /// Nil for a file that is not in the manifest (the quotes kept aside).
        var hasher: SHA256?
        var size: Int64 = 0
        var failure: ArchiveError?
    }

    /// Relative to the archive directory, as the manifest lists it.
    let path: String
    /// How errors name the file (a book's file by its short id only).
    private let displayName: String
    private let state: Mutex<State>

    init(descriptor: Int32, path: String, displayName: String, hashed: Bool) {
        self.path = path
        self.displayName = displayName
        state = Mutex(State(descriptor: descriptor, hasher: hashed ? SHA256() : nil))
    }

    deinit {
        // A file dropped before it was finished (a failed export): its descriptor still goes.
        state.withLock { state in
            if state.descriptor >= 0 { Glibc.close(state.descriptor) }
        }
    }

    /// Hashes and writes `chunk` after what came before it.
    func write(_ chunk: [UInt8]) {
        state.withLock { state in
            guard state.failure == nil, state.descriptor >= 0 else { return }
            state.hasher?.update(chunk)
            state.size += Int64(chunk.count)
            let failed: Int32? = chunk.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(state.descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failed { state.failure = .io(operation: "write", path: displayName, errno: failed) }
        }
    }

    /// Closes the file. Its bytes reach the disk with the one `syncfs` of the whole archive
    /// (``StagingDirectory/commit()``), not a flush per file.
    func close() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            if Glibc.close(state.descriptor) != 0, state.failure == nil {
                state.failure = .io(operation: "close", path: displayName, errno: errno)
            }
            state.descriptor = -1
        }
    }

    /// What the manifest lists for the file, or the first failure. Call once the writer
    /// thread has drained.
    func entry() throws(ArchiveError) -> ArchiveFileEntry {
        try state.withLock { (state) throws(ArchiveError) -> ArchiveFileEntry in
            if let failure = state.failure { throw failure }
            return ArchiveFileEntry(path: path, bytes: state.size, sha256: state.hasher?.finalizeHex() ?? "")
        }
    }
}
