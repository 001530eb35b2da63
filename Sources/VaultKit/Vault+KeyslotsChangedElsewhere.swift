import Sync
import Telemetry
import VaultCrypto
import VaultStore

extension Vault {
    /// This device's key for an unlock with a secret of `kind` (`local`, which refuses a
    /// wrong secret), taking up on the way the keyslots another device published for this
    /// same key after a passphrase change or a new recovery key (``KeyslotsChangedElsewhere``),
    /// as a sync does when it finds them first.
    ///
    /// A descriptor is in the clear, so its keyslots are believed only when their seal opens
    /// under the key (a device holding it wrote them): the secret typed opens the
    /// descriptor's slot of its kind, or this device's own, to this very key (its id is a MAC
    /// under the key), and with that key the seal is checked. Then they replace this device's,
    /// so a secret replaced on one device stops opening the others' copies. A secret that
    /// opens only this device's older slot still unlocks, and `events` hears that newer
    /// keyslots wait; unsealed or forged ones are left alone without a word.
    func unwrapTakingUpKeyslotsChangedElsewhere(_ kind: Keyslot.Kind, among descriptors: [(remote: String, descriptor: RemoteDescriptor)],
                                                local: () throws(VaultError) -> VaultKey,
                                                unwrap: (Keyslot) throws(CryptoError) -> VaultKey,
                                                events: (RekeyFollowEvent) -> Void) throws(VaultError) -> VaultKey {
        let (generation, chain) = try store.reading { tables throws(StoreError) in (try tables.keys.generation(), try tables.keys.retired()) }
        guard let found = KeyslotsChangedElsewhere.newest(among: descriptors, keyID: store.metadata.keyID, generation: generation,
                                                          keyChain: chain),
              let slots = found.descriptor.vaultKeyslots(), Keyslot.areOneOfEachKind(slots),
              let slot = slots.first(where: { $0.kind == kind }) else { return try local() }
        let isSealed = { (key: VaultKey) in found.descriptor.keyslotsAreSealed(by: FieldSealer(key: key, vaultID: self.vaultID)) }
        guard let key = try? unwrap(slot), key.id == store.metadata.keyID else {
            let key = try local()
            if isSealed(key) {
                log.notice("vault.keyslots.notTakenUp")
                events(.keyslotsNotTakenUp(remote: found.remote))
            }
            return key
        }
        guard isSealed(key) else {
            log.warning("vault.keyslots.notSealed")
            return key
        }
        let adopted = try storeCall { () throws(StoreError) in
            try store.write { tables throws(StoreError) in
                try tables.keys.adopt(slots, generation: found.descriptor.keyslotGeneration ?? 0, replacing: generation)
            }
        }
        if adopted {
            log.notice("vault.keyslots.takenUp", ["generation": .integer(Int64(found.descriptor.keyslotGeneration ?? 0))])
            events(.keyslotsTakenUp(remote: found.remote))
        }
        return key
    }
}
