/// Schema v2: the state of a `bmvault rekey` that runs in batches and survives a crash:
/// the job's progress, and the keyslots of the new key until they replace the old ones.
/// FROZEN: shipped in bmvault 0.2.0; never edit this text.
enum Migration0002RekeyJob {
    static let migration = Migration(id: "0002_rekey_job", summary: "resumable rekey: job progress and pending keyslots",
                                     schemaChecksum: "ad325f2d4711cf3a4960d50fab4f7b97015dcfe86e48d0de7b7bfc2a8d2da38c",
                                     sql: """
        CREATE TABLE rekey_job (
            id         INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
            old_key_id TEXT NOT NULL,
            new_key_id TEXT NOT NULL,
            phase      TEXT NOT NULL CHECK (phase IN ('book', 'annotation', 'outbox', 'finish')),
            cursor     INTEGER NOT NULL DEFAULT 0,
            done       INTEGER NOT NULL DEFAULT 0,
            total      INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );

        CREATE TABLE rekey_keyslot (
            id          TEXT PRIMARY KEY NOT NULL,
            kind        TEXT NOT NULL UNIQUE CHECK (kind IN ('passphrase', 'recovery')),
            kdf         TEXT NOT NULL,
            ops_limit   INTEGER NOT NULL,
            mem_limit   INTEGER NOT NULL,
            salt        BLOB NOT NULL,
            wrapped_key BLOB NOT NULL,
            created_at  INTEGER NOT NULL
        );
        """)
}
