public import Journal
public import SyncWire

/// Purging tombstones: each purge in a write transaction with SQLite's `secure_delete` on,
/// and the blobs of purged book files removed once it has committed. Not a table of
/// ``Tables``: the pragma is set outside a transaction, and the blobs go after the commit.
public struct TombstonePurge {
    let store: Store
    private var database: Database { store.database }

    /// Purges what ``TombstoneTable/expired(before:limit:)`` finds, `limit` at a time (a command's
    /// share of the work, or all of it for `bmvault purge`). With `onlyIfDue` (a command on
    /// its way), the search runs at most once a day once nothing was left, since it scans
    /// the deleted records: otherwise one small read, and nothing written. Returns how many
    /// were purged.
    @discardableResult
    public func expired(limit: Int, onlyIfDue: Bool = false) throws(StoreError) -> Int {
        let now = store.clock.now().millisecondsSince1970
        if onlyIfDue {
            var checkedAt: Int64?
            try database.forEachRow("SELECT value FROM vault_meta WHERE key = ?", [.text(TombstoneTable.purgeCheckedAtKey)]) { row in
                checkedAt = Int64(row.text("value"))
            }
            if let checkedAt, now - checkedAt < 86_400_000, checkedAt <= now { return 0 }
        }
        let (horizon, expired) = try store.read { tables throws(StoreError) in
            let horizon = try tables.tombstones.horizon()
            return (horizon, try tables.tombstones.expired(before: horizon, limit: limit))
        }
        let purged = try tombstones(expired) + removedFiles(before: horizon)
        if expired.count < limit {
            try database.writeTransaction { () throws(StoreError) in
                try database.run("""
                    INSERT INTO vault_meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2
                    """, [.text(TombstoneTable.purgeCheckedAtKey), .text(String(now))])
            }
        }
        return purged
    }

    /// Purges the content of `tombstones`, in one transaction: the sealed title and authors,
    /// or body, locator and comment (of every version kept), are emptied, and so are the
    /// payloads of the finished outbox operations that carried them (the rows stay, naming
    /// the files still to remove from the remotes), with SQLite overwriting what it frees.
    /// What stays is what was always in the clear (id, book, kind, dates, version, clock),
    /// and a note's sealed import key (so a later import does not bring it back), so an
    /// operation that arrives later about the record is still decided against its deletion.
    /// Returns how many were purged.
    @discardableResult
    public func tombstones(_ tombstones: [Tombstone]) throws(StoreError) -> Int {
        guard !tombstones.isEmpty else { return 0 }
        try database.execute("PRAGMA secure_delete = ON")
        defer { try? database.execute("PRAGMA secure_delete = OFF") }
        let (purged, goneContents) = try store.write { tables throws(StoreError) in try tables.tombstones.purge(tombstones) }
        // Only once the rows are gone: a blob goes after the last row naming it.
        for content in goneContents { store.fileStore.remove(content) }
        return purged
    }

    /// Purges what book files removed before `horizon` still say (``TombstoneTable/purgeRemovedFiles(before:)``),
    /// with SQLite overwriting what it frees. Returns how many files were purged.
    private func removedFiles(before horizon: Timestamp) throws(StoreError) -> Int {
        try database.execute("PRAGMA secure_delete = ON")
        defer { try? database.execute("PRAGMA secure_delete = OFF") }
        return try store.write { tables throws(StoreError) in try tables.tombstones.purgeRemovedFiles(before: horizon) }
    }
}
