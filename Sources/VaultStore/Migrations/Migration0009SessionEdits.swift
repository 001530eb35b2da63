/// Schema v9: reading sessions can be corrected and deleted. Each session gets a version
/// (1 for every session recorded before), a deletion time (a tombstone, so the deletion
/// reaches every device) and the clock of its last change, which ``SessionEditPolicy``
/// compares between devices (NULL: never changed since it was recorded, older than any
/// change). Columns only, with no CHECK constraint (which SQLite would test against every
/// existing row while adding it): every existing row stays as it was.
/// FROZEN: shipped in bmvault 0.9.0; never edit this text.
enum Migration0009SessionEdits {
    static let migration = Migration(id: "0009_session_edits",
                                     summary: "reading sessions: a version, a deletion time and the clock of their last change",
                                     schemaChecksum: "58d11167f886f51e57b886473cc687550802226326a33146fd87ac80e480dbbe",
                                     sql: """
        ALTER TABLE reading_session ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE reading_session ADD COLUMN deleted_at INTEGER;
        ALTER TABLE reading_session ADD COLUMN hlc TEXT;
        """)
}
