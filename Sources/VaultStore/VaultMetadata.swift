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
    /// This device's random id (a vault synced to three devices has three vault files, each
    /// with its own device id). Empty only while a new vault is being built.
    public let deviceID: String

    public init(vaultID: String, keyID: KeyID, createdAt: Timestamp, deviceID: String = "") {
        self.vaultID = vaultID
        self.keyID = keyID
        self.createdAt = createdAt
        self.deviceID = deviceID
    }
}
