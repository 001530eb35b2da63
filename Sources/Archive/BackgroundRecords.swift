import Dispatch
import Synchronization

/// journal.json read on another thread: its records are parsed and checked there, while the
/// importing thread merges the ones before them into the vault. Parsing a 100,000-note
/// journal is about a quarter of an import's work on the importing thread.
///
/// Records arrive in file order, ``batchSize`` at a time, and at most
/// ``maximumBatchesInFlight`` batches wait, so memory does not grow with the archive. A
/// malformed record ends the stream: the records before it are handed over first, then its
/// error, exactly as reading on one thread would. ``stop()`` (also on the way out of an
/// error) ends the reading thread and waits for it.
final class BackgroundRecords: Sendable {
    typealias Record = (record: ArchiveRecord, origin: ArchiveRecordOrigin)
    /// Hands one record to the reading side; false when the importing side has stopped.
    typealias Emit = (ArchiveRecord, ArchiveRecordOrigin) -> Bool

    static let batchSize = 256
    static let maximumBatchesInFlight = 8

    private struct State {
        var waiting: [[Record]] = []
        var end: Result<Void, ArchiveError>?
        var stopped = false
    }

    private let state = Mutex(State())
    /// Signalled once per batch handed over, and once for the end.
    private let ready = DispatchSemaphore(value: 0)
    /// Room for batches in flight. why made at 0 and signalled up: libdispatch traps when a
    /// semaphore goes away below the value it was made with, which is what `slots` is when
    /// the importing side stops early (a merge error) with batches still waiting.
    private let slots = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `read` on another thread. It calls `emit` for every record, in order, and
    /// returns (or throws) when the file is read; it should return early when `emit` says so.
    init(_ read: @escaping @Sendable (_ emit: Emit) throws(ArchiveError) -> Void) {
        for _ in 0..<Self.maximumBatchesInFlight { slots.signal() }
        DispatchQueue.global().async { [self] in
            var batch: [Record] = []
            batch.reserveCapacity(Self.batchSize)
            let outcome = Result { () throws(ArchiveError) in
                try read { record, origin in
                    batch.append((record, origin))
                    guard batch.count == Self.batchSize else { return true }
                    defer { batch.removeAll(keepingCapacity: true) }
                    return hand(over: batch)
                }
            }
            if !batch.isEmpty { _ = hand(over: batch) }
            state.withLock { $0.end = outcome }
            ready.signal()
            finished.signal()
        }
    }

    /// The next records in file order; nil at the end. Throws what the reading side threw,
    /// once every record before it has been returned.
    func next() throws(ArchiveError) -> [Record]? {
        ready.wait()
        let (batch, end): ([Record]?, Result<Void, ArchiveError>?) = state.withLock { state in
            guard state.waiting.isEmpty else { return (state.waiting.removeFirst(), nil) }
            return (nil, state.end)
        }
        if let batch {
            slots.signal()
            return batch
        }
        ready.signal()   // the end stays the end for a later call
        try end?.get()
        return nil
    }

    /// Ends the reading thread (at its next batch) and waits for it. Safe to call twice.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        slots.signal()   // a reading thread waiting for room sees `stopped`
        finished.wait()
        finished.signal()
    }

    /// Queues a batch, waiting for room; false once the importing side has stopped.
    private func hand(over batch: [Record]) -> Bool {
        slots.wait()
        let accepted = state.withLock { state in
            guard !state.stopped else { return false }
            state.waiting.append(batch)
            return true
        }
        if accepted { ready.signal() } else { slots.signal() }
        return accepted
    }
}
