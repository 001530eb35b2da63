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
        newest(among: RemoteDescriptor.read(from: remotes, vaultID: vaultID), keyID: keyID, generation: generation, keyChain: keyChain)
    }

    /// The same, among descriptors already read (``RemoteDescriptor/read(from:vaultID:)``).
    public static func newest(among descriptors: [(remote: String, descriptor: RemoteDescriptor)], keyID: KeyID,
                              generation: Int, keyChain: [RetiredKey]) -> RekeyMadeElsewhere? {
        RemoteDescriptor.newest(among: descriptors, newerThan: keyID, generation: generation, keyChain: keyChain) {
            $0.keyId != keyID.description
        }.map { RekeyMadeElsewhere(remote: $0.remote, descriptor: $0.descriptor) }
    }
}

/// A passphrase change or a new recovery key made on another device that this one has not
/// taken up: a remote's descriptor holds this device's key with keyslots of a higher
/// generation. An unlock whose secret opens the descriptor's slot of its kind to this very
/// key takes those keyslots up (VaultKit), so a secret replaced on one device stops opening
/// the others' copies too.
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

extension RemoteDescriptor {
    /// The descriptor of vault `vaultID` on each of `remotes`, with the remote's name.
    /// Remotes that cannot be read, or hold another vault, are passed over.
    public static func read(from remotes: [any Remote], vaultID: String) -> [(remote: String, descriptor: RemoteDescriptor)] {
        remotes.compactMap { remote in
            guard let bytes = try? remote.readDescriptor(), let descriptor = try? RemoteDescriptor.decode(bytes),
                  descriptor.vaultId == vaultID else { return nil }
            return (remote.name, descriptor)
        }
    }

    /// The newest of `descriptors` that `include` takes and that is newer than the keyslots
    /// of a device whose key is `keyID`, with generation `generation` and chain `keyChain`.
    static func newest(among descriptors: [(remote: String, descriptor: RemoteDescriptor)], newerThan keyID: KeyID,
                       generation: Int, keyChain: [RetiredKey],
                       where include: (RemoteDescriptor) -> Bool) -> (remote: String, descriptor: RemoteDescriptor)? {
        // Only the key, the generation and the chain are compared.
        let ours = RemoteDescriptor(vaultID: "", keyID: keyID, keyslots: [], keyslotGeneration: generation, keyChain: keyChain)
        // Asked this way round first: a descriptor of a key this device retired never counts,
        // whatever chain it claims; of this same key, only a higher generation does.
        func isNewer(_ theirs: RemoteDescriptor) -> Bool {
            !ours.isNewer(than: theirs) && (theirs.keyId != ours.keyId || theirs.isNewer(than: ours))
        }
        var newest: (remote: String, descriptor: RemoteDescriptor)?
        for found in descriptors where include(found.descriptor) && isNewer(found.descriptor) {
            if newest.map({ found.descriptor.isNewer(than: $0.descriptor) }) ?? true { newest = found }
        }
        return newest
    }
}
