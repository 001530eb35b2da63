public import VaultStore

extension Vault {
    /// Verifies the whole vault (see `Store.check()`): reads only, needs the key, and names
    /// what is damaged by kind and id, never by content.
    public func check() throws(VaultError) -> VaultCheckReport {
        let store = try unlockedStore()
        return try storeCall { () throws(StoreError) in try store.check() }
    }
}
