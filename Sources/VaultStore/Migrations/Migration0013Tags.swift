/// Schema v13: tags on books, notes and quotes. Each tag on a record is a `tagging` of its
/// own (so a tag never touches a note's text, and one given on two devices is simply there
/// twice): `name` sealed like a title, the record it is on, when it was given and taken
/// away (`removed_at`), and the clock of its last change, in the clear. The outbox's
/// `entity` CHECK and the rekey job's `phase` CHECK gain `tagging` (the names are
/// re-sealed by a rekey, between notes and the outbox), their text edited in place
/// (`editsSchemaText`, as migration 0005 did): wider constraints no stored row can
/// violate, so no row is rewritten.
/// FROZEN once shipped in bmvault 0.13.0; never edit this text.
enum Migration0013Tags {
    static let migration = Migration(id: "0013_tags",
                                     summary: "tags on books, notes and quotes (sealed names); the outbox takes tag operations",
                                     schemaChecksum: "68148b7de08087002ef7616c09a0d39be65cd2f9121644cf8f29a694cd8fc3eb",
                                     sql: """
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

        CREATE INDEX tagging_by_record ON tagging (record_id);

        PRAGMA writable_schema = ON;
        UPDATE sqlite_master
        SET sql = replace(sql,
            'CHECK (entity = ''book'' OR entity = ''session'' OR entity = ''annotation'')',
            'CHECK (entity = ''book'' OR entity = ''session'' OR entity = ''annotation'' OR entity = ''tagging'')')
        WHERE type = 'table' AND name = 'outbox';
        UPDATE sqlite_master
        SET sql = replace(sql,
            'CHECK (phase IN (''book'', ''annotation'', ''outbox'', ''finish''))',
            'CHECK (phase IN (''book'', ''annotation'', ''tagging'', ''outbox'', ''finish''))')
        WHERE type = 'table' AND name = 'rekey_job';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
