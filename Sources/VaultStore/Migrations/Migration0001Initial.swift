/// Schema v1: the journal (books, reading sessions, notes and quotes), keyslots, vault
/// metadata and the outbox. FROZEN: shipped in bmvault 0.1.0; never edit this text.
enum Migration0001Initial {
    static let migration = Migration(id: "0001_initial", summary: "books, sessions, notes and quotes, keyslots, outbox",
                                     schemaChecksum: "7b32e5ec65ac92a35626bfba8f4e87c394ad41b8241d7db09c9391e93f422610",
                                     sql: """
        CREATE TABLE vault_meta (
            key   TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );

        CREATE TABLE keyslot (
            id          TEXT PRIMARY KEY NOT NULL,
            kind        TEXT NOT NULL UNIQUE CHECK (kind IN ('passphrase', 'recovery')),
            kdf         TEXT NOT NULL,
            ops_limit   INTEGER NOT NULL,
            mem_limit   INTEGER NOT NULL,
            salt        BLOB NOT NULL,
            wrapped_key BLOB NOT NULL,
            created_at  INTEGER NOT NULL
        );

        CREATE TABLE book (
            id         TEXT PRIMARY KEY NOT NULL,
            title      BLOB NOT NULL,
            authors    BLOB NOT NULL,
            progress   REAL NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 100),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            deleted_at INTEGER,
            version    INTEGER NOT NULL
        );

        CREATE TABLE reading_session (
            id         TEXT PRIMARY KEY NOT NULL,
            book_id    TEXT NOT NULL REFERENCES book (id),
            started_at INTEGER NOT NULL,
            ended_at   INTEGER NOT NULL,
            pages_read INTEGER NOT NULL CHECK (pages_read >= 0)
        );
        CREATE INDEX reading_session_by_book ON reading_session (book_id, started_at);

        CREATE TABLE annotation (
            id         TEXT PRIMARY KEY NOT NULL,
            book_id    TEXT NOT NULL REFERENCES book (id),
            kind       TEXT NOT NULL CHECK (kind IN ('note', 'quote')),
            body       BLOB NOT NULL,
            locator    BLOB,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            deleted_at INTEGER,
            version    INTEGER NOT NULL
        );
        CREATE INDEX annotation_by_book ON annotation (book_id, created_at);

        CREATE TABLE outbox (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            entity          TEXT NOT NULL CHECK (entity IN ('book', 'session', 'annotation')),
            entity_id       TEXT NOT NULL,
            action          TEXT NOT NULL CHECK (action IN ('create', 'update', 'delete')),
            payload         BLOB NOT NULL,
            base_version    INTEGER NOT NULL,
            attempt_count   INTEGER NOT NULL DEFAULT 0,
            idempotency_key TEXT NOT NULL UNIQUE,
            created_at      INTEGER NOT NULL,
            state           TEXT NOT NULL DEFAULT 'pending'
                            CHECK (state IN ('pending', 'in_flight', 'done', 'failed'))
        );
        CREATE INDEX outbox_by_state ON outbox (state, id);
        """)
}
