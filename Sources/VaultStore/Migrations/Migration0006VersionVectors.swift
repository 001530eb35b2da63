/// Schema v6: what one merge needs. A note or quote keeps the history of its shown version
/// (`vv`, the version vector: NULL when it is only the version's own clock, as for every
/// record before v6); while versions written without seeing each other stand together, all
/// of them are kept in `annotation_version` (sealed like the note), and the conflict copies
/// shown from them are rows marked `derived` until a device keeps one as a note of its own.
/// A book's title, authors and deletion get their own clock (`metadata_hlc`; NULL: the
/// record's `hlc`), so a position set elsewhere never undoes a retitle, and its recorded
/// positions that can still matter are kept (`progress_marks`; NULL: only the current one,
/// `progress` at `progress_hlc`), so devices agree on the position whatever order they met
/// them in. An outbox row says how its payload is written (`payload_format`: 1, the
/// record's JSON sealed for the outbox; 2, the whole operation as it goes to the remotes).
/// Schema only: no row is rewritten, nor read: the added columns have no CHECK constraint,
/// which SQLite would test against every existing row while adding it, and again in every
/// integrity check (the Store, their only writer, writes 0 or 1 and 1 or 2).
/// FROZEN: shipped in bmvault 0.6.0; never edit this text.
enum Migration0006VersionVectors {
    static let migration = Migration(id: "0006_version_vectors",
                                     summary: "version vectors for notes, standing versions, a metadata clock for books, outbox payload format",
                                     schemaChecksum: "d344eeecda1f2458f865f2a66d48584db134d0670d6bff04fc2bbcd1b56822b2",
                                     sql: """
        ALTER TABLE book ADD COLUMN metadata_hlc TEXT;
        ALTER TABLE book ADD COLUMN progress_marks TEXT;
        ALTER TABLE annotation ADD COLUMN vv TEXT;
        ALTER TABLE annotation ADD COLUMN derived INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE outbox ADD COLUMN payload_format INTEGER NOT NULL DEFAULT 1;

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
            conflict_reason TEXT CHECK (conflict_reason = 'both-edited' OR conflict_reason = 'edited-after-delete'),
            UNIQUE (annotation_id, hlc)
        );
        """)
}
