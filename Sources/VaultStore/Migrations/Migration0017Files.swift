/// Schema v17: the reader's book files (EPUB, MOBI, PDF), kept beside the journal, not in
/// it. A `file` is one content: its format and size in the clear; its SHA-256, what it says
/// of itself (title, creators, identifiers: JSON) sealed; and where it is: in the vault's
/// file store (`files/<id>`, encrypted under its own key, `file_key`, sealed by the vault
/// key), or only linked where it lies on one device (`link_path` sealed, with the size and
/// mtime it had). A `book_file` attaches a content to a book (one content may belong to
/// two books; a book may have several editions), with the reader's current locator in it,
/// sealed. The rekey job's `phase` CHECK gains both tables (re-sealed between tags and the
/// outbox), its text edited in place as migration 0013 did: a wider constraint no stored
/// row can violate. FROZEN once shipped; never edit this text.
enum Migration0017Files {
    static let migration = Migration(id: "0017_files",
                                     summary: "book files: contents kept encrypted beside the journal or linked where they lie, attached to books",
                                     schemaChecksum: "3088eaed67e1fbddf138a1fc666ffcd2e160eff2072156b6fb86cbe9b43c044a",
                                     sql: """
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

        CREATE TABLE book_file (
            id         TEXT PRIMARY KEY NOT NULL,
            book_id    TEXT NOT NULL REFERENCES book (id),
            file_id    TEXT NOT NULL REFERENCES file (id),
            locator    BLOB,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (book_id, file_id)
        );

        CREATE INDEX book_file_by_file ON book_file (file_id);

        PRAGMA writable_schema = ON;
        UPDATE sqlite_master
        SET sql = replace(sql,
            'CHECK (phase IN (''book'', ''annotation'', ''tagging'', ''outbox'', ''finish''))',
            'CHECK (phase IN (''book'', ''annotation'', ''tagging'', ''file'', ''book_file'', ''outbox'', ''finish''))')
        WHERE type = 'table' AND name = 'rekey_job';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
