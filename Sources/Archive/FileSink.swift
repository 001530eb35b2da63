internal import FileIO
import Synchronization
import VaultCrypto

/// One archive file as the ``BackgroundWriter`` thread sees it: its descriptor, the size and
/// SHA-256 of what was written so far, and the first failure. After a failure every later
/// write is skipped; ``entry()`` reports it.
final class FileSink: Sendable {
    private struct State {
        /// Nil once closed.
        var descriptor: FileDescriptor?
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

    init(descriptor: FileDescriptor, path: String, displayName: String, hashed: Bool) {
        self.path = path
        self.displayName = displayName
        state = Mutex(State(descriptor: descriptor, hasher: hashed ? SHA256() : nil))
    }

    deinit {
        // A file dropped before it was finished (a failed export): its descriptor still goes.
        state.withLock { state in
            try? state.descriptor?.close()
        }
    }

    /// Hashes and writes `chunk` after what came before it.
    func write(_ chunk: [UInt8]) {
        state.withLock { state in
            guard state.failure == nil, let descriptor = state.descriptor else { return }
            state.hasher?.update(chunk)
            state.size += Int64(chunk.count)
            do throws(FileIOError) { try descriptor.writeAll(chunk) } catch { state.failure = .io(error, path: displayName) }
        }
    }

    /// Closes the file. Its bytes reach the disk with the one `syncfs` of the whole archive
    /// (``StagingDirectory/commit()``), not a flush per file.
    func close() {
        state.withLock { state in
            guard let descriptor = state.descriptor else { return }
            state.descriptor = nil
            do throws(FileIOError) { try descriptor.close() } catch { if state.failure == nil { state.failure = .io(error, path: displayName) } }
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
