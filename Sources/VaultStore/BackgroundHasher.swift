import Dispatch
import VaultCrypto

/// The SHA-256 of a book file, computed on a second thread while `file add` seals and writes
/// the same chunks on its own (or `file export`, `open`, `verify` and `export --with-files`
/// open them), so that on two cores the file takes the longer of the two, not their sum. Made
/// when libsodium's SHA-256 (no SHA extensions) took longer than sealing or opening and writing
/// together; libcrypto's (issue 42) takes a fraction of that, and whether the second thread
/// still pays for itself has not been measured since (Docs/PERFORMANCE.md, section 27).
///
/// The other thread puts the plaintext into ``buffers`` chunk buffers in turn. At most `buffers - 1`
/// chunks wait to be hashed, and chunks are hashed in order, so when a buffer comes round
/// again its last chunk has been hashed (see ``submit(_:)``).
final class BackgroundHasher: @unchecked Sendable {
    static let buffers = 3

    private let queue = DispatchQueue(label: "org.bmvault.files.hasher")
    private let slots = DispatchSemaphore(value: buffers - 1)
    /// Touched only on `queue`.
    private var hasher = SHA256()

    /// Hashes `chunk` after those handed over before it. The bytes must stay untouched until
    /// `buffers - 1` more chunks have been handed over, or until ``drain()``.
    func submit(_ chunk: UnsafeRawBufferPointer) {
        slots.wait()
        let bytes = BorrowedBytes(buffer: chunk)
        queue.async {
            self.hasher.update(bytes.buffer)
            self.slots.signal()
        }
    }

    /// Waits until every chunk handed over has been hashed: call it before the buffers go.
    func drain() {
        queue.sync {}
    }

    /// The digest of everything handed over, as 64 lowercase hex characters.
    func finalizeHex() -> String {
        queue.sync { hasher.finalizeHex() }
    }

    /// Bytes lent to the hashing thread, which the adding thread leaves alone meanwhile.
    private struct BorrowedBytes: @unchecked Sendable {
        let buffer: UnsafeRawBufferPointer
    }
}
