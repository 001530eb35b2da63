/// Schema v14: short ids. A person reads and types the shortest unique start of an id's
/// random part (after the UUIDv7's clock and version digit: `abc8def` for
/// `0193f2a1-7c4e-7abc-8def-0123456789ab`), so books, sessions, notes and quotes each get
/// an index on that part, through which a short id is found and its shortest unique form
/// worked out. Indexes only: no row is rewritten.
/// FROZEN once shipped in bmvault 0.14.0; never edit this text.
enum Migration0014ShortIDs {
    static let migration = Migration(id: "0014_short_ids",
                                     summary: "indexes on the random part of record ids, for short ids",
                                     schemaChecksum: "9b9605d57c085992c10ef34d2f62edd39128bf5a94923d31855ae94d53629c50",
                                     sql: """
        CREATE INDEX book_by_short_id ON book(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12));
        CREATE INDEX reading_session_by_short_id ON reading_session(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12));
        CREATE INDEX annotation_by_short_id ON annotation(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12));
        """)
}
