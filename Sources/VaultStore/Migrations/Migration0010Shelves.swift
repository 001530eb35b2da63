/// Schema v10: a book's reading status and rating, and an index for listings by date.
/// `reading_log` holds every status change (want to read, started, finished, abandoned)
/// as ``ReadingLog/text``, in the clear like session times (NULL: none); `rating` is the
/// sealed rating and `rating_hlc` the clock of its last change (NULL: never rated, older
/// than any rating). `annotation_by_created` serves `list --since/--until/--on` and `-n`.
/// Columns only, with no CHECK constraint: every existing row stays as it was.
/// FROZEN once shipped in bmvault 0.10.0; never edit this text.
enum Migration0010Shelves {
    static let migration = Migration(id: "0010_shelves",
                                     summary: "books: a reading log (status changes) and a sealed rating; notes indexed by creation time",
                                     schemaChecksum: "ed600e00f85c8501e07ed37429c1f71eb9f416ee9d2f88b6c9ca4bdb02ebb562",
                                     sql: """
        ALTER TABLE book ADD COLUMN reading_log TEXT;
        ALTER TABLE book ADD COLUMN rating BLOB;
        ALTER TABLE book ADD COLUMN rating_hlc TEXT;
        CREATE INDEX annotation_by_created ON annotation (created_at);
        """)
}
