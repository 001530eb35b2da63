public import VaultCrypto

/// A rekey made on another device that this one has not taken up: a remote's descriptor
/// holds another key than this device's, with newer keyslots
/// (``RemoteDescriptor/isNewer(than:)``). The sync engine leaves such a remote alone; an
/// unlock whose secret opens the new keyslots takes the key up (VaultKit).
public struct RekeyMadeElsewhere: Sendable {
    /// The remote whose descriptor holds the new keyslots.
    public let remote: String
    public let descriptor: RemoteDescriptor

    /// The newest such descriptor among those read from the remotes
    /// (``RemoteDescriptor/read(from:vaultID:)``), for a device whose key is `keyID`, with
    /// keyslot generation `generation` and key chain `keyChain`.
    public static func newest(among descriptors: [(remote: String, descriptor: RemoteDescriptor)], keyID: KeyID,
                              generation: Int, keyChain: [RetiredKey]) -> RekeyMadeElsewhere? {
        RemoteDescriptor.newest(among: descriptors, newerThan: keyID, generation: generation, keyChain: keyChain) {
            $0.keyId != keyID.description
        }.map { RekeyMadeElsewhere(remote: $0.remote, descriptor: $0.descriptor) }
    }
}
