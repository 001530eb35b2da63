public import VaultCrypto

/// Where the key is kept. The reader chooses between "forget it when I log out" and
/// "keep me unlocked across logins"; the keystore only records and honours that choice.
public enum KeyPersistence: String, Sendable {
    /// The in-memory `session` collection (`SECRET_COLLECTION_SESSION`), gone at logout.
    case session
    /// The default collection (usually the login keyring), which survives logout.
    case remembered
}

/// A key found in the keystore, with when it stops counting as unlocked.
///
/// The keystore does not enforce the expiry itself: the caller compares it with its clock,
/// so one policy (and one clock, testable) decides when a vault relocks.
public struct StoredVaultKey {
    /// The vault key, in sodium memory.
    public let key: VaultKey
    /// When the vault stops counting as unlocked, in milliseconds since 1970 UTC.
    public let expiresAtMilliseconds: Int64
    /// Which collection held the item, or nil when the provider does not let us tell.
    public let persistence: KeyPersistence?

    /// Bundles a key with its expiry, for keystores (real or fake) to hand back.
    public init(key: VaultKey, expiresAtMilliseconds: Int64, persistence: KeyPersistence?) {
        self.key = key
        self.expiresAtMilliseconds = expiresAtMilliseconds
        self.persistence = persistence
    }
}

/// The answer to a lookup. Not-found and locked are ordinary outcomes a caller branches on
/// (ask for the passphrase, or tell the reader to unlock their keyring), not errors.
public enum KeyLookup {
    /// An unlocked item held a well-formed key.
    case found(StoredVaultKey)
    /// No item exists for the vault in any collection.
    case notFound
    /// An item exists, but only in a collection that is locked; nothing was unlocked to read it.
    case keyringLocked
}

/// Keeps a vault's key while the vault is unlocked, so each command need not ask for the
/// passphrase. A protocol so the vault logic can be tested with ``MemoryKeyStore``.
public protocol KeyStore: AnyObject {
    /// Replaces any item for this vault (in every collection) with one holding `key`, so a
    /// vault never has two live keys that could disagree.
    func store(_ key: VaultKey, vaultID: String, expiresAtMilliseconds: Int64, persistence: KeyPersistence) throws(KeystoreError)

    /// Finds the key for a vault without prompting the reader or unlocking anything.
    func lookup(vaultID: String) throws(KeystoreError) -> KeyLookup

    /// Removes every item for this vault; succeeds when there is none, so locking is idempotent.
    func remove(vaultID: String) throws(KeystoreError)

    /// Keeps the password (or app token) of a vault's WebDAV remote, replacing the one it had.
    /// Not removed by `remove(vaultID:)`: locking the vault does not forget a server's account.
    func storeRemotePassword(_ password: SecretBytes, vaultID: String, remote: String) throws(KeystoreError)

    /// The password of a vault's WebDAV remote, or nil when none is kept.
    func remotePassword(vaultID: String, remote: String) throws(KeystoreError) -> SecretBytes?

    /// Forgets the password of a vault's WebDAV remote; succeeds when there is none.
    func removeRemotePassword(vaultID: String, remote: String) throws(KeystoreError)
}
