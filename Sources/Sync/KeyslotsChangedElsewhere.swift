public import VaultCrypto

/// A passphrase change or a new recovery key made on another device that this one has not
/// taken up: a remote's descriptor holds this device's key with keyslots of a higher
/// generation. Once their seal opens under the key (``RemoteDescriptor/keyslotsAreSealed(by:)``),
/// a sync or an unlock takes them up, so a secret replaced on one device stops opening the
/// others' copies too.
public struct KeyslotsChangedElsewhere: Sendable {
    /// The remote whose descriptor holds the newer keyslots.
    public let remote: String
    public let descriptor: RemoteDescriptor

    /// The newest such descriptor among descriptors already read.
    public static func newest(among descriptors: [(remote: String, descriptor: RemoteDescriptor)], keyID: KeyID,
                              generation: Int, keyChain: [RetiredKey]) -> KeyslotsChangedElsewhere? {
        RemoteDescriptor.newest(among: descriptors, newerThan: keyID, generation: generation, keyChain: keyChain) {
            $0.keyId == keyID.description
        }.map { KeyslotsChangedElsewhere(remote: $0.remote, descriptor: $0.descriptor) }
    }
}
