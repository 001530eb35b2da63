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
}

extension Store {
    /// The retention period when the reader has not set one.
    public static let defaultTombstoneRetentionDays = 90
    /// The longest retention the reader may set (ten years).
    public static let maximumTombstoneRetentionDays = 3650

    /// How long a deleted record keeps its content when not every device has acknowledged
    /// the deletion. Readable while locked: a number of days, no content.
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

    /// Purges the content of every tombstone that may go: its deletion has reached every
    /// remote, nothing about it waits in the outbox, and either every other device has
    /// acknowledged it (`acknowledged`) or it is older than the retention period. A vault
    /// with no remote keeps its tombstones whole, as it always has.
    ///
    /// In one transaction, the sealed title and authors, or body and locator, are emptied,
    /// and the finished outbox operations that carried them are deleted, with SQLite
    /// overwriting what it frees. What stays is what was always in the clear (id, book,
    /// kind, dates, version, clock), so an operation that arrives later about the record is
    /// still decided against its deletion. Returns how many were purged.
    @discardableResult
    public func purgeTombstones(acknowledged: (Tombstone) -> Bool) throws(StoreError) -> Int {
        let horizon = clock.now().millisecondsSince1970 - Int64(try tombstoneRetentionDays()) * 86_400_000
        let tombstones = try purgeableTombstones().filter { $0.deletedAt.millisecondsSince1970 < horizon || acknowledged($0) }
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
                try database.run("DELETE FROM outbox WHERE entity_id = ? AND state = 'done'", [id])
            }
            return purged
        }
    }

    /// Tombstones whose content is still here and whose every operation is done.
    private func purgeableTombstones() throws(StoreError) -> [Tombstone] {
        var tombstones: [Tombstone] = []
        for (kind, table, content) in [(Tombstone.Kind.book, "book", "title"), (.annotation, "annotation", "body")] {
            try database.forEachRow("""
                SELECT id, hlc, deleted_at FROM \(table) t
                WHERE deleted_at IS NOT NULL AND length(\(content)) > 0 AND hlc IS NOT NULL
                  AND EXISTS (SELECT 1 FROM remote)
                  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.entity_id = t.id AND o.state != 'done')
                ORDER BY deleted_at, id
                """) { row in
                guard let id = try? EntityID(validating: row.text(0)), let clock = try? HybridTimestamp(parsing: row.text(1)) else { return }
                tombstones.append(Tombstone(kind: kind, id: id, clock: clock,
                                            deletedAt: Timestamp(millisecondsSince1970: row.int64(2))))
            }
        }
        return tombstones
    }
}
