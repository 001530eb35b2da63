import Journal
import Sync
import Telemetry
import VaultCrypto
import VaultStore

extension Vault {
    /// What unlocking did about a rekey made on another device (see ``rekeyMadeElsewhere()``).
    public enum RekeyFollowEvent: Sendable, Equatable {
        /// The new key opened with the secret typed: every field is being re-encrypted under
        /// it, from the keyslots remote `remote` holds.
        case following(remote: String)
        /// Records re-encrypted so far.
        case progress(done: Int, total: Int)
        /// This device now has the new key; its passphrase and recovery key are the ones set
        /// with it on the other device.
        case followed(remote: String, reencrypted: Int, damaged: Int)
        /// The secret typed opens this device's keyslot but not the new key's (the other
        /// device's passphrase differs): unlocked under the old key; the rekey waits for the
        /// secret set with it.
        case notFollowed(remote: String)
    }

    /// The remote holding the keyslots of a rekey made on another device that this device
    /// has not taken up, if any (see ``RekeyMadeElsewhere``). Works while locked:
    /// descriptors are in the clear.
    public func rekeyMadeElsewhere() -> String? {
        newestRekeyMadeElsewhere()?.remote
    }

    private func newestRekeyMadeElsewhere() -> RekeyMadeElsewhere? {
        guard let records = try? store.remotes(), !records.isEmpty else { return nil }
        return RekeyMadeElsewhere.newest(on: records.map { FolderRemote(name: $0.name, location: $0.location, vaultID: vaultID) },
                                         vaultID: vaultID, keyID: store.metadata.keyID,
                                         generation: (try? store.keyslotGeneration()) ?? 0,
                                         keyChain: (try? store.retiredKeys()) ?? [])
    }

    /// The vault key for an unlock with a secret of `kind`: the key the secret unwraps from a
    /// rekey made on another device when there is one (and then every field is re-encrypted
    /// under it first), else this device's key (`local`, which refuses a wrong secret).
    ///
    /// The new key must open with the secret typed: a descriptor is in the clear, and one
    /// that someone without the passphrase or recovery key wrote cannot lead anywhere. This
    /// device's current key comes from the new key's chain when the other device retired it,
    /// so the recovery key set with the rekey is enough on its own.
    func unwrapFollowingRekey(_ kind: Keyslot.Kind, local: () throws(VaultError) -> VaultKey,
                              unwrap: (Keyslot) throws(CryptoError) -> VaultKey,
                              events: (RekeyFollowEvent) -> Void) throws(VaultError) -> VaultKey {
        guard let found = newestRekeyMadeElsewhere() else { return try local() }
        let (remote, descriptor) = (found.remote, found.descriptor)
        guard let slots = descriptor.vaultKeyslots(), let slot = slots.first(where: { $0.kind == kind }),
              let newKey = try? unwrap(slot), newKey.id.description == descriptor.keyId else {
            let key = try local()
            log.notice("vault.rekey.notFollowed")
            events(.notFollowed(remote: remote))
            return key
        }
        let chain = descriptor.retiredKeys() ?? []
        let current: VaultKey
        if let retired = chain.first(where: { $0.id == store.metadata.keyID }),
           let key = try? retired.open(with: FieldSealer(key: newKey, vaultID: vaultID)) {
            current = key
        } else {
            current = try local()
        }
        events(.following(remote: remote))
        var last: RekeyProgress?
        try storeCall { () throws(StoreError) in
            try store.followRekey(from: current, to: newKey, keyslots: slots, keyChain: chain,
                                  generation: descriptor.keyslotGeneration ?? 0) { step in
                last = step
                events(.progress(done: step.done, total: step.total))
            }
        }
        log.notice("vault.rekey.followed", ["records": .integer(last?.done ?? 0)])
        events(.followed(remote: remote, reencrypted: last?.done ?? 0, damaged: last?.damaged ?? 0))
        return newKey
    }
}
