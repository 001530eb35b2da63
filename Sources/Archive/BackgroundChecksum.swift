import Dispatch
import Synchronization

/// journal.json's check against its manifest entry (size and SHA-256), made on another
/// thread while the import reads and merges its records: hashing 60 MB takes about a
/// quarter of a second, which then costs nothing on a second core. ``verify()`` waits for
/// it; the import calls it before it commits, and before it reports any other error, so a
/// damaged journal.json is still reported as such, and never merged.
final class BackgroundChecksum: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<Bool, ArchiveError>?>(nil)
    /// The entry's place in the manifest's files, from 1 (``ArchiveError/checksumMismatch(entry:)``).
    private let number: Int

    init(path: String, entry: ArchiveFileEntry, number: Int) {
        self.number = number
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(ArchiveError) -> Bool in try ArchiveReader.matches(path, entry) == true }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Waits for the check; throws ``ArchiveError/checksumMismatch(entry:)`` when the file
    /// differs from the manifest (or the error reading it).
    func verify() throws(ArchiveError) {
        done.wait()
        done.signal()   // a later call does not wait forever
        switch outcome.withLock({ $0 }) {
        case .success(true): return
        case .success(false), nil: throw .checksumMismatch(entry: number)
        case .failure(let error): throw error
        }
    }
}
