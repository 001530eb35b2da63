/// Schema v16: what imports from other programs keep. A note or quote may carry the reader's
/// `comment` (a note typed on a Kindle highlight), sealed like its body, in the note and in
/// each version kept of it; and the `import_key` it was imported under (its source and its
/// natural key there), sealed, so a later import of the same file adds nothing. A book keeps
/// the titles other programs gave it (`book_alias`, each sealed like a title), so a book the
/// reader matched by hand is found again by every later import. Only columns and a table are
/// added: no stored row is rewritten. FROZEN once shipped; never edit this text.
enum Migration0016Imports {
    static let migration = Migration(id: "0016_imports",
                                     summary: "imports: a quote's comment and import key (sealed), and the titles other programs give a book",
                                     schemaChecksum: "d61f5cc16f0a683f7216260b575be87515e363c83b3c5236a53e66b93c91cf07",
                                     sql: """
        ALTER TABLE annotation ADD COLUMN comment BLOB;
        ALTER TABLE annotation ADD COLUMN import_key BLOB;
        ALTER TABLE annotation_version ADD COLUMN comment BLOB;
        CREATE TABLE book_alias (
            id         TEXT PRIMARY KEY NOT NULL,
            book_id    TEXT NOT NULL REFERENCES book (id),
            alias      BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX book_alias_by_book ON book_alias (book_id);
        """)
}
