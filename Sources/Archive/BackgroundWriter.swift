import Dispatch

/// The second thread of an export: the bytes of every archive file are hashed (SHA-256, for
/// the manifest) and written there, in the order they were handed over, while the exporting
/// thread decrypts and formats the next records. Hashing a 100,000-note archive (about
/// 120 MB) with libsodium takes about as long as formatting it, so side by side, on two
/// cores, the two take half the time.
///
/// At most ``maximumChunksInFlight`` chunks wait: when this thread falls behind, the
/// exporting thread waits for it, so memory does not grow with the journal.
final class BackgroundWriter: Sendable {
    static let maximumChunksInFlight = 16

    private let queue = DispatchQueue(label: "org.bmvault.archive.writer")
    private let slots = DispatchSemaphore(value: maximumChunksInFlight)

    /// Runs `work` on the writer thread, after everything handed over before it.
    func submit(_ work: @escaping @Sendable () -> Void) {
        slots.wait()
        queue.async {
            work()
            self.slots.signal()
        }
    }

    /// Waits until everything handed over so far is done.
    func drain() {
        queue.sync {}
    }
}
