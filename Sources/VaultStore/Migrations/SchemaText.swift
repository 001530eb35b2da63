import VaultCrypto

/// The schema of a database as text, in the form `Schemas/sqlite/vN.sql` keeps it (after
/// its header line): each object's SQL, then `;` and a blank line, ordered by type then
/// name. Comparing this text is how a migrated vault is checked against the frozen schema.
enum SchemaText {
    /// `leavingOut`: the objects of one table that are not the vault's (a backup's
    /// `backup_blob`, checked on its own by ``BackupBlobs/isPresent(in:path:)``).
    static func of(_ database: Database, leavingOut table: String? = nil) throws(StoreError) -> String {
        var text = ""
        try database.forEachRow("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IS NOT ? ORDER BY type, name",
                                [table.map { .text($0) } ?? .null]) { row in
            text += row.text("sql") + ";\n\n"
        }
        return text
    }

    static func checksum(of database: Database, leavingOut table: String? = nil) throws(StoreError) -> String {
        SHA256.hex(of: Array(try of(database, leavingOut: table).utf8))
    }

    /// Whether `database`'s schema is the frozen one of schema `version`, as shipped: a
    /// table, index or trigger added or changed by hand is not (what `check` and `restore`
    /// look for).
    static func isAsShipped(_ database: Database, version: Int, leavingOut table: String? = nil) throws(StoreError) -> Bool {
        guard Migrations.all.indices.contains(version - 1) else { return false }
        return try checksum(of: database, leavingOut: table) == Migrations.all[version - 1].schemaChecksum
    }
}
