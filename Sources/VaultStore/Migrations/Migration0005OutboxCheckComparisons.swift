/// Schema v5: the outbox's three CHECK constraints (`entity`, `action`, `state`) as
/// comparisons instead of `IN (...)` lists, with the same meaning. SQLite checks a list of
/// more than two constants by building a temporary table, and inside a CHECK constraint it
/// builds it again for every row written: that was most of the cost of writing an outbox
/// row (an archive import of 140,000 operations spent over a second on it). The table's
/// text is edited in place (`editsSchemaText`), as SQLite documents for a change no stored
/// row can violate, so no row is rewritten; `integrity_check` re-checks every row before
/// the upgrade commits. FROZEN: shipped in bmvault 0.5.0; never edit this text.
enum Migration0005OutboxCheckComparisons {
    static let migration = Migration(id: "0005_outbox_check_comparisons",
                                     summary: "the outbox's CHECK lists as comparisons (no temporary table per row written)",
                                     schemaChecksum: "094b9350b47014300f3d559a34a9b467ca8b51f1148fb4f6e150a645786103c3",
                                     sql: """
        PRAGMA writable_schema = ON;
        UPDATE sqlite_master
        SET sql = replace(replace(replace(sql,
            'CHECK (entity IN (''book'', ''session'', ''annotation''))',
            'CHECK (entity = ''book'' OR entity = ''session'' OR entity = ''annotation'')'),
            'CHECK (action IN (''create'', ''update'', ''delete''))',
            'CHECK (action = ''create'' OR action = ''update'' OR action = ''delete'')'),
            'CHECK (state IN (''pending'', ''in_flight'', ''done'', ''failed''))',
            'CHECK (state = ''pending'' OR state = ''in_flight'' OR state = ''done'' OR state = ''failed'')')
        WHERE type = 'table' AND name = 'outbox';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
