import VaultStore

extension Store {
    /// ``Store/read(_:)`` as the facade calls it: a storage failure becomes
    /// ``VaultError/storage(_:)``.
    func reading<Result>(_ body: (Tables) throws(StoreError) -> Result) throws(VaultError) -> Result {
        do { return try read(body) } catch { throw .storage(error) }
    }

    /// ``Store/write(_:)`` as the facade calls it: a storage failure becomes
    /// ``VaultError/storage(_:)``.
    @discardableResult
    func writing<Result>(_ body: (Tables) throws(StoreError) -> Result) throws(VaultError) -> Result {
        do { return try write(body) } catch { throw .storage(error) }
    }
}
