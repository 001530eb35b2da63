public import VaultCrypto

/// A keystore in process memory: the CLI's `--no-keyring` (the key lives and dies with one
/// command) and unit tests of the vault logic. It follows the same
/// contract as ``SecretServiceKeyStore`` (replace on store, idempotent remove, not-found as
/// an outcome) without a D-Bus session. Keys are kept as `SecretBytes` copies, so a caller
/// dropping its `VaultKey` does not change what is stored, and nothing lingers unwiped.
/// Not thread-safe: a test owns its instance.
public final class MemoryKeyStore: KeyStore {
    private struct Entry {
        let key: SecretBytes
        let expiresAtMilliseconds: Int64
        let persistence: KeyPersistence
    }

    private var entries: [String: Entry] = [:]
    /// Remote passwords by vault id and remote name.
    private var passwords: [String: SecretBytes] = [:]

    /// An empty keystore.
    public init() {}

    /// Replaces the vault's entry with a copy of `key`.
    public func store(_ key: VaultKey, vaultID: String, expiresAtMilliseconds: Int64, persistence: KeyPersistence) throws(KeystoreError) {
        let copy = try Self.copy(key)
        entries[vaultID] = Entry(key: copy, expiresAtMilliseconds: expiresAtMilliseconds, persistence: persistence)
    }

    /// Returns a fresh copy of the stored key, so the caller cannot alter the stored one.
    public func lookup(vaultID: String) throws(KeystoreError) -> KeyLookup {
        guard let entry = entries[vaultID] else { return .notFound }
        do {
            let bytes = try entry.key.withUnsafeBytes { (raw) throws(CryptoError) in try SecretBytes(copying: raw) }
            return .found(StoredVaultKey(key: try VaultKey(bytes: bytes),
                                         expiresAtMilliseconds: entry.expiresAtMilliseconds,
                                         persistence: entry.persistence))
        } catch {
            throw .crypto(error)
        }
    }

    /// Forgets the vault's entry, if any.
    public func remove(vaultID: String) throws(KeystoreError) {
        entries[vaultID] = nil
    }

    public func storeRemotePassword(_ password: SecretBytes, vaultID: String, remote: String) throws(KeystoreError) {
        passwords[vaultID + "/" + remote] = try Self.copy(password)
    }

    public func remotePassword(vaultID: String, remote: String) throws(KeystoreError) -> SecretBytes? {
        try passwords[vaultID + "/" + remote].map { (stored) throws(KeystoreError) in try Self.copy(stored) }
    }

    public func removeRemotePassword(vaultID: String, remote: String) throws(KeystoreError) {
        passwords[vaultID + "/" + remote] = nil
    }

    private static func copy(_ secret: SecretBytes) throws(KeystoreError) -> SecretBytes {
        do {
            return try secret.withUnsafeBytes { (raw) throws(CryptoError) in try SecretBytes(copying: raw) }
        } catch {
            throw .crypto(error)
        }
    }

    private static func copy(_ key: VaultKey) throws(KeystoreError) -> SecretBytes {
        do {
            return try key.withUnsafeBytes { (raw) throws(CryptoError) in try SecretBytes(copying: raw) }
        } catch {
            throw .crypto(error)
        }
    }
}
