/// Schema v18: book files sync. A `book_file` becomes a record devices exchange: removing
/// one leaves it `removed_at` (a tombstone, so the removal reaches other devices), and it
/// keeps a version, the clock of its last attachment change (`hlc`) and of its locator
/// (`locator_hlc`), in the clear; NULL for an attachment made before (the origin: any later
/// change wins). The UNIQUE (book_id, file_id) goes: two devices may attach the same
/// content to the same book, each under its own id, and both rows must be kept (listings
/// show them once). SQLite cannot drop a constraint, so the table is made again: the old
/// one renamed, the new one created and filled with every row, the old one dropped (nothing
/// references `book_file`). The outbox's `entity` CHECK gains `bookFile`, its text edited
/// in place as migration 0013 did: a wider constraint no stored row can violate.
/// FROZEN once shipped; never edit this text.
enum Migration0018FileSync {
    static let migration = Migration(id: "0018_file_sync",
                                     summary: "book files sync: attachments keep removals, versions and clocks; the outbox takes book-file operations",
                                     schemaChecksum: "147f73ad1979c3cb384cbe7309a8ce1b313e0d996392b2e4ebe5845d9fa88e55",
                                     sql: """
        ALTER TABLE book_file RENAME TO book_file_v17;
        DROP INDEX book_file_by_file;

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

        INSERT INTO book_file (id, book_id, file_id, locator, created_at, updated_at)
        SELECT id, book_id, file_id, locator, created_at, updated_at FROM book_file_v17;
        DROP TABLE book_file_v17;

        CREATE INDEX book_file_by_file ON book_file (file_id);
        CREATE INDEX book_file_by_book ON book_file (book_id);

        PRAGMA writable_schema = ON;
        UPDATE sqlite_master
        SET sql = replace(sql,
            'CHECK (entity = ''book'' OR entity = ''session'' OR entity = ''annotation'' OR entity = ''tagging'')',
            'CHECK (entity = ''book'' OR entity = ''session'' OR entity = ''annotation'' OR entity = ''tagging'' OR entity = ''bookFile'')')
        WHERE type = 'table' AND name = 'outbox';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
