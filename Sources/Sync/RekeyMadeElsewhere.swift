public import VaultCrypto

/// A rekey made on another device that this one has not taken up: a remote's descriptor
/// holds another key than this device's, with newer keyslots
/// (``RemoteDescriptor/isNewer(than:)``). The sync engine leaves such a remote alone; an
/// unlock whose secret opens the new keyslots takes the key up (VaultKit).
public struct RekeyMadeElsewhere: Sendable {
    /// The remote whose descriptor holds the new keyslots.
    public let remote: String
    public let descriptor: RemoteDescriptor

    /// The newest such descriptor among `remotes`, for a device whose key is `keyID`, with
    /// keyslot generation `generation` and key chain `keyChain`. Remotes that cannot be read
    /// are passed over.
    public static func newest(on remotes: [any Remote], vaultID: String, keyID: KeyID, generation: Int,
                              keyChain: [RetiredKey]) -> RekeyMadeElsewhere? {
        let ours = RemoteDescriptor(vaultID: vaultID, keyID: keyID, keyslots: [], keyslotGeneration: generation, keyChain: keyChain)
        var newest: RekeyMadeElsewhere?
        for remote in remotes {
            guard let bytes = try? remote.readDescriptor(), let theirs = try? RemoteDescriptor.decode(bytes),
                  theirs.vaultId == vaultID, theirs.keyId != ours.keyId, !ours.isNewer(than: theirs) else { continue }
            if newest.map({ theirs.isNewer(than: $0.descriptor) }) ?? true {
                newest = RekeyMadeElsewhere(remote: remote.name, descriptor: theirs)
            }
        }
        return newest
    }
}
