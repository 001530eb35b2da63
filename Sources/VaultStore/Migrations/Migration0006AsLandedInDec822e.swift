/// Migration 0006 as it first landed, in commit dec822e (bmvault 0.6.0): without
/// `book.progress_marks` (added to the migration's text by a37bc02), and with CHECK
/// constraints on `annotation.derived` and `outbox.payload_format` (dropped from it by
/// c00504d). The repair adds the column, as today's text does, right after
/// `metadata_hlc`, and removes the two constraints from the tables' text in place, which
/// SQLite documents as safe (removing a CHECK constraint invalidates no stored row).
/// FROZEN: shipped in bmvault 0.18.1; never edit this text.
enum Migration0006AsLandedInDec822e {
    static let variant = ShippedVariant(migrationID: "0006_version_vectors",
                                        checksum: "5fb9c462152b226ab95ec069f7bb39445b47e7d8bd5c1f3aaa8f74a893c50259",
                                        commit: "dec822e", vaultVersion: 6,
                                        repair: """
        ALTER TABLE book ADD COLUMN progress_marks TEXT;
        PRAGMA writable_schema = ON;
        UPDATE sqlite_master SET sql = replace(sql, ' CHECK (derived = 0 OR derived = 1)', '')
        WHERE type = 'table' AND name = 'annotation';
        UPDATE sqlite_master SET sql = replace(sql, ' CHECK (payload_format = 1 OR payload_format = 2)', '')
        WHERE type = 'table' AND name = 'outbox';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
