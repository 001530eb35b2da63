import Journal
import VaultCrypto

/// The kind of record an outbox operation is about.
public enum OutboxEntity: String, Sendable, CaseIterable {
    case book
    case session
    case annotation
}

/// What an outbox operation did to its record.
public enum OutboxAction: String, Sendable {
    case create
    case update
    case delete
}

/// The life of an outbox operation: `pending` until a sync worker takes it, `done` once a
/// remote has it, `failed` (kept, with its context) when it can never succeed.
public enum OutboxState: String, Sendable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case done
    case failed
}

extension Store {
    /// Appends the operation that records one change. Call it only inside the write
    /// transaction that makes the change, so the two commit or vanish together.
    ///
    /// The payload is the record's state after the change, sealed under the vault key and
    /// bound to the operation's idempotency key: the outbox never holds plaintext.
    func enqueue(_ entity: OutboxEntity, _ action: OutboxAction, id: EntityID, baseVersion: Int64,
                 payload: OutboxPayload, cipher: RecordCipher, at time: Timestamp,
                 clock: HybridTimestamp, base: HybridTimestamp?, state: OutboxState = .pending) throws(StoreError) {
        let idempotencyKey = EntityID.generate(at: time, using: &randomIDs).rawValue
        var json = payload.jsonBytes()
        defer { wipe(&json) }
        let sealed: [UInt8]
        do {
            sealed = try cipher.sealer.seal(json, table: "outbox", recordID: idempotencyKey, field: "payload")
        } catch {
            throw .crypto(error)
        }
        let values: [SQLValue] = [.text(entity.rawValue), .text(id.rawValue), .text(action.rawValue), .blob(sealed),
                                  .integer(baseVersion), .text(idempotencyKey), .integer(time.millisecondsSince1970),
                                  .text(state.rawValue), .text(clock.description), base.map { .text($0.description) } ?? .null]
        if let writeBatch {
            try writeBatch.appendOperation(values, to: database)
        } else {
            try database.run(Self.outboxInsertOne, values)
        }
    }

    static let outboxInsertOne = outboxInsert(rows: 1)

    /// An INSERT of `rows` outbox operations, ten values each, in
    /// ``enqueue(_:_:id:baseVersion:payload:cipher:at:clock:base:state:)``'s order.
    static func outboxInsert(rows: Int) -> String {
        let row = "(?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)"
        return """
            INSERT INTO outbox (entity, entity_id, action, payload, base_version, attempt_count, idempotency_key, created_at,
                                state, hlc, base_hlc)
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
