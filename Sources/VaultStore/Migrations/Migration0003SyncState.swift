/// Schema v3: what sync needs. Each device gets an id and a hybrid logical clock; books,
/// notes and quotes record the clock of their last change (`hlc`) and of the last version
/// this device exchanged with a remote (`synced_hlc`); progress has its own clock and
/// rewind flag; a note can be the conflict copy of another; outbox operations carry their
/// clock, the clock of the version they changed (`base_hlc`) and their retry state; remotes,
/// deliveries per remote, and the remote operations already applied are recorded.
/// Legacy operations get clocks from their timestamps (ordered by id) and, as their base, the
/// clock of the operation before them on the same record; a record's clock is that of its
/// last operation. So a vault synced for the first time replays its history in order, and
/// the next edit's base is exactly what other devices hold. FROZEN: shipped in bmvault 0.3.0; never edit this text.
enum Migration0003SyncState {
    static let migration = Migration(id: "0003_sync_state", summary: "sync: device clock, record clocks, conflict copies, remotes, retries",
                                     schemaChecksum: "afc75c978adb64d917541d97689d8f533a96157498fd930afcdcbf4967b25262",
                                     sql: """
        ALTER TABLE book ADD COLUMN hlc TEXT;
        ALTER TABLE book ADD COLUMN synced_hlc TEXT;
        ALTER TABLE book ADD COLUMN progress_hlc TEXT;
        ALTER TABLE book ADD COLUMN progress_rewind INTEGER NOT NULL DEFAULT 0 CHECK (progress_rewind IN (0, 1));
        ALTER TABLE annotation ADD COLUMN hlc TEXT;
        ALTER TABLE annotation ADD COLUMN synced_hlc TEXT;
        ALTER TABLE annotation ADD COLUMN conflict_of TEXT;
        ALTER TABLE annotation ADD COLUMN conflict_reason TEXT
            CHECK (conflict_reason IN ('both-edited', 'edited-after-delete'));
        ALTER TABLE outbox ADD COLUMN hlc TEXT;
        ALTER TABLE outbox ADD COLUMN base_hlc TEXT;
        ALTER TABLE outbox ADD COLUMN next_attempt_at INTEGER;
        ALTER TABLE outbox ADD COLUMN last_attempt_at INTEGER;
        ALTER TABLE outbox ADD COLUMN last_error_class TEXT;

        CREATE TABLE remote (
            name     TEXT PRIMARY KEY NOT NULL,
            kind     TEXT NOT NULL CHECK (kind IN ('folder')),
            location TEXT NOT NULL,
            added_at INTEGER NOT NULL
        );

        CREATE TABLE outbox_delivery (
            operation_id INTEGER NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
            remote       TEXT NOT NULL REFERENCES remote (name) ON DELETE CASCADE,
            delivered_at INTEGER NOT NULL,
            PRIMARY KEY (operation_id, remote)
        ) WITHOUT ROWID;

        CREATE TABLE applied_operation (
            idempotency_key TEXT PRIMARY KEY NOT NULL,
            device_id       TEXT NOT NULL,
            hlc             TEXT NOT NULL,
            applied_at      INTEGER NOT NULL
        ) WITHOUT ROWID;

        CREATE INDEX annotation_conflict ON annotation (conflict_of) WHERE conflict_of IS NOT NULL;
        CREATE INDEX outbox_by_entity ON outbox (entity_id, state);

        INSERT INTO vault_meta (key, value) VALUES ('device_id', lower(hex(randomblob(16))));
        UPDATE outbox SET hlc = printf('%016x-%08x-%s', created_at, id, (SELECT value FROM vault_meta WHERE key = 'device_id'));
        UPDATE outbox SET base_hlc = (SELECT earlier.hlc FROM outbox AS earlier
                                      WHERE earlier.entity_id = outbox.entity_id AND earlier.id < outbox.id
                                      ORDER BY earlier.id DESC LIMIT 1);
        UPDATE book SET hlc = coalesce((SELECT hlc FROM outbox WHERE entity_id = book.id ORDER BY id DESC LIMIT 1),
                                       printf('%016x-%08x-%s', updated_at, 0, (SELECT value FROM vault_meta WHERE key = 'device_id')));
        UPDATE book SET progress_hlc = hlc;
        UPDATE annotation SET hlc = coalesce((SELECT hlc FROM outbox WHERE entity_id = annotation.id ORDER BY id DESC LIMIT 1),
                                             printf('%016x-%08x-%s', updated_at, 0, (SELECT value FROM vault_meta WHERE key = 'device_id')));
        INSERT INTO vault_meta (key, value)
            SELECT 'hlc', coalesce(max(clock), printf('%016x-%08x-%s', 0, 0, (SELECT value FROM vault_meta WHERE key = 'device_id')))
            FROM (SELECT hlc AS clock FROM outbox UNION ALL SELECT hlc FROM book UNION ALL SELECT hlc FROM annotation);
        """)
}
