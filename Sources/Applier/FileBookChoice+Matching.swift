public import Journal
public import VaultStore

extension FileBookChoice {
    /// The book a file's metadata names, found as an import finds one
    /// (``BookIdentityPolicy``: by identifier, then title and authors), added when the vault
    /// has none.
    public static func matching(_ source: ImportedBook) -> FileBookChoice {
        .found { (tables) throws(StoreError) in
            let outcome = try ImportLookup(tables: tables, now: tables.now).book(for: source)
            return (outcome.id, outcome.isNew)
        }
    }
}
