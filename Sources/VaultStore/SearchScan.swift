import Dispatch
import Journal
import Synchronization
import VaultCrypto

/// The decrypting half of a search scan, shared between the thread that reads the rows and
/// one helper thread: rows are copied (still sealed) into batches, and most batches are
/// opened and matched on the helper, so the two CPUs of a small machine both decrypt.
///
/// Only ciphertext is copied; each thread opens into its own ``FieldOpener``, whose
/// plaintext buffer is wiped when the scan ends. A value that does not open counts as a
/// match, so that the listing reports the record.
final class SearchScan {
    /// Sealed rows, back to back: each row's id, body, locator and comment are ranges of `bytes`,
    /// with the terms the row itself must hold (those its book's title and authors do not).
    /// Batches are reused (``batch()``), so a scan allocates a handful, not one per thousand
    /// rows (a fresh half-megabyte buffer per batch cost ~140 page faults each: 16,000 in a
    /// search of 100,000 notes, 90 ms of system time).
    ///
    /// why `@unchecked Sendable`: a batch is filled by the reading thread, then handed to
    /// exactly one matcher, then back to the pool; never used by two threads at once.
    final class Batch: @unchecked Sendable {
        private(set) var rowIDs: [Int64] = []
        private(set) var bytes: [UInt8] = []
        private(set) var fields: [(id: Range<Int>, body: Range<Int>, locator: Range<Int>?, comment: Range<Int>?, wanted: UInt64)] = []

        var count: Int { rowIDs.count }

        func append(rowID: Int64, id: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, locator: UnsafeRawBufferPointer?,
                    comment: UnsafeRawBufferPointer?, wanted: UInt64) {
            func copy(_ value: UnsafeRawBufferPointer) -> Range<Int> {
                let start = bytes.count
                bytes.append(contentsOf: value)
                return start..<bytes.count
            }
            rowIDs.append(rowID)
            fields.append((copy(id), copy(body), locator.map(copy), comment.map(copy), wanted))
        }

        fileprivate func empty() {
            rowIDs.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
            fields.removeAll(keepingCapacity: true)
        }
    }

    /// Rows per batch: big enough that handing one over costs nothing next to opening it,
    /// small enough (about 0.5 MB) that two in flight stay far from the memory target.
    static let batchSize = 1_000

    private let local: Matcher
    private let helper: Helper
    private let pool: Pool

    init(query: SearchQuery, sealer: FieldSealer) throws(CryptoError) {
        pool = Pool()
        local = try Matcher(query: query, sealer: sealer)
        helper = Helper(matcher: try Matcher(query: query, sealer: sealer), pool: pool)
    }

    /// An empty batch to fill.
    func batch() -> Batch { pool.take() }

    /// Matches `batch` here or on the helper, and then returns it to the pool. This thread
    /// also reads the rows (about a fifth of the work), so it takes two batches in five.
    func submit(_ batch: Batch, sequence: Int) -> [Int64] {
        guard Self.isForHelper(sequence) else {
            let found = local.matchingRows(batch)
            pool.give(batch)
            return found
        }
        helper.submit(batch)
        return []
    }

    private static func isForHelper(_ sequence: Int) -> Bool { ![1, 3].contains(sequence % 5) }

    /// Waits for the helper and returns what it found.
    func finish() -> [Int64] { helper.finish() }

    /// Emptied batches waiting to be filled again.
    private final class Pool: Sendable {
        private let batches = Mutex<[Batch]>([])

        func take() -> Batch { batches.withLock { $0.popLast() } ?? Batch() }

        func give(_ batch: Batch) {
            batch.empty()
            batches.withLock { $0.append(batch) }
        }
    }

    /// One thread's openers and matcher.
    final class Matcher {
        private let matcher: SearchMatcher
        private let bodies: FieldOpener
        private let locators: FieldOpener
        private let comments: FieldOpener

        init(query: SearchQuery, sealer: FieldSealer) throws(CryptoError) {
            matcher = SearchMatcher(query)
            bodies = try sealer.opener(table: "annotation", field: "body")
            locators = try sealer.opener(table: "annotation", field: "locator")
            comments = try sealer.opener(table: "annotation", field: "comment")
        }

        func matchingRows(_ batch: Batch) -> [Int64] {
            batch.bytes.withUnsafeBytes { bytes in
                var found: [Int64] = []
                for (index, field) in batch.fields.enumerated() {
                    let id = UnsafeRawBufferPointer(rebasing: bytes[field.id])
                    func terms(_ wanted: UInt64, in opener: FieldOpener, _ range: Range<Int>) -> UInt64? {
                        try? opener.open(UnsafeRawBufferPointer(rebasing: bytes[range]), recordID: id) {
                            matcher.terms(wanted, foundIn: $0)
                        }
                    }
                    // The terms still missing after the body, then the locator, then the comment
                    // (a quote's, schema v16); a field that does not open includes the row.
                    func stillMissing(_ missing: UInt64, in opener: FieldOpener, _ range: Range<Int>?) -> UInt64? {
                        guard missing != 0, let range else { return missing }
                        return terms(missing, in: opener, range).map { missing & ~$0 }
                    }
                    let include = stillMissing(field.wanted, in: bodies, field.body)
                        .flatMap { stillMissing($0, in: locators, field.locator) }
                        .flatMap { stillMissing($0, in: comments, field.comment) }
                        .map { $0 == 0 } ?? true
                    if include { found.append(batch.rowIDs[index]) }
                }
                return found
            }
        }
    }

    /// The helper thread: a serial queue with at most two batches waiting.
    ///
    /// why `@unchecked Sendable`: `matcher` is used only on `queue`, one batch after the
    /// other, and `found` is behind a mutex; the semaphore bounds what is in flight.
    private final class Helper: @unchecked Sendable {
        private let matcher: Matcher
        private let pool: Pool
        private let queue = DispatchQueue(label: "bmvault.search")
        private let slots = DispatchSemaphore(value: 2)
        private let found = Mutex<[Int64]>([])

        init(matcher: Matcher, pool: Pool) {
            self.matcher = matcher
            self.pool = pool
        }

        func submit(_ batch: Batch) {
            slots.wait()
            queue.async { [self] in
                let rows = matcher.matchingRows(batch)
                found.withLock { $0.append(contentsOf: rows) }
                pool.give(batch)
                slots.signal()
            }
        }

        func finish() -> [Int64] {
            queue.sync {}
            return found.withLock { $0 }
        }
    }
}
