import Journal
public import SyncWire

extension Store {
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
        _ = try requireCipher()
        return try database.writeTransaction { () throws(StoreError) -> SnapshotReport in
            var lastBefore: Int64 = 0
            try database.forEachRow("SELECT coalesce(max(id), 0) FROM outbox") { row in lastBefore = row.int64(0) }
            var report = SnapshotReport()
            for id in try ids(in: "book") {
                do throws(StoreError) {
                    var version = try bookVersion(id)
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
                guard let version = try tablesOfThisTransaction.sessions.version(id) else { continue }
                try enqueueSnapshotOperation(.session(version), deleted: version.session.deletedAt != nil)
                report.operations += 1
            }
            for id in try ids(in: "annotation", where: "derived = 0") {
                guard case .record(let versions)? = try localAnnotation(id) else {
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
            for version in try tablesOfThisTransaction.tags.versions(where: "length(name) > 0", []) {
                try enqueueSnapshotOperation(.tagging(version), deleted: false)
                report.operations += 1
            }
            // Book files attached and removed alike, each with its content and sealed key.
            for version in try readBookFiles(where: "1") {
                try enqueueSnapshotOperation(.bookFile(version), deleted: version.file.isRemoved)
                report.operations += 1
            }
            let now = SQLValue.integer(clock.now().millisecondsSince1970)
            try database.run("""
                INSERT OR IGNORE INTO outbox_delivery (operation_id, remote, delivered_at)
                SELECT id, ?1, ?2 FROM outbox WHERE id <= ?3 AND state <> 'done' AND state <> 'failed'
                """, [.text(remote), now, .integer(lastBefore)])
            try database.run("""
                INSERT OR IGNORE INTO outbox_delivery (operation_id, remote, delivered_at)
                SELECT o.id, r.name, ?2 FROM outbox o, remote r WHERE o.id > ?3 AND r.name <> ?1
                """, [.text(remote), now, .integer(lastBefore)])
            try completeDeliveredOperations()
            try database.run("UPDATE remote SET needs_snapshot = 0 WHERE name = ?", [.text(remote)])
            return report
        }
    }

    /// The remotes whose next push must start with a snapshot.
    public func remotesNeedingSnapshot() throws(StoreError) -> Set<String> {
        var names = Set<String>()
        try database.forEachRow("SELECT name FROM remote WHERE needs_snapshot = 1") { row in names.insert(row.text(0)) }
        return names
    }

    private func enqueueSnapshotOperation(_ record: RecordVersion, deleted: Bool) throws(StoreError) {
        try enqueue(deleted ? .delete : .create, record, clock: try tick(), at: clock.now(), baseVersion: 0, base: nil)
    }

    private func ids(in table: String, where condition: String = "1") throws(StoreError) -> [EntityID] {
        var ids: [EntityID] = []
        try database.forEachRow("SELECT id FROM \(table) WHERE \(condition) ORDER BY id") { row in
            if let id = try? EntityID(validating: row.text(0)) { ids.append(id) }
        }
        return ids
    }
}

extension Store {
    /// Whether a sync has used `remote` without a failure before.
    public func hasSynced(with remote: String) throws(StoreError) -> Bool {
        var synced = false
        try database.forEachRow("SELECT last_synced_at IS NOT NULL FROM remote WHERE name = ?", [.text(remote)]) { row in
            synced = row.int64(0) == 1
        }
        return synced
    }

    /// Whether `remote` has everything this device has queued: no snapshot owed and no
    /// operation (waiting, or failed for good) that it lacks.
    public func remoteHasEverything(_ remote: String) throws(StoreError) -> Bool {
        var complete = false
        try database.forEachRow("""
            SELECT needs_snapshot = 0 AND NOT EXISTS (
                SELECT 1 FROM outbox o WHERE o.state <> 'done'
                  AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.operation_id = o.id AND d.remote = ?1))
            FROM remote WHERE name = ?1
            """, [.text(remote)]) { row in complete = row.int64(0) == 1 }
        return complete
    }
}
