public import Journal
import VaultCrypto

/// An operation on its way to a remote: its clear parts, and its payload opened from the
/// outbox, to be sealed again for the remote. The payload is journal content: memory only.
public struct OutgoingOperation: Sendable {
    public let outboxID: Int64
    public let idempotencyKey: String
    public let entity: OutboxEntity
    public let action: OutboxAction
    public let entityID: String
    public let clock: HybridTimestamp
    /// The clock of the version this operation changed; nil for a creation.
    public let base: HybridTimestamp?
    public let attempts: Int
    /// The record after the change, as JSON (``OutboxPayload``).
    public let payload: [UInt8]
}

extension Store {
    /// Operations `remote` does not have yet and that may be tried now, oldest first.
    ///
    /// An operation waits while an earlier one on the same record has not reached this
    /// remote yet (it failed, or waits out its backoff), so every device receives a record's
    /// changes in the order they were made.
    public func operationsToPush(to remote: String, limit: Int) throws(StoreError) -> [OutgoingOperation] {
        let cipher = try requireCipher()
        var operations: [OutgoingOperation] = []
        var unreadable: [Int64] = []
        try database.forEachRow("""
            SELECT o.id, o.idempotency_key, o.entity, o.action, o.entity_id, o.hlc, o.base_hlc, o.attempt_count, o.payload
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
            let key = row.text(1)
            guard let entity = OutboxEntity(rawValue: row.text(2)), let action = OutboxAction(rawValue: row.text(3)),
                  let clock = try? HybridTimestamp(parsing: row.text(5)),
                  let payload = try? cipher.sealer.open(row.blob(8), table: "outbox", recordID: key, field: "payload") else {
                unreadable.append(row.int64(0))
                return
            }
            operations.append(OutgoingOperation(
                outboxID: row.int64(0), idempotencyKey: key, entity: entity, action: action, entityID: row.text(4),
                clock: clock, base: row.isNull(6) ? nil : try? HybridTimestamp(parsing: row.text(6)),
                attempts: Int(row.int64(7)), payload: payload))
        }
        // An operation that cannot be read can never be sent: failed, kept, and reported.
        for id in unreadable {
            try recordPushFailure(id, errorClass: "unreadable", retryAfterMilliseconds: nil)
        }
        return operations
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
            let now = clock.now().millisecondsSince1970
            try database.run("""
                UPDATE outbox SET attempt_count = attempt_count + 1, last_attempt_at = ?2, last_error_class = ?3,
                                  next_attempt_at = ?4, state = CASE WHEN ?4 IS NULL THEN 'failed' ELSE 'pending' END
                WHERE id = ?1
                """, [.integer(id), .integer(now), .text(errorClass), .integer(retryAfterMilliseconds.map { now + $0 })])
        }
    }

    /// Puts every failed operation back in line, to be tried at the next sync.
    @discardableResult
    public func retryFailedOperations() throws(StoreError) -> Int {
        try database.writeTransaction { () throws(StoreError) -> Int in
            try database.run("UPDATE outbox SET state = 'pending', next_attempt_at = NULL WHERE state = 'failed'")
            return database.changes
        }
    }
}

extension Store {
    /// Seals an operation for a remote, bound to this vault and its idempotency key: a file
    /// renamed, moved to another vault's folder, or altered does not open.
    public func sealRemoteOperation(_ plaintext: [UInt8], idempotencyKey: String) throws(StoreError) -> [UInt8] {
        try sealForRemote(plaintext, table: "remote-operation", recordID: idempotencyKey, field: "operation")
    }

    /// Opens an operation file from a remote (see ``sealRemoteOperation(_:idempotencyKey:)``).
    public func openRemoteOperation(_ sealed: [UInt8], idempotencyKey: String) throws(StoreError) -> [UInt8] {
        try openFromRemote(sealed, table: "remote-operation", recordID: idempotencyKey, field: "operation")
    }

    /// Seals this device's acknowledgement for a remote, bound to this vault and device.
    public func sealRemoteAcknowledgement(_ plaintext: [UInt8], device: String) throws(StoreError) -> [UInt8] {
        try sealForRemote(plaintext, table: "remote-acknowledgement", recordID: device, field: "acknowledgement")
    }

    /// Opens another device's acknowledgement (see ``sealRemoteAcknowledgement(_:device:)``).
    public func openRemoteAcknowledgement(_ sealed: [UInt8], device: String) throws(StoreError) -> [UInt8] {
        try openFromRemote(sealed, table: "remote-acknowledgement", recordID: device, field: "acknowledgement")
    }

    private func sealForRemote(_ plaintext: [UInt8], table: String, recordID: String, field: String) throws(StoreError) -> [UInt8] {
        let cipher = try requireCipher()
        do { return try cipher.sealer.seal(plaintext, table: table, recordID: recordID, field: field) } catch { throw .crypto(error) }
    }

    private func openFromRemote(_ sealed: [UInt8], table: String, recordID: String, field: String) throws(StoreError) -> [UInt8] {
        let cipher = try requireCipher()
        do { return try cipher.sealer.open(sealed, table: table, recordID: recordID, field: field) } catch { throw .crypto(error) }
    }
}
