import Journal
import Sync
import Telemetry
import VaultCrypto
import VaultStore

extension Vault {
    /// What unlocking did about a rekey made on another device (see ``rekeyMadeElsewhere()``),
    /// or about a passphrase or recovery key changed there (``KeyslotsChangedElsewhere``).
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
        /// The secret typed opens the keyslot another device published for this same key
        /// (remote `remote` holds it): this device took those keyslots up, and the secrets
        /// they replaced no longer open it.
        case keyslotsTakenUp(remote: String)
        /// The secret typed opens only this device's keyslot, older than the one remote
        /// `remote` holds for this same key: unlocked; the newer secret takes them up.
        case keyslotsNotTakenUp(remote: String)
    }

    /// The remote holding the keyslots of a rekey made on another device that this device
    /// has not taken up, if any (see ``RekeyMadeElsewhere``). Works while locked:
    /// descriptors are in the clear. What it names is checked when the secret is typed.
    public func rekeyMadeElsewhere() throws(VaultError) -> String? {
        try newestRekeyMadeElsewhere()?.remote
    }

    private func newestRekeyMadeElsewhere() throws(VaultError) -> RekeyMadeElsewhere? {
        try newestRekeyMadeElsewhere(among: try remoteDescriptors())
    }

    private func newestRekeyMadeElsewhere(among descriptors: [(remote: String, descriptor: RemoteDescriptor)]) throws(VaultError) -> RekeyMadeElsewhere? {
        let (generation, chain) = try store.reading { tables throws(StoreError) in (try tables.keys.generation(), try tables.keys.retired()) }
        return RekeyMadeElsewhere.newest(among: descriptors, keyID: store.metadata.keyID, generation: generation, keyChain: chain)
    }

    /// The descriptors of this vault on its remotes, read once per unlock (a WebDAV remote's
    /// is a request). Works while locked: descriptors are in the clear.
    private func remoteDescriptors() throws(VaultError) -> [(remote: String, descriptor: RemoteDescriptor)] {
        let records = try store.reading { tables throws(StoreError) in try tables.remotes.all() }
        return records.isEmpty ? [] : RemoteDescriptor.read(from: records.map { makeRemote($0).remote }, vaultID: vaultID)
    }

    /// The vault key for an unlock with a secret of `kind`: the key the secret unwraps from a
    /// rekey made on another device when there is one (and then every field is re-encrypted
    /// under it first), else this device's key (`local`, which refuses a wrong secret), with
    /// the keyslots of a passphrase or recovery key changed elsewhere taken up when the
    /// secret opens them (``unwrapTakingUpKeyslotsChangedElsewhere(_:among:local:unwrap:events:)``).
    ///
    /// A descriptor is in the clear, so nothing in it is believed until the secret typed has
    /// opened its new key: only the chain entries that open under that key count, and with
    /// them the descriptor must still be newer than this device's keyslots (a replayed
    /// descriptor of a key this device retired never is), with well-formed slots of both
    /// kinds. This device's current key comes from that chain when the other device retired
    /// it, so the recovery key set with the rekey is enough on its own; else from `local`.
    func unwrapFollowingRekey(_ kind: Keyslot.Kind, local: () throws(VaultError) -> VaultKey,
                              unwrap: (Keyslot) throws(CryptoError) -> VaultKey,
                              events: (RekeyFollowEvent) -> Void) throws(VaultError) -> VaultKey {
        let descriptors = try remoteDescriptors()
        guard let found = try newestRekeyMadeElsewhere(among: descriptors) else {
            return try unwrapTakingUpKeyslotsChangedElsewhere(kind, among: descriptors, local: local, unwrap: unwrap, events: events)
        }
        let (remote, descriptor) = (found.remote, found.descriptor)
        guard let slots = descriptor.vaultKeyslots(), Keyslot.areOneOfEachKind(slots), let slot = slots.first(where: { $0.kind == kind }) else {
            log.warning("vault.rekey.refused", ["reason": .public("malformedKeyslots")])
            return try local()
        }
        guard let newKey = try? unwrap(slot), newKey.id.description == descriptor.keyId else {
            let key = try local()
            log.notice("vault.rekey.notFollowed")
            events(.notFollowed(remote: remote))
            return key
        }
        let newSealer = FieldSealer(key: newKey, vaultID: vaultID)
        let chain = (descriptor.retiredKeys() ?? []).filter { (try? $0.open(with: newSealer)) != nil }
        let (generation, ownChain) = try store.reading { tables throws(StoreError) in (try tables.keys.generation(), try tables.keys.retired()) }
        let checked = RemoteDescriptor(vaultID: vaultID, keyID: newKey.id, keyslots: slots,
                                       keyslotGeneration: descriptor.keyslotGeneration ?? 0, keyChain: chain)
        let ours = RemoteDescriptor(vaultID: vaultID, keyID: store.metadata.keyID, keyslots: [], keyslotGeneration: generation, keyChain: ownChain)
        guard !ours.isNewer(than: checked) else {
            log.warning("vault.rekey.refused", ["reason": .public("notNewer")])
            return try local()
        }
        var current = try currentKey(from: chain, under: newSealer, local: local)
        // A take-up interrupted while the other device moved on to a later key: finish it
        // first, with the key it was taking up, which the later key's chain holds.
        if let job = try storeCall({ () throws(StoreError) in try store.rekey.pending() }), job.newKeyID != newKey.id {
            guard let pending = chain.first(where: { $0.id == job.newKeyID }).flatMap({ try? $0.open(with: newSealer) }) else {
                throw .rekeyInProgress
            }
            try storeCall { () throws(StoreError) in try store.rekey.resume(from: current, to: pending) { _ in } }
            current = pending
        }
        events(.following(remote: remote))
        var last: RekeyProgress?
        try storeCall { () throws(StoreError) in
            try store.rekey.follow(from: current, to: newKey, keyslots: slots, keyChain: chain,
                                   generation: descriptor.keyslotGeneration ?? 0) { step in
                last = step
                events(.progress(done: step.done, total: step.total))
            }
        }
        log.notice("vault.rekey.followed", ["records": .integer(last?.done ?? 0)])
        events(.followed(remote: remote, reencrypted: last?.done ?? 0, damaged: last?.damaged ?? 0))
        return newKey
    }

    /// This device's current key: from the new key's chain when the other device retired it,
    /// else unwrapped here. When the secret typed opens the new key but not this device's
    /// own (two rekeys made at once, under different passphrases), both are needed.
    private func currentKey(from chain: [RetiredKey], under newSealer: FieldSealer,
                            local: () throws(VaultError) -> VaultKey) throws(VaultError) -> VaultKey {
        if let retired = chain.first(where: { $0.id == store.metadata.keyID }), let key = try? retired.open(with: newSealer) {
            return key
        }
        do {
            return try local()
        } catch .wrongPassphrase, .wrongRecoveryKey {
            throw .rekeyNeedsThisDevicesSecret
        }
    }
}
