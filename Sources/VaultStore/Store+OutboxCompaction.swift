import Journal
import SyncWire

extension Store {
    /// How many operations one call to ``compactOutbox(limit:)`` handles by default (one
    /// step of a sync's compaction: a few milliseconds).
    public static let outboxCompactionBatch = 5_000

    /// Keeps in the outbox only what a remote still needs, at most `limit` operations per
    /// call; returns how many it compacted (fewer than `limit`: nothing is left to do).
    ///
    /// - An operation every remote has keeps only the name of its file and its action, in
    ///   `sent_operation`: the file is removed once its record's deletion is acknowledged
    ///   everywhere (tombstone compaction). Its sealed payload goes.
    /// - With no remote at all, waiting and finished operations go whole, and so does the
    ///   record of files sent (``discardOutboxIfNoRemote()``).
    ///
    /// Operations failed for good stay, with their context, until `--retry-failed`.
    @discardableResult
    public func compactOutbox(limit: Int = Store.outboxCompactionBatch) throws(StoreError) -> Int {
        try database.writeTransaction { () throws(StoreError) -> Int in
            guard try !discardOutboxIfNoRemote() else { return 0 }
            var finished: [(id: Int64, sent: [SQLValue]?)] = []
            try database.forEachRow("""
                SELECT id, entity_id, idempotency_key, hlc, action FROM outbox WHERE state = 'done' ORDER BY id LIMIT ?
                """, [.integer(Int64(limit))]) { row in
                finished.append((row.int64(0), Self.sentOperationRow(entityID: row.text(1), key: row.text(2), clock: row.text(3),
                                                                      action: row.text(4), ownDevice: deviceID)))
            }
            for operation in finished {
                // One that names no file of this device's (it cannot: ids and clocks are
                // checked when written) has nothing to remove later either.
                if let sent = operation.sent {
                    try database.run("""
                        INSERT OR IGNORE INTO sent_operation (entity_id, idempotency_key, wall, counter, action) VALUES (?, ?, ?, ?, ?)
                        """, sent)
                }
                try database.run("DELETE FROM outbox WHERE id = ?", [.integer(operation.id)])
            }
            return finished.count
        }
    }

    /// With no remote, nothing is on a remote, and a remote added later receives a snapshot
    /// of the journal as it then stands (``enqueueSnapshot(for:)``): the operations waiting
    /// or done go, and so does the record of files sent (files on a remote that was removed
    /// are no longer this vault's to remove). Failed ones stay, as a report. Call inside a
    /// write transaction. Returns whether there was no remote.
    func discardOutboxIfNoRemote() throws(StoreError) -> Bool {
        var hasRemote = false
        try database.forEachRow("SELECT 1 FROM remote LIMIT 1") { _ in hasRemote = true }
        guard !hasRemote else { return false }
        try database.run("DELETE FROM outbox WHERE state <> 'failed'")
        try database.run("DELETE FROM sent_operation")
        return true
    }

    /// Compacts until nothing is left (a sync's end, after every remote took what it needed).
    public func compactWholeOutbox() throws(StoreError) {
        while try compactOutbox() == Self.outboxCompactionBatch {}
    }

    /// The values of a `sent_operation` row, or nil when the outbox row does not name a
    /// file of this device's.
    private static func sentOperationRow(entityID: String, key: String, clock: String, action: String,
                                         ownDevice: String) -> [SQLValue]? {
        guard let entity = try? EntityID(validating: entityID), let key = try? EntityID(validating: key),
              let clock = try? HybridTimestamp(parsing: clock), clock.deviceID == ownDevice,
              OutboxAction(rawValue: action) != nil else { return nil }
        return [.text(entity.rawValue), .blob(key.bytes), .integer(clock.wallMilliseconds), .integer(Int64(clock.counter)), .text(action)]
    }

    /// This device's sent operations about `id` (their files may still be on the remotes),
    /// in the order they were made: those still in the outbox and those compacted.
    func sentOperations(about id: EntityID) throws(StoreError) -> [SentOperation] {
        var operations: [SentOperation] = []
        try database.forEachRow("SELECT hlc, idempotency_key, action FROM outbox WHERE entity_id = ? ORDER BY id",
                                [.text(id.rawValue)]) { row in
            guard let clock = try? HybridTimestamp(parsing: row.text(0)), let action = OutboxAction(rawValue: row.text(2)) else { return }
            operations.append(SentOperation(clock: clock, idempotencyKey: row.text(1), action: action))
        }
        try database.forEachRow("SELECT wall, counter, idempotency_key, action FROM sent_operation WHERE entity_id = ?",
                                [.text(id.rawValue)]) { row in
            guard let key = try? EntityID(bytes: row.blob(2)), let action = OutboxAction(rawValue: row.text(3)),
                  let counter = UInt32(exactly: row.int64(1)) else { return }
            let clock = HybridTimestamp(wallMilliseconds: row.int64(0), counter: counter, deviceID: deviceID)
            operations.append(SentOperation(clock: clock, idempotencyKey: key.rawValue, action: action))
        }
        return operations.sorted { $0.clock < $1.clock }
    }
}
