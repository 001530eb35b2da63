import Sync
import Telemetry
import VaultCrypto
import VaultStore

extension Vault {
    /// This device's key for an unlock with a secret of `kind` (`local`, which refuses a
    /// wrong secret), taking up on the way the keyslots another device published for this
    /// same key after a passphrase change or a new recovery key (``KeyslotsChangedElsewhere``).
    ///
    /// A descriptor is in the clear, so its keyslots are believed only once the secret typed
    /// has opened the descriptor's slot of its kind to this very key (the key id is a MAC
    /// under the key), with well-formed slots of both kinds. Then they replace this device's,
    /// so a secret replaced on one device stops opening the others' copies at their next
    /// unlock. A secret that opens only this device's older slot still unlocks, and `events`
    /// hears that newer keyslots wait.
    func unwrapTakingUpKeyslotsChangedElsewhere(_ kind: Keyslot.Kind, among descriptors: [(remote: String, descriptor: RemoteDescriptor)],
                                                local: () throws(VaultError) -> VaultKey,
                                                unwrap: (Keyslot) throws(CryptoError) -> VaultKey,
                                                events: (RekeyFollowEvent) -> Void) throws(VaultError) -> VaultKey {
        let (generation, chain) = try storeCall { () throws(StoreError) in (try store.keyslotGeneration(), try store.retiredKeys()) }
        guard let found = KeyslotsChangedElsewhere.newest(among: descriptors, keyID: store.metadata.keyID,
                                                          generation: generation, keyChain: chain) else { return try local() }
        guard let slots = found.descriptor.vaultKeyslots(), slots.count == 2, Set(slots.map(\.kind)) == [.passphrase, .recovery],
              slots.allSatisfy(\.isWellFormed), let slot = slots.first(where: { $0.kind == kind }) else {
            log.warning("vault.keyslots.refused", ["reason": .public("malformedKeyslots")])
            return try local()
        }
        guard let key = try? unwrap(slot), key.id == store.metadata.keyID else {
            let key = try local()
            log.notice("vault.keyslots.notTakenUp")
            events(.keyslotsNotTakenUp(remote: found.remote))
            return key
        }
        try storeCall { () throws(StoreError) in try store.adoptKeyslots(slots, generation: found.descriptor.keyslotGeneration ?? 0) }
        log.notice("vault.keyslots.takenUp", ["generation": .integer(Int64(found.descriptor.keyslotGeneration ?? 0))])
        events(.keyslotsTakenUp(remote: found.remote))
        return key
    }
}
