public import Journal
public import Keystore
public import VaultStore

/// What `bmvault status` reports: nothing in it is content, so it is readable while locked.
public struct VaultStatus: Sendable {
    /// Whether journal commands can run now, and if not, why.
    public enum KeyState: Equatable, Sendable {
        case unlocked(until: Timestamp, persistence: KeyPersistence?)
        case notUnlocked
        case expired
        case keyringLocked
        case keyringUnavailable(KeystoreError)
    }

    public let vaultID: String
    public let schemaVersion: Int
    public let keyState: KeyState
    public let counts: JournalCounts
    public let outbox: [OutboxState: Int]
    /// A rekey began and has not finished: the journal is closed until `rekey` runs again.
    public let rekeyInProgress: Bool
    /// Conflicts from syncing that wait for the reader (`bmvault conflicts`).
    public let conflicts: Int
    /// The remotes this vault syncs with, by name, with when each last synced.
    public let remotes: [RemoteRecord]

    public var isLocked: Bool {
        if case .unlocked = keyState { return false }
        return true
    }
}

extension Vault {
    /// The vault's state. An expired key found here is removed, as on any other command.
    public func status() throws(VaultError) -> VaultStatus {
        let keyState = keyState()
        return try storeCall { () throws(StoreError) in
            VaultStatus(vaultID: vaultID, schemaVersion: try store.schemaVersion(), keyState: keyState,
                        counts: try store.read { tables throws(StoreError) in try tables.records.counts() }, outbox: try store.read { tables throws(StoreError) in try tables.outbox.counts() },
                        rekeyInProgress: try store.rekey.pending() != nil, conflicts: try store.read { tables throws(StoreError) in try tables.annotations.conflictCount() },
                        remotes: try store.read { tables throws(StoreError) in try tables.remotes.all() })
        }
    }

    /// Whether journal commands can run now, from the keystore alone (one lookup, none of
    /// `status`'s counting): what `unlock` needs to know first. An expired key is removed.
    public func keyState() -> VaultStatus.KeyState {
        do {
            switch try keyStore.lookup(vaultID: vaultID) {
            case .notFound:
                return .notUnlocked
            case .keyringLocked:
                return .keyringLocked
            case .found(let stored):
                if stored.expiresAtMilliseconds <= clock.now().millisecondsSince1970 {
                    try? keyStore.remove(vaultID: vaultID)
                    return .expired
                }
                if stored.key.id != store.metadata.keyID { return .notUnlocked }
                return .unlocked(until: Timestamp(millisecondsSince1970: stored.expiresAtMilliseconds), persistence: stored.persistence)
            }
        } catch {
            return .keyringUnavailable(error)
        }
    }
}
