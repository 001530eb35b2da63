/// Schema v4: a cache of the live books' titles, sealed as one field, so naming a book
/// (`note add BOOK`, `list --book`) opens one field instead of one per book. Triggers empty
/// the cache whenever a book is added, removed, renamed, re-sealed or reordered, whichever
/// code path does it (a progress change, which leaves those alone, keeps it); the Store
/// rebuilds it on the next read. It holds nothing that is not
/// also in `book`. FROZEN: shipped in bmvault 0.4.0; never edit this text.
enum Migration0004BookTitleCache {
    static let migration = Migration(id: "0004_book_title_cache", summary: "a sealed cache of book titles, emptied by triggers on every book change",
                                     schemaChecksum: "d3cecaac14c50e4c6375fbf2d618d0d20c8a92fb0b320c046d7da59f6c981992",
                                     sql: """
        CREATE TABLE book_title_cache (
            id       INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
            titles   BLOB NOT NULL,
            built_at INTEGER NOT NULL
        );

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

        CREATE TRIGGER book_title_cache_on_delete AFTER DELETE ON book
        BEGIN
            DELETE FROM book_title_cache;
        END;
        """)
}
