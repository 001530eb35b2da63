public import Journal

/// A deleted book, note or quote whose content may be purged: its deletion has reached
/// every remote, and no operation about it waits in the outbox.
public struct Tombstone: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case book, annotation
    }

    public let kind: Kind
    public let id: EntityID
    /// The clock of the deleted version, which other devices acknowledge.
    public let clock: HybridTimestamp
    public let deletedAt: Timestamp
    /// This device's operations about the record, all sent: their files on the remotes
    /// carry its content, and go with it.
    public internal(set) var operations: [SentOperation] = []

    /// The deletion this tombstone is, when this device made it: the one operation a
    /// content-free stand-in must replace on the remotes.
    public var ownDeletion: SentOperation? {
        operations.last { $0.action == .delete && $0.clock == clock }
    }
}

/// An operation this device sent: what names its file on a remote, and what it changed.
public struct SentOperation: Sendable, Equatable {
    public let clock: HybridTimestamp
    public let idempotencyKey: String
    public let action: OutboxAction
    /// The clock of the version it changed (nil for a creation).
    public let base: HybridTimestamp?
}

extension Store {
    /// The retention period when the reader has not set one.
    public static let defaultTombstoneRetentionDays = 90
    /// The longest retention the reader may set (ten years).
    public static let maximumTombstoneRetentionDays = 3650

    /// How long a deleted record keeps its content when not every device has acknowledged
    /// the deletion: a number of days, no content.
    public func tombstoneRetentionDays() throws(StoreError) -> Int {
        var days = Self.defaultTombstoneRetentionDays
        try database.forEachRow("SELECT value FROM vault_meta WHERE key = 'tombstone_retention_days'") { row in
            days = Int(row.text(0)) ?? days
        }
        return days
    }

    /// Sets the retention period, 1 to ``maximumTombstoneRetentionDays`` days.
    public func setTombstoneRetention(days: Int) throws(StoreError) {
        guard (1...Self.maximumTombstoneRetentionDays).contains(days) else {
            throw .invalidRetention(maximumDays: Self.maximumTombstoneRetentionDays)
        }
        try database.writeTransaction { () throws(StoreError) in
            try database.run("""
                INSERT INTO vault_meta (key, value) VALUES ('tombstone_retention_days', ?1)
                ON CONFLICT (key) DO UPDATE SET value = ?1
                """, [.text(String(days))])
        }
    }

    /// The tombstones whose content may go now: the deletion has reached every remote,
    /// nothing about the record waits in the outbox, and either every other device has
    /// acknowledged it (`acknowledged`) or it is older than the retention period. A vault
    /// with no remote keeps its tombstones whole, as it always has.
    public func tombstonesToPurge(acknowledged: (Tombstone) -> Bool) throws(StoreError) -> [Tombstone] {
        let horizon = clock.now().millisecondsSince1970 - Int64(try tombstoneRetentionDays()) * 86_400_000
        return try tombstones(at: .content).filter { $0.deletedAt.millisecondsSince1970 < horizon || acknowledged($0) }
    }

    /// The tombstones whose files this device may remove from the remotes: every other
    /// device has acknowledged the deletion (`acknowledged`), so none can miss an operation
    /// it still needs to decide a conflict. Content purged or not.
    public func tombstonesToCompact(acknowledged: (Tombstone) -> Bool) throws(StoreError) -> [Tombstone] {
        try tombstones(at: .files).filter(acknowledged)
    }

    /// What a tombstone still has to lose.
    private enum Stage {
        /// Its content, here.
        case content
        /// Its files on the remotes (named by this device's operations, still in the outbox).
        case files
    }

    /// Tombstones at `stage` whose every operation is done, with this device's operations about them.
    private func tombstones(at stage: Stage) throws(StoreError) -> [Tombstone] {
        var tombstones: [Tombstone] = []
        for (kind, table, content) in [(Tombstone.Kind.book, "book", "title"), (.annotation, "annotation", "body")] {
            let stageFilter = stage == .content ? "AND length(\(content)) > 0" : "AND EXISTS (SELECT 1 FROM outbox o WHERE o.entity_id = t.id)"
            try database.forEachRow("""
                SELECT id, hlc, deleted_at FROM \(table) t
                WHERE deleted_at IS NOT NULL \(stageFilter) AND hlc IS NOT NULL
                  AND EXISTS (SELECT 1 FROM remote)
                  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.entity_id = t.id AND o.state != 'done')
                ORDER BY deleted_at, id
                """) { row in
                guard let id = try? EntityID(validating: row.text(0)), let clock = try? HybridTimestamp(parsing: row.text(1)) else { return }
                tombstones.append(Tombstone(kind: kind, id: id, clock: clock,
                                            deletedAt: Timestamp(millisecondsSince1970: row.int64(2))))
            }
        }
        for index in tombstones.indices {
            try database.forEachRow("SELECT hlc, idempotency_key, action, base_hlc FROM outbox WHERE entity_id = ? ORDER BY id",
                                    [.text(tombstones[index].id.rawValue)]) { row in
                guard let clock = try? HybridTimestamp(parsing: row.text(0)), let action = OutboxAction(rawValue: row.text(2)) else { return }
                tombstones[index].operations.append(SentOperation(
                    clock: clock, idempotencyKey: row.text(1), action: action,
                    base: row.isNull(3) ? nil : try? HybridTimestamp(parsing: row.text(3))))
            }
        }
        return tombstones
    }

    /// The operation that stands in for this device's deletion `deletion` of a purged record
    /// once the record's files are removed from the remotes: the same deletion (clock and
    /// base) with no content. A device with an unchanged older copy takes it; one that
    /// changed the record since the deleted version keeps its edit (the edit wins, flagged).
    /// Its key is derived from the record and clock, so sending it again lands on the same name.
    public func tombstoneOperation(for tombstone: Tombstone, replacing deletion: SentOperation) throws(StoreError) -> OutgoingOperation {
        let payload: OutboxPayload
        switch tombstone.kind {
        case .book:
            var book = try book(tombstone.id)
            book.title = ""
            book.authors = []
            payload = OutboxPayload(book, progressRewind: false, progressClock: nil)
        case .annotation:
            var annotation = try annotation(tombstone.id)
            annotation.body = ""
            annotation.locator = nil
            payload = OutboxPayload(annotation)
        }
        let key = Self.derivedID("bmvault tombstone|\(tombstone.id.rawValue)|\(tombstone.clock.description)")?.rawValue ?? tombstone.id.rawValue
        return OutgoingOperation(outboxID: 0, idempotencyKey: key, entity: tombstone.kind == .book ? .book : .annotation,
                                 action: .delete, entityID: tombstone.id.rawValue, clock: deletion.clock, base: deletion.base,
                                 attempts: 0, payload: payload.jsonBytes())
    }

    /// Purges the content of `tombstones` (from ``tombstonesToPurge(acknowledged:)``), in
    /// one transaction: the sealed title and authors, or body and locator, are emptied, and
    /// so are the payloads of the finished outbox operations that carried them (the rows
    /// stay, naming the files still to remove from the remotes), with SQLite overwriting
    /// what it frees. What stays is what was always in the clear (id, book, kind, dates,
    /// version, clock), so an operation that arrives later about the record is still
    /// decided against its deletion. Returns how many were purged.
    @discardableResult
    public func purgeTombstones(_ tombstones: [Tombstone]) throws(StoreError) -> Int {
        guard !tombstones.isEmpty else { return 0 }
        try database.execute("PRAGMA secure_delete = ON")
        defer { try? database.execute("PRAGMA secure_delete = OFF") }
        return try database.writeTransaction { () throws(StoreError) -> Int in
            var purged = 0
            for tombstone in tombstones {
                let id = SQLValue.text(tombstone.id.rawValue)
                switch tombstone.kind {
                case .book:
                    try database.run("UPDATE book SET title = X'', authors = X'' WHERE id = ? AND deleted_at IS NOT NULL", [id])
                case .annotation:
                    try database.run("UPDATE annotation SET body = X'', locator = NULL WHERE id = ? AND deleted_at IS NOT NULL", [id])
                }
                purged += database.changes
                try database.run("UPDATE outbox SET payload = X'' WHERE entity_id = ? AND state = 'done'", [id])
            }
            return purged
        }
    }

    /// Forgets the operations of compacted tombstones, once their files are gone from
    /// every remote (see ``tombstonesToCompact(acknowledged:)``).
    public func forgetSentOperations(of tombstones: [Tombstone]) throws(StoreError) {
        guard !tombstones.isEmpty else { return }
        try database.writeTransaction { () throws(StoreError) in
            for tombstone in tombstones {
                try database.run("DELETE FROM outbox WHERE entity_id = ? AND state = 'done'", [.text(tombstone.id.rawValue)])
            }
        }
    }
}
