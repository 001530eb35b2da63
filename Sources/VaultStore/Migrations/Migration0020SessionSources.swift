/// Schema v20: a reading session an import recorded says where it came from.
/// `reading_session.source` is the program whose file held it (a short lowercase word; NULL
/// for a session the reader typed, as for every session recorded before), in the clear like
/// the session's times and pages. A column without a CHECK constraint (which SQLite would
/// test against every existing row while adding it): no row is rewritten.
/// FROZEN once shipped; never edit this text.
enum Migration0020SessionSources {
    static let migration = Migration(id: "0020_session_sources",
                                     summary: "reading sessions: where an import found them (source)",
                                     schemaChecksum: "6483a66927c4798bbc0938044174ae42545fc7b521bfc1516cf4a74659ce9c0b",
                                     sql: """
        ALTER TABLE reading_session ADD COLUMN source TEXT;
        """)
}
