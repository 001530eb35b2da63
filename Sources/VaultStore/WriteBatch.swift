import Journal

/// What a write transaction of many records (an archive import) keeps in memory and writes
/// just before it commits, instead of once per record:
///
/// - the device's clock: read once, advanced in memory, written once (``Store/tick()``);
/// - the outbox operations, ``rowsPerStatement`` rows per INSERT, so SQLite binds, steps
///   and resets one statement per 128 rows instead of one per row. The rows keep their
///   order, so their ids are what one-by-one inserts give.
///
/// Nothing inside such a transaction may read the outbox or the clock row but through the
/// batch (``OutboxTable/enqueue(_:_:clock:at:baseVersion:base:state:)`` and
/// ``Store/tick()`` do). On an error nothing of it is written; the transaction rolls back.
final class WriteBatch {
    static let rowsPerStatement = 128

    /// The newest clock reading, not yet written.
    var clock: HybridTimestamp?
    /// Outbox rows waiting, their values one after another.
    private var operations: [SQLValue] = []
    private var waiting = 0

    /// Queues one outbox row; every ``rowsPerStatement`` rows go in one INSERT.
    func appendOperation(_ values: [SQLValue], to database: Database) throws(StoreError) {
        operations.append(contentsOf: values)
        waiting += 1
        if waiting == Self.rowsPerStatement { try writeOperations(to: database) }
    }

    /// Writes everything kept: the waiting outbox rows, then the clock.
    func flush(to database: Database) throws(StoreError) {
        try writeOperations(to: database)
        if let clock { try DeviceClock.write(clock, to: database) }
    }

    private func writeOperations(to database: Database) throws(StoreError) {
        guard waiting > 0 else { return }
        try database.run(OutboxTable.insert(rows: waiting), operations)
        operations.removeAll(keepingCapacity: true)
        waiting = 0
    }
}

extension Store {
    /// Runs `body`, a part of a write transaction that writes many records, with a
    /// ``WriteBatch``, and writes what it kept when `body` returns. Rethrows what `body`
    /// throws, having written nothing more; the caller rolls back.
    func withWriteBatch<Result>(_ body: () throws -> Result) throws -> Result {
        precondition(writeBatch == nil, "write batches do not nest")
        let batch = WriteBatch()
        writeBatch = batch
        defer { writeBatch = nil }
        let result = try body()
        try batch.flush(to: database)
        return result
    }
}
