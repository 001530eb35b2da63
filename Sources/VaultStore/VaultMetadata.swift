public import VaultCrypto
public import Journal

/// What a vault says about itself, in the clear: enough to find its key in the keystore
/// and to recognise a key that does not belong to it.
public struct VaultMetadata: Sendable, Equatable {
    /// The vault's random id (a UUID), bound into every sealed field's associated data.
    public let vaultID: String
    /// The fingerprint of the vault key that seals the data.
    public let keyID: KeyID
    public let createdAt: Timestamp

    public init(vaultID: String, keyID: KeyID, createdAt: Timestamp) {
        self.vaultID = vaultID
        self.keyID = keyID
        self.createdAt = createdAt
    }
}
