public import Journal
public import SyncWire

/// Deleted records (`book` and `annotation` rows with `deleted_at`) as tombstones: how long
/// they keep their content, which ones a sync or the retention may purge, their content
/// purged, and the operations that named their files forgotten.
public struct TombstoneTable {
    let tables: Tables
    var store: Store { tables.store }
    var database: Database { tables.database }

    /// The retention period when the reader has not set one.
    public static let defaultRetentionDays = 90
    /// The longest retention the reader may set (ten years).
    public static let maximumRetentionDays = 3650

    /// How long a deleted record keeps its content (what `undelete` can bring back): a
    /// number of days, no content.
    public func retentionDays() throws(StoreError) -> Int {
        var days = Self.defaultRetentionDays
        try database.forEachRow("SELECT value FROM vault_meta WHERE key = 'tombstone_retention_days'") { row in
            days = Int(row.text("value")) ?? days
        }
        return days
    }

    /// Sets the retention period, 1 to ``maximumRetentionDays`` days.
    public func setRetention(days: Int) throws(StoreError) {
        guard (1...Self.maximumRetentionDays).contains(days) else {
            throw .invalidRetention(maximumDays: Self.maximumRetentionDays)
        }
        tables.requireWrite()
        try database.run("""
            INSERT INTO vault_meta (key, value) VALUES ('tombstone_retention_days', ?1)
            ON CONFLICT (key) DO UPDATE SET value = ?1
            """, [.text(String(days))])
    }

    /// Deleted records whose every operation is done and whose content is still here, in a
    /// vault with a remote (a sync decides when they go; without a remote, only the
    /// retention does: ``TombstonePurge/expired(limit:onlyIfDue:)``).
    public func withContent() throws(StoreError) -> [Tombstone] {
        try tombstones(whose: { content in "AND length(\(content)) > 0" })
    }

    /// Deleted records whose every operation is done and whose files (named by this
    /// device's operations, in the outbox or compacted) may still be on the remotes.
    public func withFiles() throws(StoreError) -> [Tombstone] {
        try tombstones(whose: { _ in
            "AND (EXISTS (SELECT 1 FROM outbox o WHERE o.entity_id = t.id) OR EXISTS (SELECT 1 FROM sent_operation s WHERE s.entity_id = t.id))"
        })
    }

    /// Deleted records older than the retention period (deleted before `horizon`) whose
    /// content is still here and whose every operation is done, at most `limit` of each
    /// kind: purged on this device whatever the remotes say, with or without a remote. The
    /// retention is the longest a deleted text stays here.
    public func expired(before horizon: Timestamp, limit: Int) throws(StoreError) -> [Tombstone] {
        try tombstones(whose: { content in "AND length(\(content)) > 0 AND deleted_at < \(horizon.millisecondsSince1970)" },
                       onlyWithARemote: false, limit: limit)
    }

    /// Now less the retention period: what was deleted or removed before it has had its time.
    func horizon() throws(StoreError) -> Timestamp {
        Timestamp(millisecondsSince1970: store.clock.now().millisecondsSince1970 - Int64(try retentionDays()) * 86_400_000)
    }

    /// SQL on a content `f` (parameter 1: a horizon in milliseconds): some book had it, and
    /// every attachment of it was removed before the horizon.
    static let everyAttachmentRemovedBefore = """
        EXISTS (SELECT 1 FROM book_file b WHERE b.file_id = f.id)
          AND NOT EXISTS (SELECT 1 FROM book_file b WHERE b.file_id = f.id AND (b.removed_at IS NULL OR b.removed_at >= ?1))
        """

    /// `vault_meta` key: when ``TombstonePurge/expired(limit:onlyIfDue:)`` last found nothing
    /// left to purge (set when the vault is made).
    static let purgeCheckedAtKey = "tombstones_purge_checked_at"

    private func tombstones(whose stage: (String) -> String, onlyWithARemote: Bool = true,
                            limit: Int = Int(Int32.max)) throws(StoreError) -> [Tombstone] {
        var found: [(kind: Tombstone.Kind, id: EntityID, clock: HybridTimestamp, deletedAt: Timestamp)] = []
        for (kind, table, content) in [(Tombstone.Kind.book, "book", "title"), (.annotation, "annotation", "body")] {
            try database.forEachRow("""
                SELECT id, hlc, deleted_at FROM \(table) t
                WHERE deleted_at IS NOT NULL \(stage(content)) AND hlc IS NOT NULL
                  \(onlyWithARemote ? "AND EXISTS (SELECT 1 FROM remote)" : "")
                  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.entity_id = t.id AND o.state != 'done')
                ORDER BY deleted_at, id LIMIT ?
                """, [.integer(Int64(limit))]) { row in
                guard let id = try? EntityID(validating: row.text("id")), let clock = try? HybridTimestamp(parsing: row.text("hlc")) else { return }
                found.append((kind, id, clock, Timestamp(millisecondsSince1970: row.int64("deleted_at"))))
            }
        }
        var tombstones: [Tombstone] = []
        for record in found {
            tombstones.append(Tombstone(kind: record.kind, id: record.id, clock: record.clock, deletedAt: record.deletedAt,
                                        operations: try tables.outbox.sentOperations(about: record.id)))
        }
        return tombstones
    }

    /// The deletion `tombstone` is, with no content: a device with an unchanged older copy
    /// takes it; one that changed the record meanwhile keeps its edit (the edit wins, marked).
    public func contentFreeDeletion(of tombstone: Tombstone) throws(StoreError) -> RecordVersion {
        switch tombstone.kind {
        case .book:
            var version = try tables.books.version(tombstone.id)
            version.book.title = ""
            version.book.authors = []
            return .book(version)
        case .annotation:
            var version = try tables.annotations.shownVersion(of: tombstone.id)
            version.annotation.body = ""
            version.annotation.locator = nil
            version.annotation.comment = nil
            return .annotation(version)
        }
    }

    /// Empties the content of `tombstones` (see ``TombstonePurge/tombstones(_:)``, which runs this
    /// with SQLite overwriting what it frees, and removes the blobs once it has committed).
    /// Returns how many were purged and the file contents whose blobs can go.
    func purge(_ tombstones: [Tombstone]) throws(StoreError) -> (purged: Int, goneContents: [String]) {
        tables.requireWrite()
        var purged = 0
        var goneContents: [String] = []
        for tombstone in tombstones {
            let id = SQLValue.text(tombstone.id.rawValue)
            switch tombstone.kind {
            case .book:
                try database.run("UPDATE book SET title = X'', authors = X'', rating = NULL, edition = NULL, reading_log = NULL WHERE id = ? AND deleted_at IS NOT NULL", [id])
                purged += database.changes
                // The titles other programs gave it go with its own, and so do its files
                // (their metadata names it): a content no other book has goes with its blob.
                if database.changes > 0 {
                    try database.run("DELETE FROM book_alias WHERE book_id = ?", [id])
                    goneContents += try tables.bookFiles.detachFiles(ofBook: tombstone.id)
                }
            case .annotation:
                try database.run("UPDATE annotation SET body = X'', locator = NULL, comment = NULL WHERE id = ? AND deleted_at IS NOT NULL", [id])
                // Still a tombstone (not brought back since it was listed): its kept versions go too.
                if database.changes > 0 {
                    purged += 1
                    try database.run("UPDATE annotation_version SET body = X'', locator = NULL, comment = NULL WHERE annotation_id = ?", [id])
                }
            }
            try database.run("UPDATE outbox SET payload = X'' WHERE entity_id = ? AND state = 'done'", [id])
            try purgeTags(of: tombstone.id)
        }
        return (purged, goneContents)
    }

    /// Book files removed before `horizon` (the retention) lose what they still said: the
    /// reader's place in them, and, for a content no book has any more and none removed
    /// since, the metadata the file gave (title, authors, identifiers: empty from then on,
    /// read as `{}`, as a purged book's title is) and its key (its blob went with the
    /// removal); the finished operations that carried them are emptied too. No key is
    /// needed (`purge` works while locked). The rows stay, as every tombstone does, so a
    /// change from another device is still decided against the removal. Returns how many
    /// files were purged.
    func purgeRemovedFiles(before horizon: Timestamp) throws(StoreError) -> Int {
        tables.requireWrite()
        let cutoff = SQLValue.integer(horizon.millisecondsSince1970)
        do {
            var purged = Set<String>()
            try database.forEachRow("SELECT id FROM book_file WHERE removed_at < ? AND locator IS NOT NULL", [cutoff]) { row in
                purged.insert(row.text("id"))
            }
            try database.run("UPDATE book_file SET locator = NULL WHERE removed_at < ? AND locator IS NOT NULL", [cutoff])
            var contents: [String] = []
            try database.forEachRow("""
                SELECT id FROM file f
                WHERE (length(metadata) > 0 OR file_key IS NOT NULL OR link_path IS NOT NULL) AND \(Self.everyAttachmentRemovedBefore)
                """, [cutoff]) { row in contents.append(row.text("id")) }
            for id in contents {
                try database.run("UPDATE file SET metadata = X'', file_key = NULL, link_path = NULL, link_mtime = NULL WHERE id = ?",
                                 [.text(id)])
                try database.forEachRow("SELECT id FROM book_file WHERE file_id = ?", [.text(id)]) { row in purged.insert(row.text("id")) }
            }
            try database.run("""
                UPDATE outbox SET payload = X'' WHERE entity = 'bookFile' AND state = 'done' AND length(payload) > 0
                  AND entity_id IN (SELECT id FROM book_file WHERE removed_at < ?)
                """, [cutoff])
            return purged.count
        }
    }

    /// Forgets the operations of compacted tombstones, once their files are gone from
    /// every remote.
    public func forgetSentOperations(of tombstones: [Tombstone]) throws(StoreError) {
        tables.requireWrite()
        for tombstone in tombstones {
            try database.run("DELETE FROM outbox WHERE entity_id = ? AND state = 'done'", [.text(tombstone.id.rawValue)])
            try database.run("DELETE FROM sent_operation WHERE entity_id = ?", [.text(tombstone.id.rawValue)])
        }
    }

    /// Empties the names of a purged record's tags (they are its content too) and the
    /// payloads of the finished operations that carried them. Nothing, when the record
    /// was brought back before its purge. Call inside the purge's transaction.
    private func purgeTags(of id: EntityID) throws(StoreError) {
        guard try taggedRecordIsPurged(id) else { return }
        try database.run("""
            UPDATE outbox SET payload = X'' WHERE state = 'done' AND entity = 'tagging'
              AND entity_id IN (SELECT id FROM tagging WHERE record_id = ?)
            """, [.text(id.rawValue)])
        try database.run("UPDATE tagging SET name = X'' WHERE record_id = ?", [.text(id.rawValue)])
    }

    private func taggedRecordIsPurged(_ id: EntityID) throws(StoreError) -> Bool {
        var purged = false
        try database.forEachRow("""
            SELECT 1 FROM book WHERE id = ?1 AND deleted_at IS NOT NULL AND length(title) = 0
            UNION ALL SELECT 1 FROM annotation WHERE id = ?1 AND deleted_at IS NOT NULL AND length(body) = 0
            """, [.text(id.rawValue)]) { _ in purged = true }
        return purged
    }
}
