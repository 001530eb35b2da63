/// Schema v7: every remote gets the whole journal, and the outbox stops growing.
/// `remote.needs_snapshot` (1: the remote lacks operations that were finished without it,
/// so its next sync first queues a snapshot of every record for it alone; set here for each
/// remote missing a finished operation: one added after others had synced, or removed and
/// added again), `remote.last_synced_at` (when a sync last used it without a failure), and
/// `sent_operation`: what is kept of an operation once every remote has it, the name of its
/// file (record id; idempotency key as 16 bytes; clock as integers) and its action,
/// needed only to remove that file once its record's deletion is acknowledged everywhere.
/// Schema only, and one `UPDATE` of the (few) remote rows; the outbox is compacted by the
/// Store afterwards, never here.
/// FROZEN: shipped in bmvault 0.7.0; never edit this text.
enum Migration0007RemoteHistory {
    static let migration = Migration(id: "0007_remote_history",
                                     summary: "snapshot flag and last sync time for remotes, compact record of sent operations",
                                     schemaChecksum: "7a3fc23e9c0c09e81a6a36599830aa9826126f397220f7df08edbef39e1c1fc0",
                                     sql: """
        ALTER TABLE remote ADD COLUMN needs_snapshot INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE remote ADD COLUMN last_synced_at INTEGER;
        UPDATE remote SET needs_snapshot = 1
        WHERE EXISTS (SELECT 1 FROM outbox o
                      WHERE o.state = 'done'
                        AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.operation_id = o.id AND d.remote = remote.name));

        CREATE TABLE sent_operation (
            entity_id       TEXT NOT NULL,
            idempotency_key BLOB NOT NULL,
            wall            INTEGER NOT NULL,
            counter         INTEGER NOT NULL,
            action          TEXT NOT NULL,
            PRIMARY KEY (entity_id, idempotency_key)
        ) WITHOUT ROWID;
        """)
}
