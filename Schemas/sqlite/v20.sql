-- bmvault schema v20 (frozen; generated from migration 0020_session_sources; never edit)
CREATE INDEX annotation_by_book ON annotation (book_id, created_at);

CREATE INDEX annotation_by_created ON annotation (created_at);

CREATE INDEX annotation_by_short_id ON annotation(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12));

CREATE INDEX annotation_conflict ON annotation (conflict_of) WHERE conflict_of IS NOT NULL;

CREATE INDEX book_alias_by_book ON book_alias (book_id);

CREATE INDEX book_by_short_id ON book(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12));

CREATE INDEX book_file_by_book ON book_file (book_id);

CREATE INDEX book_file_by_file ON book_file (file_id);

CREATE INDEX outbox_by_entity ON outbox (entity_id, state);

CREATE INDEX outbox_by_state ON outbox (state, id);

CREATE INDEX reading_session_by_book ON reading_session (book_id, started_at);

CREATE INDEX reading_session_by_short_id ON reading_session(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12));

CREATE INDEX reading_session_live_by_book ON reading_session (book_id, deleted_at, ended_at);

CREATE INDEX tagging_by_record ON tagging (record_id);

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
, hlc TEXT, synced_hlc TEXT, conflict_of TEXT, conflict_reason TEXT
    CHECK (conflict_reason IN ('both-edited', 'edited-after-delete')), vv TEXT, derived INTEGER NOT NULL DEFAULT 0, comment BLOB, import_key BLOB);

CREATE TABLE annotation_version (
    annotation_id   TEXT NOT NULL REFERENCES annotation (id),
    hlc             TEXT NOT NULL,
    vv              TEXT,
    body            BLOB NOT NULL,
    locator         BLOB,
    updated_at      INTEGER NOT NULL,
    deleted_at      INTEGER,
    version         INTEGER NOT NULL,
    conflict_of     TEXT,
    conflict_reason TEXT CHECK (conflict_reason = 'both-edited' OR conflict_reason = 'edited-after-delete'), book_id TEXT, kind TEXT, comment BLOB,
    UNIQUE (annotation_id, hlc)
);

CREATE TABLE applied_operation (
    idempotency_key TEXT PRIMARY KEY NOT NULL,
    device_id       TEXT NOT NULL,
    hlc             TEXT NOT NULL,
    applied_at      INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE book (
    id         TEXT PRIMARY KEY NOT NULL,
    title      BLOB NOT NULL,
    authors    BLOB NOT NULL,
    progress   REAL NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 100),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER,
    version    INTEGER NOT NULL
, hlc TEXT, synced_hlc TEXT, progress_hlc TEXT, progress_rewind INTEGER NOT NULL DEFAULT 0 CHECK (progress_rewind IN (0, 1)), metadata_hlc TEXT, progress_marks TEXT, reading_log TEXT, rating BLOB, rating_hlc TEXT, edition BLOB, edition_hlc TEXT);

CREATE TABLE book_activity (
    book_id      TEXT PRIMARY KEY NOT NULL,
    notes        INTEGER NOT NULL DEFAULT 0,
    quotes       INTEGER NOT NULL DEFAULT 0,
    sessions     INTEGER NOT NULL DEFAULT 0,
    last_session INTEGER
) WITHOUT ROWID;

CREATE TABLE book_alias (
    id         TEXT PRIMARY KEY NOT NULL,
    book_id    TEXT NOT NULL REFERENCES book (id),
    alias      BLOB NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE book_file (
    id          TEXT PRIMARY KEY NOT NULL,
    book_id     TEXT NOT NULL REFERENCES book (id),
    file_id     TEXT NOT NULL REFERENCES file (id),
    locator     BLOB,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    removed_at  INTEGER,
    version     INTEGER NOT NULL DEFAULT 1,
    hlc         TEXT,
    locator_hlc TEXT
);

CREATE TABLE book_title_cache (
    id       INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    titles   BLOB NOT NULL,
    built_at INTEGER NOT NULL
);

CREATE TABLE file (
    id         TEXT PRIMARY KEY NOT NULL,
    format     TEXT NOT NULL CHECK (format IN ('epub', 'mobi', 'azw3', 'pdf')),
    size       INTEGER NOT NULL CHECK (size >= 0),
    checksum   BLOB NOT NULL,
    metadata   BLOB NOT NULL,
    file_key   BLOB,
    link_path  BLOB,
    link_mtime INTEGER,
    device_id  TEXT NOT NULL,
    created_at INTEGER NOT NULL
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

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    entity          TEXT NOT NULL CHECK (entity = 'book' OR entity = 'session' OR entity = 'annotation' OR entity = 'tagging' OR entity = 'bookFile'),
    entity_id       TEXT NOT NULL,
    action          TEXT NOT NULL CHECK (action = 'create' OR action = 'update' OR action = 'delete'),
    payload         BLOB NOT NULL,
    base_version    INTEGER NOT NULL,
    attempt_count   INTEGER NOT NULL DEFAULT 0,
    idempotency_key TEXT NOT NULL UNIQUE,
    created_at      INTEGER NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state = 'pending' OR state = 'in_flight' OR state = 'done' OR state = 'failed')
, hlc TEXT, base_hlc TEXT, next_attempt_at INTEGER, last_attempt_at INTEGER, last_error_class TEXT, payload_format INTEGER NOT NULL DEFAULT 1);

CREATE TABLE outbox_delivery (
    operation_id INTEGER NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
    remote       TEXT NOT NULL REFERENCES remote (name) ON DELETE CASCADE,
    delivered_at INTEGER NOT NULL,
    PRIMARY KEY (operation_id, remote)
) WITHOUT ROWID;

CREATE TABLE reading_session (
    id         TEXT PRIMARY KEY NOT NULL,
    book_id    TEXT NOT NULL REFERENCES book (id),
    started_at INTEGER NOT NULL,
    ended_at   INTEGER NOT NULL,
    pages_read INTEGER NOT NULL CHECK (pages_read >= 0)
, version INTEGER NOT NULL DEFAULT 1, deleted_at INTEGER, hlc TEXT, source TEXT);

CREATE TABLE rekey_job (
    id         INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    old_key_id TEXT NOT NULL,
    new_key_id TEXT NOT NULL,
    phase      TEXT NOT NULL CHECK (phase IN ('book', 'annotation', 'tagging', 'file', 'book_file', 'outbox', 'finish')),
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

CREATE TABLE remote (
    name     TEXT PRIMARY KEY NOT NULL,
    kind     TEXT NOT NULL CHECK (kind = 'folder' OR kind = 'webdav'),
    location TEXT NOT NULL,
    added_at INTEGER NOT NULL
, needs_snapshot INTEGER NOT NULL DEFAULT 0, last_synced_at INTEGER, user TEXT, ca_file TEXT, carries_files INTEGER NOT NULL DEFAULT 0 CHECK (carries_files IN (0, 1)));

CREATE TABLE retired_key (
    key_id     TEXT PRIMARY KEY NOT NULL,
    sealed_key BLOB NOT NULL,
    retired_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE schema_migration (
    id              TEXT PRIMARY KEY NOT NULL,
    checksum        TEXT NOT NULL,
    applied_at      INTEGER NOT NULL,
    duration_ms     INTEGER NOT NULL,
    bmvault_version TEXT NOT NULL
);

CREATE TABLE sent_operation (
    entity_id       TEXT NOT NULL,
    idempotency_key BLOB NOT NULL,
    wall            INTEGER NOT NULL,
    counter         INTEGER NOT NULL,
    action          TEXT NOT NULL,
    PRIMARY KEY (entity_id, idempotency_key)
) WITHOUT ROWID;

CREATE TABLE sqlite_sequence(name,seq);

CREATE TABLE tagging (
    id          TEXT PRIMARY KEY NOT NULL,
    record_id   TEXT NOT NULL,
    record_kind TEXT NOT NULL CHECK (record_kind = 'book' OR record_kind = 'annotation'),
    name        BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    removed_at  INTEGER,
    version     INTEGER NOT NULL,
    hlc         TEXT NOT NULL
);

CREATE TABLE vault_meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);

CREATE TRIGGER book_activity_on_annotation_delete AFTER DELETE ON annotation
WHEN OLD.deleted_at IS NULL
BEGIN
    UPDATE book_activity SET notes = notes - (OLD.kind = 'note'), quotes = quotes - (OLD.kind = 'quote')
    WHERE book_id = OLD.book_id;
END;

CREATE TRIGGER book_activity_on_annotation_insert AFTER INSERT ON annotation
WHEN NEW.deleted_at IS NULL
BEGIN
    INSERT INTO book_activity (book_id, notes, quotes) VALUES (NEW.book_id, NEW.kind = 'note', NEW.kind = 'quote')
    ON CONFLICT (book_id) DO UPDATE SET notes = notes + excluded.notes, quotes = quotes + excluded.quotes;
END;

CREATE TRIGGER book_activity_on_annotation_update AFTER UPDATE OF book_id, kind, deleted_at ON annotation
BEGIN
    UPDATE book_activity SET notes = notes - (OLD.kind = 'note'), quotes = quotes - (OLD.kind = 'quote')
    WHERE book_id = OLD.book_id AND OLD.deleted_at IS NULL;
    INSERT INTO book_activity (book_id, notes, quotes)
    SELECT NEW.book_id, NEW.kind = 'note', NEW.kind = 'quote' WHERE NEW.deleted_at IS NULL
    ON CONFLICT (book_id) DO UPDATE SET notes = notes + excluded.notes, quotes = quotes + excluded.quotes;
END;

CREATE TRIGGER book_activity_on_session_delete AFTER DELETE ON reading_session
BEGIN
    UPDATE book_activity
    SET sessions = (SELECT count(*) FROM reading_session WHERE book_id = OLD.book_id AND deleted_at IS NULL),
        last_session = (SELECT max(ended_at) FROM reading_session WHERE book_id = OLD.book_id AND deleted_at IS NULL)
    WHERE book_id = OLD.book_id;
END;

CREATE TRIGGER book_activity_on_session_insert AFTER INSERT ON reading_session
BEGIN
    INSERT INTO book_activity (book_id) VALUES (NEW.book_id) ON CONFLICT (book_id) DO NOTHING;
    UPDATE book_activity
    SET sessions = (SELECT count(*) FROM reading_session WHERE book_id = NEW.book_id AND deleted_at IS NULL),
        last_session = (SELECT max(ended_at) FROM reading_session WHERE book_id = NEW.book_id AND deleted_at IS NULL)
    WHERE book_id = NEW.book_id;
END;

CREATE TRIGGER book_activity_on_session_update AFTER UPDATE OF book_id, ended_at, deleted_at ON reading_session
BEGIN
    INSERT INTO book_activity (book_id) VALUES (NEW.book_id) ON CONFLICT (book_id) DO NOTHING;
    UPDATE book_activity
    SET sessions = (SELECT count(*) FROM reading_session WHERE book_id = book_activity.book_id AND deleted_at IS NULL),
        last_session = (SELECT max(ended_at) FROM reading_session WHERE book_id = book_activity.book_id AND deleted_at IS NULL)
    WHERE book_id IN (OLD.book_id, NEW.book_id);
END;

CREATE TRIGGER book_title_cache_on_delete AFTER DELETE ON book
BEGIN
    DELETE FROM book_title_cache;
END;

CREATE TRIGGER book_title_cache_on_insert AFTER INSERT ON book
BEGIN
    DELETE FROM book_title_cache;
END;

CREATE TRIGGER book_title_cache_on_update AFTER UPDATE OF id, title, created_at, deleted_at ON book
WHEN NEW.id IS NOT OLD.id OR NEW.title IS NOT OLD.title OR NEW.created_at IS NOT OLD.created_at
  OR NEW.deleted_at IS NOT OLD.deleted_at
BEGIN
    DELETE FROM book_title_cache;
END;

