import Journal

extension AnnotationTable {
    /// Every import key the vault holds (live and deleted records alike), with its record.
    /// A row whose key does not open, or whose id is not one (damaged), is left out: its
    /// record may then be imported again, as a new one, rather than the import failing.
    package func importKeys() throws(StoreError) -> [String: EntityID] {
        let cipher = try store.requireCipher()
        var keys: [String: EntityID] = [:]
        try database.forEachRow("SELECT id, import_key FROM annotation WHERE import_key IS NOT NULL") { row in
            do {
                let id = row.text("id")
                let key = try cipher.open(row.blob("import_key"), table: "annotation", id: id, field: "import_key")
                keys[key] = try EntityID(validating: id)
            } catch {
                return   // damaged: UnreadableRecord or JournalError, never a database error
            }
        }
        return keys
    }
}
