import Journal
import Keystore
import VaultStore
public import VaultCrypto

extension Vault {
    /// How a rekey ended.
    public struct RekeyOutcome {
        /// Records (books, notes and quotes, outbox operations) re-encrypted under the new key.
        public let reencrypted: Int
        /// Fields of damaged records, left as they were (they were unreadable before).
        public let damaged: Int
        /// True when this run finished a rekey that an earlier, interrupted run began.
        public let resumed: Bool
    }

    /// Replaces the vault key: a new key, every sealed field re-encrypted in resumable
    /// batches, new keyslots (the same passphrase, a new recovery key).
    ///
    /// `began` receives the new recovery key in display form as soon as it is safely
    /// stored, before any field is converted; a resumed rekey does not show it again.
    /// If the key was in the keystore, it is replaced by the new one with the same expiry,
    /// before the first batch: while the rekey is pending no key opens the journal, and
    /// once it is done the new one must already be there, or a rekey killed between its
    /// last commit and the keystore would leave the old key, which the next command drops
    /// as stale, locking the vault.
    public func rekey(passphrase: SecretBytes, kdf: KDFParameters?, batchSize: Int = 500,
                      began: (SecretBytes) -> Void, progress: (_ done: Int, _ total: Int) -> Void) throws(VaultError) -> RekeyOutcome {
        let current = try slot(.passphrase)
        let oldKey = try unwrapPassphrase(current, passphrase)
        let pending = try storeCall { () throws(StoreError) in try store.rekey.pending() }
        let newKey: VaultKey
        if let pending {
            guard let slot = pending.pendingKeyslots.first(where: { $0.kind == .passphrase }) else {
                throw .notAVault(path: location.databasePath)
            }
            newKey = try unwrapPassphrase(slot, passphrase)
        } else {
            newKey = try Self.cryptoCall { () throws(CryptoError) in try VaultKey.generate() }
            let recoveryKey = try Self.cryptoCall { () throws(CryptoError) in try RecoveryKey.generate() }
            let now = clock.now()
            let slots = try Self.cryptoCall { () throws(CryptoError) in
                [try Keyslot.wrapping(newKey, passphrase: passphrase, kdf: kdf ?? current.kdf, vaultID: vaultID,
                                      slotID: EntityID.generate(at: now).rawValue),
                 try Keyslot.wrapping(newKey, recoveryKey: recoveryKey, vaultID: vaultID,
                                      slotID: EntityID.generate(at: now).rawValue)]
            }
            try storeCall { () throws(StoreError) in try store.rekey.begin(from: oldKey, to: newKey, keyslots: slots) }
            began(try Self.cryptoCall { () throws(CryptoError) in try recoveryKey.formatted() })
        }

        try replaceKeptKey(with: newKey)
        var last: RekeyProgress?
        try storeCall { () throws(StoreError) in
            try store.rekey.resume(from: oldKey, to: newKey, batchSize: batchSize) { step in
                last = step
                progress(step.done, step.total)
            }
        }
        return RekeyOutcome(reencrypted: last?.done ?? 0, damaged: last?.damaged ?? 0, resumed: pending != nil)
    }

    /// Whether a rekey began and has not finished.
    public func hasPendingRekey() throws(VaultError) -> Bool {
        try storeCall { () throws(StoreError) in try store.rekey.pending() } != nil
    }

    private func unwrapPassphrase(_ slot: Keyslot, _ passphrase: SecretBytes) throws(VaultError) -> VaultKey {
        do {
            return try slot.unwrap(passphrase: passphrase, vaultID: vaultID)
        } catch .authenticationFailed {
            throw .wrongPassphrase
        } catch {
            throw .crypto(error)
        }
    }

    /// After a rekey, a key kept in the keystore is the old one: replace it, same expiry.
    private func replaceKeptKey(with newKey: VaultKey) throws(VaultError) {
        guard case .found(let stored)? = try? keyStore.lookup(vaultID: vaultID),
              stored.expiresAtMilliseconds > clock.now().millisecondsSince1970 else { return }
        do {
            try keyStore.store(newKey, vaultID: vaultID, expiresAtMilliseconds: stored.expiresAtMilliseconds,
                               persistence: stored.persistence ?? .session)
        } catch {
            throw .keystore(error)
        }
    }
}
