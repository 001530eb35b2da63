/// A vault key a rekey replaced, sealed under the key that replaced it: the key chain.
///
/// Operation files other devices wrote before they took up the new key stay on the remotes
/// under the old one, and a device joining later must still read them; so a rekey keeps
/// the old key, readable only with the new one. A second rekey seals every retired key again
/// under its own new key, so the whole chain always opens with the current key alone. The
/// chain never goes the other way: nothing sealed under an old key opens a newer one, so
/// whoever holds a retired key (or its recovery key) cannot follow a rekey.
///
/// The sealed form is a ``FieldSealer`` envelope bound to the vault and to the retired key's
/// id, so an entry moved to another vault or renamed does not open.
public struct RetiredKey: Sendable, Equatable {
    /// The retired key's public id (what its sealed fields and operation files name).
    public let id: KeyID
    /// The key, sealed under the current key.
    public let sealed: [UInt8]

    public init(id: KeyID, sealed: [UInt8]) {
        self.id = id
        self.sealed = sealed
    }

    /// Seals `key` under `current` (the sealer of the key that replaces it).
    public static func sealing(_ key: VaultKey, under current: FieldSealer) throws(CryptoError) -> RetiredKey {
        let sealed = try key.bytes.withUnsafeBytes { (bytes) throws(CryptoError) in
            try current.seal(bytes, binding: binding(current.vaultID, key.id))
        }
        return RetiredKey(id: key.id, sealed: sealed)
    }

    /// Opens the retired key with `current`; fails unless it is under that key, bound to
    /// this vault and id, and really the key `id` names.
    public func open(with current: FieldSealer) throws(CryptoError) -> VaultKey {
        var plain = try current.open(sealed, binding: Self.binding(current.vaultID, id))
        defer { wipe(&plain) }
        let secret = try SecretBytes(count: plain.count)
        secret.withUnsafeMutableBytes { $0.copyBytes(from: plain) }
        let key = try VaultKey(bytes: secret)
        guard key.id == id else { throw .keyMismatch }
        return key
    }

    /// A sealer under the retired key, opened with `current`: what reads the files written
    /// under it, without handing the key itself to whoever reads them.
    public func sealer(openedWith current: FieldSealer) throws(CryptoError) -> FieldSealer {
        FieldSealer(key: try open(with: current), vaultID: current.vaultID)
    }

    private static func binding(_ vaultID: String, _ id: KeyID) -> Binding {
        Binding(vaultID: vaultID, table: "key-chain", recordID: id.description, field: "key")
    }
}
