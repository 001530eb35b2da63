public import Journal
public import SyncWire
import VaultCrypto

/// The life of an outbox operation: `pending` until every remote has it, then `done`;
/// `failed` (kept, with its context) when it can never succeed as it is.
public enum OutboxState: String, Sendable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case done
    case failed
}

/// How an outbox row's payload is written (`outbox.payload_format`).
enum OutboxPayloadFormat: Int64 {
    /// bmvault 0.3 to 0.5: the record's JSON, sealed for the outbox. Converted to
    /// ``operation`` the first time it is sent.
    case record = 1
    /// The whole operation (``OperationDocument``) sealed for the remotes: sent as it is.
    case operation = 2
}

extension Store {
    /// Appends the operation that records one change. Call it only inside the write
    /// transaction that makes the change, so the two commit or vanish together.
    ///
    /// The operation is written and sealed once, as it goes to every remote (bound to its
    /// idempotency key): the outbox never holds plaintext, and a push sends these bytes.
    ///
    /// A vault with no remote has nowhere to send it: it is written `done` (every remote,
    /// of none, has it), and the first operation of each transaction first removes those of
    /// earlier ones, so the outbox stays as small as the last change. A remote added later
    /// receives a snapshot of the journal instead (``enqueueSnapshot(for:)``).
    func enqueue(_ action: OutboxAction, _ record: RecordVersion, clock: HybridTimestamp, at time: Timestamp,
                 baseVersion: Int64, base: HybridTimestamp?, state: OutboxState = .pending) throws(StoreError) {
        let cipher = try requireCipher()
        let state = try hasRemoteForThisTransaction() ? state : .done
        let idempotencyKey = EntityID.generate(at: time, using: &randomIDs).rawValue
        let operation = SyncOperation(idempotencyKey: idempotencyKey, deviceID: deviceID, clock: clock, action: action, record: record)
        let sealed = try cipher.sealOperation(operation)
        let values: [SQLValue] = [.text(operation.entity.rawValue), .text(operation.entityID.rawValue), .text(action.rawValue),
                                  .blob(sealed), .integer(baseVersion), .text(idempotencyKey), .integer(time.millisecondsSince1970),
                                  .text(state.rawValue), .text(clock.description), base.map { .text($0.description) } ?? .null]
        if let writeBatch {
            try writeBatch.appendOperation(values, to: database)
        } else {
            try database.run(Self.outboxInsertOne, values)
        }
    }

    /// Whether the vault has a remote, asked once per write transaction; without one, the
    /// operations of earlier transactions go first.
    private func hasRemoteForThisTransaction() throws(StoreError) -> Bool {
        if let current = outboxTransaction, current.number == database.writeTransactionCount { return current.hasRemote }
        let hasRemote = try !discardOutboxIfNoRemote()
        outboxTransaction = (database.writeTransactionCount, hasRemote)
        return hasRemote
    }

    static let outboxInsertOne = outboxInsert(rows: 1)

    /// An INSERT of `rows` outbox operations, ten values each, in
    /// ``enqueue(_:_:clock:at:baseVersion:base:state:)``'s order.
    static func outboxInsert(rows: Int) -> String {
        let row = "(?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, \(OutboxPayloadFormat.operation.rawValue))"
        return """
            INSERT INTO outbox (entity, entity_id, action, payload, base_version, attempt_count, idempotency_key, created_at,
                                state, hlc, base_hlc, payload_format)
            VALUES \(repeatElement(row, count: rows).joined(separator: ", "))
            """
    }

    /// How many operations are in each state. Readable while locked: it holds no content.
    public func outboxCounts() throws(StoreError) -> [OutboxState: Int] {
        try Self.outboxCounts(in: database)
    }

    static func outboxCounts(in database: Database) throws(StoreError) -> [OutboxState: Int] {
        var counts: [OutboxState: Int] = [:]
        for state in OutboxState.allCases { counts[state] = 0 }
        try database.forEachRow("SELECT state, count(*) FROM outbox GROUP BY state") { row in
            if let state = OutboxState(rawValue: row.text(0)) { counts[state] = Int(row.int64(1)) }
        }
        return counts
    }
}

/// One operation in the outbox, as `bmvault outbox` shows it: never its payload.
public struct OutboxEntry: Sendable, Equatable {
    public let id: Int64
    public let entity: OutboxEntity
    public let action: OutboxAction
    public let state: OutboxState
    public let attempts: Int
    public let createdAt: Timestamp
    public let nextAttemptAt: Timestamp?
    public let lastErrorClass: String?
}

extension Store {
    /// Operations not yet done (pending, in flight, failed), oldest first.
    public func outboxEntries(limit: Int = 1000) throws(StoreError) -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        try database.forEachRow("""
            SELECT id, entity, action, state, attempt_count, created_at, next_attempt_at, last_error_class
            FROM outbox WHERE state <> 'done' ORDER BY id LIMIT ?
            """, [.integer(Int64(limit))]) { row in
            guard let entity = OutboxEntity(rawValue: row.text(1)), let action = OutboxAction(rawValue: row.text(2)),
                  let state = OutboxState(rawValue: row.text(3)) else { return }
            entries.append(OutboxEntry(id: row.int64(0), entity: entity, action: action, state: state,
                                       attempts: Int(row.int64(4)), createdAt: Timestamp(millisecondsSince1970: row.int64(5)),
                                       nextAttemptAt: row.isNull(6) ? nil : Timestamp(millisecondsSince1970: row.int64(6)),
                                       lastErrorClass: row.isNull(7) ? nil : row.text(7)))
        }
        return entries
    }
}
