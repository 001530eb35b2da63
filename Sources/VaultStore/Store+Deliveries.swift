import Journal
public import SyncWire
import VaultCrypto

extension Store {
    /// Operations `remote` does not have yet and that may be tried now, oldest first, each
    /// as its sealed bytes and file name.
    ///
    /// An operation waits while an earlier one on the same record has not reached this
    /// remote yet (it failed, or waits out its backoff), so every device receives a record's
    /// changes in the order they were made. Each payload is checked to open before it is
    /// offered: one that does not (damaged at rest) is `failed`, kept and reported, never
    /// sent for other devices to refuse. A row from before the operation format is converted
    /// once, and kept converted.
    public func operationsToPush(to remote: String, limit: Int) throws(StoreError) -> [OutgoingOperation] {
        let cipher = try requireCipher()
        return try database.writeTransaction { () throws(StoreError) -> [OutgoingOperation] in
            var rows: [PendingRow] = []
            try database.forEachRow("""
                SELECT o.id, o.idempotency_key, o.entity, o.action, o.entity_id, o.hlc, o.base_hlc, o.attempt_count, o.payload,
                       o.payload_format
                FROM outbox o
                WHERE o.state IN ('pending', 'in_flight')
                  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?2)
                  AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.operation_id = o.id AND d.remote = ?1)
                  AND NOT EXISTS (SELECT 1 FROM outbox e
                                  WHERE e.entity_id = o.entity_id AND e.id < o.id
                                    AND (e.state = 'failed' OR (e.state != 'done' AND e.next_attempt_at > ?2))
                                    AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.operation_id = e.id AND d.remote = ?1))
                ORDER BY o.id LIMIT ?3
                """, [.text(remote), .integer(clock.now().millisecondsSince1970), .integer(Int64(limit))]) { row in
                rows.append(PendingRow(id: row.int64(0), key: row.text(1), entity: OutboxEntity(rawValue: row.text(2)),
                                       action: OutboxAction(rawValue: row.text(3)), entityID: row.text(4),
                                       clock: try? HybridTimestamp(parsing: row.text(5)),
                                       base: row.isNull(6) ? nil : try? HybridTimestamp(parsing: row.text(6)),
                                       attempts: Int(row.int64(7)), payload: row.blob(8),
                                       format: OutboxPayloadFormat(rawValue: row.int64(9))))
            }
            var operations: [OutgoingOperation] = []
            for row in rows {
                guard let clock = row.clock, let sealed = try sendable(row, cipher: cipher, clock: clock) else {
                    // An operation that cannot be read can never be sent: failed, kept, and reported.
                    try recordPushFailureInTransaction(row.id, errorClass: "unreadable", retryAfterMilliseconds: nil)
                    continue
                }
                operations.append(OutgoingOperation(outboxID: row.id, fileName: OperationFileName.make(clock: clock, idempotencyKey: row.key),
                                                    sealed: sealed, entityID: row.entityID, attempts: row.attempts))
            }
            return operations
        }
    }

    private struct PendingRow {
        let id: Int64, key: String, entity: OutboxEntity?, action: OutboxAction?, entityID: String
        let clock: HybridTimestamp?, base: HybridTimestamp?, attempts: Int, payload: [UInt8], format: OutboxPayloadFormat?
    }

    /// The bytes to send for `row`, or nil when its payload does not open.
    private func sendable(_ row: PendingRow, cipher: RecordCipher, clock: HybridTimestamp) throws(StoreError) -> [UInt8]? {
        switch row.format {
        case .operation?:
            // Checked before it leaves: a payload that no longer opens is not sent.
            guard var plain = try? cipher.operations.open(operation: row.payload, idempotencyKey: row.key) else { return nil }
            wipe(&plain)
            return row.payload
        case .record?:
            guard let entity = row.entity, let action = row.action,
                  var payload = try? cipher.sealer.open(row.payload, table: "outbox", recordID: row.key, field: "payload") else { return nil }
            defer { wipe(&payload) }
            guard case .operation(let operation)? = try? OperationDocument.decodeLegacyOutboxRow(
                      payload: payload, idempotencyKey: row.key, deviceID: deviceID, clock: clock, base: row.base,
                      entity: entity, action: action, entityID: row.entityID) else { return nil }
            let sealed = try cipher.sealOperation(operation)
            try database.run("UPDATE outbox SET payload = ?2, payload_format = ?3 WHERE id = ?1",
                             [.integer(row.id), .blob(sealed), .integer(OutboxPayloadFormat.operation.rawValue)])
            return sealed
        case nil:
            return nil
        }
    }

    /// Records that `remote` has these operations; each one every remote has is done.
    public func markDelivered(_ ids: [Int64], to remote: String) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try database.writeTransaction { () throws(StoreError) in
            let now = clock.now().millisecondsSince1970
            try database.execute("CREATE TEMP TABLE IF NOT EXISTS delivered_now (id INTEGER PRIMARY KEY); DELETE FROM delivered_now;")
            for id in ids {
                try database.run("INSERT OR IGNORE INTO delivered_now (id) VALUES (?)", [.integer(id)])
            }
            try database.run("""
                INSERT OR IGNORE INTO outbox_delivery (operation_id, remote, delivered_at) SELECT id, ?, ? FROM delivered_now
                """, [.text(remote), .integer(now)])
            // Each record's newest delivered version is now known outside this device.
            for table in ["annotation", "book"] {
                try database.execute("""
                    UPDATE \(table) SET synced_hlc = delivered.hlc
                    FROM (SELECT o.entity_id, max(o.hlc) AS hlc FROM outbox o JOIN delivered_now d ON d.id = o.id
                          GROUP BY o.entity_id) AS delivered
                    WHERE \(table).id = delivered.entity_id AND (\(table).synced_hlc IS NULL OR \(table).synced_hlc < delivered.hlc)
                    """)
            }
            try completeDeliveredOperations()
        }
    }

    /// Records a failed attempt: a temporary failure waits `retryAfterMilliseconds` (by this
    /// store's clock); a permanent one (nil) moves the operation to `failed`, kept with its
    /// error class, until `retry-failed`.
    public func recordPushFailure(_ id: Int64, errorClass: String, retryAfterMilliseconds: Int64?) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try recordPushFailureInTransaction(id, errorClass: errorClass, retryAfterMilliseconds: retryAfterMilliseconds)
        }
    }

    private func recordPushFailureInTransaction(_ id: Int64, errorClass: String, retryAfterMilliseconds: Int64?) throws(StoreError) {
        let now = clock.now().millisecondsSince1970
        try database.run("""
            UPDATE outbox SET attempt_count = attempt_count + 1, last_attempt_at = ?2, last_error_class = ?3,
                              next_attempt_at = ?4, state = CASE WHEN ?4 IS NULL THEN 'failed' ELSE 'pending' END
            WHERE id = ?1
            """, [.integer(id), .integer(now), .text(errorClass), .integer(retryAfterMilliseconds.map { now + $0 })])
    }

    /// Puts every failed operation back in line, to be tried at the next sync. Returns how many.
    @discardableResult
    public func retryFailedOperations() throws(StoreError) -> Int {
        try database.writeTransaction { () throws(StoreError) -> Int in
            try database.run("UPDATE outbox SET state = 'pending', next_attempt_at = NULL WHERE state = 'failed'")
            return database.changes
        }
    }
}

extension Store {
    /// Marks `done` every waiting operation that every remote now has.
    func completeDeliveredOperations() throws(StoreError) {
        try database.run("""
            UPDATE outbox SET state = 'done', next_attempt_at = NULL
            WHERE state IN ('pending', 'in_flight')
              AND EXISTS (SELECT 1 FROM remote)
              AND NOT EXISTS (SELECT 1 FROM remote r WHERE NOT EXISTS (
                    SELECT 1 FROM outbox_delivery d WHERE d.operation_id = outbox.id AND d.remote = r.name))
            """)
    }
}
