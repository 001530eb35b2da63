import Journal
public import SyncWire
import VaultCrypto

/// `outbox`, `outbox_delivery` and `sent_operation`: the operations this device made, sealed
/// once, until every remote has them, then only the names of their files. Every table
/// enqueues its change's operation here, in the transaction that makes the change.
public struct OutboxTable {
    let tables: Tables
    var store: Store { tables.store }
    var database: Database { tables.database }

    /// Appends the operation that records one change. It is written in the write
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
        tables.requireWrite()
        let cipher = try store.requireCipher()
        let state = try hasRemoteForThisTransaction() ? state : .done
        let idempotencyKey = EntityID.generate(at: time, using: &store.randomIDs).rawValue
        let operation = SyncOperation(idempotencyKey: idempotencyKey, deviceID: store.deviceID, clock: clock, action: action, record: record)
        let sealed = try cipher.sealOperation(operation)
        let values = EnqueuedColumn.allCases.map { column -> SQLValue in
            switch column {
            case .entity: .text(operation.entity.rawValue)
            case .entityID: .text(operation.entityID.rawValue)
            case .action: .text(action.rawValue)
            case .payload: .blob(sealed)
            case .baseVersion: .integer(baseVersion)
            case .idempotencyKey: .text(idempotencyKey)
            case .createdAt: .integer(time.millisecondsSince1970)
            case .state: .text(state.rawValue)
            case .hlc: .text(clock.description)
            case .baseHLC: base.map { .text($0.description) } ?? .null
            }
        }
        if let batch = store.writeBatch {
            try batch.appendOperation(values, to: database)
        } else {
            try database.run(Self.insertOne, values)
        }
    }

    /// Whether the vault has a remote, asked once per write transaction; without one, the
    /// operations of earlier transactions go first.
    private func hasRemoteForThisTransaction() throws(StoreError) -> Bool {
        if let current = store.outboxTransaction, current.number == database.writeTransactionCount { return current.hasRemote }
        let hasRemote = try !discardIfNoRemote()
        store.outboxTransaction = (database.writeTransactionCount, hasRemote)
        return hasRemote
    }

    static let insertOne = insert(rows: 1)

    /// An INSERT of `rows` outbox operations, one value per ``EnqueuedColumn`` each, in
    /// ``enqueue(_:_:clock:at:baseVersion:base:state:)``'s order.
    static func insert(rows: Int) -> String {
        let parameters = repeatElement("?", count: EnqueuedColumn.allCases.count).joined(separator: ", ")
        let row = "(\(parameters), 0, \(OutboxPayloadFormat.operation.rawValue))"
        return """
            INSERT INTO outbox (\(EnqueuedColumn.list), attempt_count, payload_format)
            VALUES \(repeatElement(row, count: rows).joined(separator: ", "))
            """
    }

    /// How many operations are in each state. Readable while locked: it holds no content.
    public func counts() throws(StoreError) -> [OutboxState: Int] {
        try Self.counts(in: database)
    }

    static func counts(in database: Database) throws(StoreError) -> [OutboxState: Int] {
        var counts: [OutboxState: Int] = [:]
        for state in OutboxState.allCases { counts[state] = 0 }
        try database.forEachRow("SELECT state, count(*) AS operations FROM outbox GROUP BY state") { row in
            if let state = OutboxState(rawValue: row.text("state")) { counts[state] = Int(row.int64("operations")) }
        }
        return counts
    }
    /// Operations not yet done (pending, in flight, failed), oldest first.
    public func entries(limit: Int = 1000) throws(StoreError) -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        try database.forEachRow("""
            SELECT id, entity, action, state, attempt_count, created_at, next_attempt_at, last_error_class
            FROM outbox WHERE state <> 'done' ORDER BY id LIMIT ?
            """, [.integer(Int64(limit))]) { row in
            guard let entity = OutboxEntity(rawValue: row.text("entity")), let action = OutboxAction(rawValue: row.text("action")),
                  let state = OutboxState(rawValue: row.text("state")) else { return }
            entries.append(OutboxEntry(id: row.int64("id"), entity: entity, action: action, state: state,
                                       attempts: Int(row.int64("attempt_count")),
                                       createdAt: Timestamp(millisecondsSince1970: row.int64("created_at")),
                                       nextAttemptAt: row.optionalInt64("next_attempt_at").map(Timestamp.init(millisecondsSince1970:)),
                                       lastErrorClass: row.optionalText("last_error_class")))
        }
        return entries
    }
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
        let cipher = try store.requireCipher()
        tables.requireWrite()
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
            """, [.text(remote), .integer(store.clock.now().millisecondsSince1970), .integer(Int64(limit))]) { row in
            rows.append(PendingRow(id: row.int64("id"), key: row.text("idempotency_key"), entity: OutboxEntity(rawValue: row.text("entity")),
                                   action: OutboxAction(rawValue: row.text("action")), entityID: row.text("entity_id"),
                                   clock: try? HybridTimestamp(parsing: row.text("hlc")),
                                   base: row.optionalText("base_hlc").flatMap { try? HybridTimestamp(parsing: $0) },
                                   attempts: Int(row.int64("attempt_count")), payload: row.blob("payload"),
                                   format: OutboxPayloadFormat(rawValue: row.int64("payload_format"))))
        }
        var operations: [OutgoingOperation] = []
        for row in rows {
            guard let clock = row.clock, let sealed = try sendable(row, cipher: cipher, clock: clock) else {
                // An operation that cannot be read can never be sent: failed, kept, and reported.
                try recordPushFailure(row.id, errorClass: "unreadable", retryAfterMilliseconds: nil)
                continue
            }
            operations.append(OutgoingOperation(outboxID: row.id, fileName: OperationFileName.make(clock: clock, idempotencyKey: row.key),
                                                sealed: sealed, entityID: row.entityID, attempts: row.attempts))
        }
        return operations
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
                      payload: payload, idempotencyKey: row.key, deviceID: store.deviceID, clock: clock, base: row.base,
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
        tables.requireWrite()
        let now = store.clock.now().millisecondsSince1970
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
        try completeDelivered()
    }

    /// Records a failed attempt: an upload that failed (whatever the remote or the network
    /// did) waits `retryAfterMilliseconds` (by this store's clock) and goes again; nil, only
    /// for an operation whose payload no longer opens here (``operationsToPush(to:limit:)``),
    /// moves it to `failed`, kept with its error class, until `retry-failed`.
    public func recordPushFailure(_ id: Int64, errorClass: String, retryAfterMilliseconds: Int64?) throws(StoreError) {
        tables.requireWrite()
        let now = store.clock.now().millisecondsSince1970
        try database.run("""
            UPDATE outbox SET attempt_count = attempt_count + 1, last_attempt_at = ?2, last_error_class = ?3,
                              next_attempt_at = ?4, state = CASE WHEN ?4 IS NULL THEN 'failed' ELSE 'pending' END
            WHERE id = ?1
            """, [.integer(id), .integer(now), .text(errorClass), .integer(retryAfterMilliseconds.map { now + $0 })])
    }

    /// Puts every failed operation back in line, to be tried at the next sync. Returns how many.
    @discardableResult
    public func retryFailed() throws(StoreError) -> Int {
        tables.requireWrite()
        try database.run("UPDATE outbox SET state = 'pending', next_attempt_at = NULL WHERE state = 'failed'")
        return database.changes
    }
    /// Marks `done` every waiting operation that every remote now has.
    func completeDelivered() throws(StoreError) {
        try database.run("""
            UPDATE outbox SET state = 'done', next_attempt_at = NULL
            WHERE state IN ('pending', 'in_flight')
              AND EXISTS (SELECT 1 FROM remote)
              AND NOT EXISTS (SELECT 1 FROM remote r WHERE NOT EXISTS (
                    SELECT 1 FROM outbox_delivery d WHERE d.operation_id = outbox.id AND d.remote = r.name))
            """)
    }
    /// How many operations one call to ``compact(limit:)`` handles by default (one
    /// step of a sync's compaction: a few milliseconds).
    public static let compactionBatch = 5_000

    /// Keeps in the outbox only what a remote still needs, at most `limit` operations per
    /// call; returns how many it compacted (fewer than `limit`: nothing is left to do).
    ///
    /// - An operation every remote has keeps only the name of its file and its action, in
    ///   `sent_operation`: the file is removed once its record's deletion is acknowledged
    ///   everywhere (tombstone compaction). Its sealed payload goes.
    /// - With no remote at all, waiting and finished operations go whole, and so does the
    ///   record of files sent (``discardIfNoRemote()``).
    ///
    /// Operations failed for good stay, with their context, until `--retry-failed`.
    @discardableResult
    public func compact(limit: Int = OutboxTable.compactionBatch) throws(StoreError) -> Int {
        tables.requireWrite()
        guard try !discardIfNoRemote() else { return 0 }
        var finished: [(id: Int64, sent: [SQLValue]?)] = []
        try database.forEachRow("""
            SELECT id, entity_id, idempotency_key, hlc, action FROM outbox WHERE state = 'done' ORDER BY id LIMIT ?
            """, [.integer(Int64(limit))]) { row in
            finished.append((row.int64("id"), Self.sentOperationRow(entityID: row.text("entity_id"), key: row.text("idempotency_key"),
                                                                     clock: row.text("hlc"), action: row.text("action"),
                                                                     ownDevice: store.deviceID)))
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

    /// With no remote, nothing is on a remote, and a remote added later receives a snapshot
    /// of the journal as it then stands (``enqueueSnapshot(for:)``): the operations waiting
    /// or done go, and so does the record of files sent (files on a remote that was removed
    /// are no longer this vault's to remove). Failed ones stay, as a report. Returns whether there was no remote.
    func discardIfNoRemote() throws(StoreError) -> Bool {
        var hasRemote = false
        try database.forEachRow("SELECT 1 FROM remote LIMIT 1") { _ in hasRemote = true }
        guard !hasRemote else { return false }
        try database.run("DELETE FROM outbox WHERE state <> 'failed'")
        try database.run("DELETE FROM sent_operation")
        return true
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
            guard let clock = try? HybridTimestamp(parsing: row.text("hlc")), let action = OutboxAction(rawValue: row.text("action")) else { return }
            operations.append(SentOperation(clock: clock, idempotencyKey: row.text("idempotency_key"), action: action))
        }
        try database.forEachRow("SELECT wall, counter, idempotency_key, action FROM sent_operation WHERE entity_id = ?",
                                [.text(id.rawValue)]) { row in
            guard let key = try? EntityID(bytes: row.blob("idempotency_key")), let action = OutboxAction(rawValue: row.text("action")),
                  let counter = UInt32(exactly: row.int64("counter")) else { return }
            let clock = HybridTimestamp(wallMilliseconds: row.int64("wall"), counter: counter, deviceID: store.deviceID)
            operations.append(SentOperation(clock: clock, idempotencyKey: key.rawValue, action: action))
        }
        return operations.sorted { $0.clock < $1.clock }
    }
    /// Queues, for `remote` alone, the journal as it stands: one operation per book, session,
    /// tag and book file, and one per standing version of each note and quote, sealed like any
    /// operation, so a device joining through that remote receives everything without
    /// every historic edit. A deleted record travels as its deletion, without its content.
    /// Derived conflict copies are not sent (every device derives them alike).
    ///
    /// In one transaction: the operations waiting for `remote` that the snapshot covers are
    /// counted as delivered to it, the new ones as delivered to every other remote (which
    /// have the records already), and the remote no longer needs a snapshot.
    @discardableResult
    public func enqueueSnapshot(for remote: String) throws(StoreError) -> SnapshotReport {
        _ = try store.requireCipher()
        tables.requireWrite()
        let lastBefore = try database.integer("SELECT coalesce(max(id), 0) FROM outbox") ?? 0
        var report = SnapshotReport()
        for id in try ids(in: "book") {
            do throws(StoreError) {
                var version = try tables.books.version(id)
                if version.book.deletedAt != nil {
                    version.book.title = ""
                    version.book.authors = []
                }
                try enqueueSnapshotOperation(.book(version), deleted: version.book.deletedAt != nil)
                report.operations += 1
            } catch .recordUnreadable {
                report.unreadable += 1
            }
        }
        for id in try ids(in: "reading_session") {
            guard let version = try tables.sessions.version(id) else { continue }
            try enqueueSnapshotOperation(.session(version), deleted: version.session.deletedAt != nil)
            report.operations += 1
        }
        for id in try ids(in: "annotation", where: "derived = 0") {
            guard case .record(let versions)? = try tables.annotations.local(id) else {
                report.unreadable += 1
                continue
            }
            for var version in versions.versions {
                if version.isDeleted {
                    version.annotation.body = ""
                    version.annotation.locator = nil
                    version.annotation.comment = nil
                }
                try enqueueSnapshotOperation(.annotation(version), deleted: version.isDeleted)
                report.operations += 1
            }
        }
        // Tags given and taken away alike (a later change elsewhere is decided against
        // each); a name purged with its record stays here.
        for version in try tables.tags.versions(where: "length(name) > 0", []) {
            try enqueueSnapshotOperation(.tagging(version), deleted: false)
            report.operations += 1
        }
        // Book files attached and removed alike, each with its content and sealed key.
        for version in try tables.bookFiles.versions(where: "1") {
            try enqueueSnapshotOperation(.bookFile(version), deleted: version.file.isRemoved)
            report.operations += 1
        }
        let now = SQLValue.integer(store.clock.now().millisecondsSince1970)
        try database.run("""
            INSERT OR IGNORE INTO outbox_delivery (operation_id, remote, delivered_at)
            SELECT id, ?1, ?2 FROM outbox WHERE id <= ?3 AND state <> 'done' AND state <> 'failed'
            """, [.text(remote), now, .integer(lastBefore)])
        try database.run("""
            INSERT OR IGNORE INTO outbox_delivery (operation_id, remote, delivered_at)
            SELECT o.id, r.name, ?2 FROM outbox o, remote r WHERE o.id > ?3 AND r.name <> ?1
            """, [.text(remote), now, .integer(lastBefore)])
        try completeDelivered()
        try database.run("UPDATE remote SET needs_snapshot = 0 WHERE name = ?", [.text(remote)])
        return report
    }

    private func enqueueSnapshotOperation(_ record: RecordVersion, deleted: Bool) throws(StoreError) {
        try enqueue(deleted ? .delete : .create, record, clock: try store.tick(), at: store.clock.now(), baseVersion: 0, base: nil)
    }

    private func ids(in table: String, where condition: String = "1") throws(StoreError) -> [EntityID] {
        var ids: [EntityID] = []
        try database.forEachRow("SELECT id FROM \(table) WHERE \(condition) ORDER BY id") { row in
            if let id = try? EntityID(validating: row.text("id")) { ids.append(id) }
        }
        return ids
    }
}

/// The columns of `outbox` an operation is enqueued with, in the order of its values, each
/// given by its column (a batch writes many rows in one INSERT: ``OutboxTable/insert(rows:)``).
enum EnqueuedColumn: Int32, TableColumns {
    case entity, entityID, action, payload, baseVersion, idempotencyKey, createdAt, state, hlc, baseHLC

    var name: String {
        switch self {
        case .entity: "entity"
        case .entityID: "entity_id"
        case .action: "action"
        case .payload: "payload"
        case .baseVersion: "base_version"
        case .idempotencyKey: "idempotency_key"
        case .createdAt: "created_at"
        case .state: "state"
        case .hlc: "hlc"
        case .baseHLC: "base_hlc"
        }
    }
}
