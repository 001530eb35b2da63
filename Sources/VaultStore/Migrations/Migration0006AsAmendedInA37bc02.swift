/// Migration 0006 as amended in commit a37bc02 (still bmvault 0.6.0): with
/// `book.progress_marks`, but still with the CHECK constraints on `annotation.derived` and
/// `outbox.payload_format` that c00504d dropped from its text. The repair removes the two
/// constraints from the tables' text in place, as SQLite documents for removing a CHECK
/// constraint (no stored row can become invalid). FROZEN: shipped in bmvault 0.18.1; never
/// edit this text.
enum Migration0006AsAmendedInA37bc02 {
    static let variant = ShippedVariant(migrationID: "0006_version_vectors",
                                        checksum: "376e7163688f6110ae1cec1d9485bd7ee9ceb03cad22db082c28d86be6c821af",
                                        commit: "a37bc02", vaultVersion: 6,
                                        repair: """
        PRAGMA writable_schema = ON;
        UPDATE sqlite_master SET sql = replace(sql, ' CHECK (derived = 0 OR derived = 1)', '')
        WHERE type = 'table' AND name = 'annotation';
        UPDATE sqlite_master SET sql = replace(sql, ' CHECK (payload_format = 1 OR payload_format = 2)', '')
        WHERE type = 'table' AND name = 'outbox';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
