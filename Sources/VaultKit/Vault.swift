internal import FileIO
import Foundation
public import Journal
import Sync
import SyncWire
import Telemetry
public import Keystore
import VaultStore
public import VaultCrypto

/// The facade the CLI talks to: one vault, its key in the keystore, and the journal in it.
///
/// A `Vault` opens locked. Journal operations fetch the key from the keystore on first
/// use; without one they fail with ``VaultError/locked`` (or ``VaultError/sessionExpired``),
/// and nothing is read or written.
public final class Vault {
    /// The shortest passphrase `init` and `passphrase change` accept, in Unicode scalars.
    public static let minimumPassphraseCharacters = 8
    /// How long `unlock` keeps the key in the keystore unless told otherwise: 8 hours.
    public static let defaultUnlockSeconds: Int64 = 8 * 3600

    public let location: VaultLocation
    let store: Store
    let keyStore: any KeyStore
    let clock: any Clock
    private var isKeyAttached: Bool { operationCipher != nil }
    /// What the sync engine seals and opens with (it holds no key): made when the key is attached.
    private(set) var operationCipher: OperationCipher?
    /// Live book titles, once decrypted in this process (see `liveBookTitles()`).
    var cachedTitles: BookTitleIndex?
    /// Asks the reader which book they meant when a BOOK argument names several (at a
    /// terminal); returns nil for none. Without it an ambiguous BOOK is an error naming ids.
    public var bookChooser: (([BookCandidate]) -> EntityID?)?

    private init(location: VaultLocation, store: Store, keyStore: any KeyStore, clock: any Clock) {
        self.location = location
        self.store = store
        self.keyStore = keyStore
        self.clock = clock
    }

    /// The vault's public id: how the keystore finds its key.
    public var vaultID: String { store.metadata.vaultID }

    // MARK: - Creating and opening

    /// A vault that has just been created, with the recovery key to show the reader once.
    public struct Created {
        public let vault: Vault
        /// The recovery key in display form, in secure memory. Show it once; it is not stored.
        public let recoveryKey: SecretBytes
    }

    /// Creates a vault at `location`: a fresh vault key, wrapped by a passphrase keyslot
    /// (Argon2id at `kdf`) and a recovery keyslot. The new vault is locked.
    public static func create(at location: VaultLocation, passphrase: SecretBytes, kdf: KDFParameters,
                              keyStore: any KeyStore, clock: any Clock = SystemClock()) throws(VaultError) -> Created {
        try checkNewPassphrase(passphrase)
        let now = clock.now()
        let vaultID = UUID().uuidString.lowercased()
        let key = try cryptoCall { () throws(CryptoError) in try VaultKey.generate() }
        let recoveryKey = try cryptoCall { () throws(CryptoError) in try RecoveryKey.generate() }
        let slots = try cryptoCall { () throws(CryptoError) in
            [try Keyslot.wrapping(key, passphrase: passphrase, kdf: kdf, vaultID: vaultID,
                                  slotID: EntityID.generate(at: now).rawValue),
             try Keyslot.wrapping(key, recoveryKey: recoveryKey, vaultID: vaultID,
                                  slotID: EntityID.generate(at: now).rawValue)]
        }
        let metadata = VaultMetadata(vaultID: vaultID, keyID: key.id, createdAt: now)
        let store = try storeCall { () throws(StoreError) in
            try Store.create(at: location.databasePath, metadata: metadata, keyslots: slots,
                             clock: clock, generatorVersion: BuildInfo.version)
        }
        return Created(vault: Vault(location: location, store: store, keyStore: keyStore, clock: clock),
                       recoveryKey: try cryptoCall { () throws(CryptoError) in try recoveryKey.formatted() })
    }

    /// Opens the vault at `location`, locked, applying pending schema migrations.
    /// `events` hears about an automatic schema upgrade, for a notice and progress.
    public static func open(at location: VaultLocation, keyStore: any KeyStore, clock: any Clock = SystemClock(),
                            events: (MigrationEvent) -> Void = { _ in }) throws(VaultError) -> Vault {
        let store = try storeCall { () throws(StoreError) in
            try Store.open(at: location.databasePath, clock: clock, generatorVersion: BuildInfo.version, events: events)
        }
        return Vault(location: location, store: store, keyStore: keyStore, clock: clock)
    }

    // MARK: - The key

    /// Unwraps the vault key with the passphrase and puts it in the keystore until
    /// `seconds` from now. A wrong passphrase changes nothing. Returns the expiry.
    ///
    /// When another device rekeyed the vault and the passphrase opens the new key, this
    /// device takes it up first (`events` hears how it goes): see ``rekeyMadeElsewhere()``.
    @discardableResult
    public func unlock(passphrase: SecretBytes, forSeconds seconds: Int64 = defaultUnlockSeconds,
                       persistence: KeyPersistence = .session,
                       events: (RekeyFollowEvent) -> Void = { _ in }) throws(VaultError) -> Timestamp {
        try keep(try unwrapKeyFollowingRekey(passphrase: passphrase, events: events), forSeconds: seconds, persistence: persistence)
    }

    /// Unwraps the vault key with the recovery key (as typed) and keeps it like ``unlock(passphrase:forSeconds:persistence:events:)``.
    @discardableResult
    public func unlock(recoveryKey text: SecretBytes, forSeconds seconds: Int64 = defaultUnlockSeconds,
                       persistence: KeyPersistence = .session,
                       events: (RekeyFollowEvent) -> Void = { _ in }) throws(VaultError) -> Timestamp {
        let key = try unwrapFollowingRekey(.recovery, local: { () throws(VaultError) in try unwrapKey(recoveryKey: text) },
                                           unwrap: { (slot) throws(CryptoError) in
                                               try slot.unwrap(recoveryKey: try RecoveryKey(parsing: text), vaultID: vaultID)
                                           }, events: events)
        return try keep(key, forSeconds: seconds, persistence: persistence)
    }

    /// Unwraps the vault key with the passphrase for this process alone: nothing goes to the
    /// keystore, and the key is gone when the process ends. The headless path, where no
    /// Secret Service runs (SSH, a console, a server) or the reader chose `--no-keyring`.
    public func unlockForThisProcess(passphrase: SecretBytes, events: (RekeyFollowEvent) -> Void = { _ in }) throws(VaultError) {
        let key = try unwrapKeyFollowingRekey(passphrase: passphrase, events: events)
        try attachKey(key)
        log.notice("vault.unlocked", ["persistence": .public("process"), "seconds": .integer(0)])
    }

    /// Keeps the key already in the keystore until `seconds` from now, in the collection
    /// `persistence` names (moving it there if needed). Fails with ``VaultError/locked``
    /// when the vault is not unlocked: extending never stands in for the passphrase.
    @discardableResult
    public func extendUnlock(forSeconds seconds: Int64, persistence: KeyPersistence) throws(VaultError) -> Timestamp {
        try keep(try currentKey(), forSeconds: seconds, persistence: persistence)
    }

    /// Proof that the person at the keyboard knows the passphrase or the recovery key: the
    /// vault key it unwrapped, for ``changePassphrase(confirmed:to:kdf:)`` and
    /// ``rotateRecoveryKey(confirmed:)``. An unlocked terminal alone is not enough to change
    /// the vault's keys.
    public struct Confirmation {
        let key: VaultKey
    }

    /// Checks `secret`, the passphrase or the recovery key, whichever it is: the recovery
    /// slot first when it has the recovery key's form (cheap), then the passphrase slot
    /// (Argon2id). Asked before anything else, as passwd does.
    public func confirm(_ secret: SecretBytes) throws(VaultError) -> Confirmation {
        guard (try? RecoveryKey(parsing: secret)) != nil else { return Confirmation(key: try unwrapKey(passphrase: secret)) }
        do {
            return Confirmation(key: try unwrapKey(recoveryKey: secret))
        } catch .wrongRecoveryKey {
            // A passphrase may happen to look like a recovery key.
            do { return Confirmation(key: try unwrapKey(passphrase: secret)) } catch .wrongPassphrase { throw .wrongRecoveryKey }
        }
    }

    private func unwrapKeyFollowingRekey(passphrase: SecretBytes, events: (RekeyFollowEvent) -> Void) throws(VaultError) -> VaultKey {
        try unwrapFollowingRekey(.passphrase, local: { () throws(VaultError) in try unwrapKey(passphrase: passphrase) },
                                 unwrap: { (slot) throws(CryptoError) in try slot.unwrap(passphrase: passphrase, vaultID: vaultID) },
                                 events: events)
    }

    private func unwrapKey(passphrase: SecretBytes) throws(VaultError) -> VaultKey {
        let slot = try slot(.passphrase)
        do {
            return try slot.unwrap(passphrase: passphrase, vaultID: vaultID)
        } catch .authenticationFailed {
            log.warning("vault.unlock.refused", ["reason": .public("wrongPassphrase")])
            throw .wrongPassphrase
        } catch {
            throw .crypto(error)
        }
    }

    private func unwrapKey(recoveryKey text: SecretBytes) throws(VaultError) -> VaultKey {
        let recoveryKey: RecoveryKey
        do {
            recoveryKey = try RecoveryKey(parsing: text)
        } catch .recoveryKeyChecksumFailed {
            throw .recoveryKeyChecksumFailed
        } catch {
            throw .invalidRecoveryKey
        }
        let slot = try slot(.recovery)
        do {
            return try slot.unwrap(recoveryKey: recoveryKey, vaultID: vaultID)
        } catch .authenticationFailed {
            log.warning("vault.unlock.refused", ["reason": .public("wrongRecoveryKey")])
            throw .wrongRecoveryKey
        } catch {
            throw .crypto(error)
        }
    }

    /// Removes the key from the keystore. Locking a locked vault is not an error.
    public func lock() throws(VaultError) {
        try keystoreCall { () throws(KeystoreError) in try keyStore.remove(vaultID: vaultID) }
        operationCipher = nil
        log.notice("vault.locked")
    }

    /// Replaces the passphrase keyslot, once ``confirm(_:)`` has proved who is asking; the
    /// vault need not be unlocked. The vault key, and so every sealed field, is unchanged.
    public func changePassphrase(confirmed confirmation: Confirmation, to passphrase: SecretBytes, kdf: KDFParameters) throws(VaultError) {
        let key = confirmation.key
        try Self.checkNewPassphrase(passphrase)
        let now = clock.now()
        let slot = try Self.cryptoCall { () throws(CryptoError) in
            try Keyslot.wrapping(key, passphrase: passphrase, kdf: kdf, vaultID: vaultID,
                                 slotID: EntityID.generate(at: now).rawValue)
        }
        try store.writing { tables throws(StoreError) in try tables.keys.replace(slot) }
        log.notice("vault.passphrase.changed", ["opsLimit": .integer(Int64(kdf.opsLimit)), "memLimit": .integer(Int64(kdf.memLimit))])
    }

    /// Replaces the recovery keyslot with one for a new recovery key, once ``confirm(_:)``
    /// has proved who is asking. No record is re-encrypted; the old recovery key stops
    /// opening this vault, and remotes get the new slot at the next sync. Returns the new key
    /// in display form, to show once: it is formatted before the old slot goes, so nothing
    /// can fail between the two.
    public func rotateRecoveryKey(confirmed confirmation: Confirmation) throws(VaultError) -> SecretBytes {
        let now = clock.now()
        let recoveryKey = try Self.cryptoCall { () throws(CryptoError) in try RecoveryKey.generate() }
        let shown = try Self.cryptoCall { () throws(CryptoError) in try recoveryKey.formatted() }
        let slot = try Self.cryptoCall { () throws(CryptoError) in
            try Keyslot.wrapping(confirmation.key, recoveryKey: recoveryKey, vaultID: vaultID, slotID: EntityID.generate(at: now).rawValue)
        }
        try store.writing { tables throws(StoreError) in try tables.keys.replace(slot) }
        log.notice("vault.recoveryKey.rotated")
        return shown
    }

    /// The Store with the key attached, fetching the key from the keystore on first use.
    func unlockedStore() throws(VaultError) -> Store {
        if !isKeyAttached { _ = try currentKey() }
        return store
    }

    private func currentKey() throws(VaultError) -> VaultKey {
        let lookup = try keystoreCall { () throws(KeystoreError) in try keyStore.lookup(vaultID: vaultID) }
        switch lookup {
        case .notFound:
            throw .locked
        case .keyringLocked:
            throw .keyringLocked
        case .found(let stored):
            guard stored.expiresAtMilliseconds > clock.now().millisecondsSince1970 else {
                try? keyStore.remove(vaultID: vaultID)
                log.notice("vault.key.expired")
                throw .sessionExpired
            }
            do {
                try store.attach(stored.key)
            } catch .rekeyInProgress {
                throw .rekeyInProgress
            } catch {
                // A key from before a rekey, or from a vault once at this place: useless, so drop it.
                try? keyStore.remove(vaultID: vaultID)
                throw .locked
            }
            try didAttach(stored.key)
            return stored.key
        }
    }

    /// Attaches a key just unwrapped from a keyslot to the Store and to this process.
    private func attachKey(_ key: VaultKey) throws(VaultError) {
        try Self.storeCall { () throws(StoreError) in try store.attach(key) }
        try didAttach(key)
    }

    /// The key is attached: journal operations may run, and log lines may tag private values.
    private func didAttach(_ key: VaultKey) throws(VaultError) {
        operationCipher = try store.reading { tables throws(StoreError) in try tables.keys.operationCipher() }
        if let tagger = try? LogTagger(vaultKey: key) {
            Logger.shared.setTagger { tagger.tag($0) }
        }
    }

    private func keep(_ key: VaultKey, forSeconds seconds: Int64, persistence: KeyPersistence) throws(VaultError) -> Timestamp {
        try attachKey(key)
        let expiry = Timestamp(millisecondsSince1970: clock.now().millisecondsSince1970 + seconds * 1000)
        try keystoreCall { () throws(KeystoreError) in
            try keyStore.store(key, vaultID: vaultID, expiresAtMilliseconds: expiry.millisecondsSince1970,
                               persistence: persistence)
        }
        log.notice("vault.unlocked", ["persistence": .public(persistence.rawValue), "seconds": .integer(seconds)])
        return expiry
    }

    func slot(_ kind: Keyslot.Kind) throws(VaultError) -> Keyslot {
        let slots = try store.reading { tables throws(StoreError) in try tables.keys.slots() }
        guard let slot = slots.first(where: { $0.kind == kind }) else { throw .notAVault(path: location.databasePath) }
        return slot
    }

    /// Checks a new passphrase against the rules before anything is derived from it, so a
    /// prompt can ask again at once.
    public static func checkNewPassphrase(_ passphrase: SecretBytes) throws(VaultError) {
        let (characters, hasNUL) = passphrase.withUnsafeBytes { bytes in
            // Count UTF-8 lead bytes, so "ÿ" is one character, without making a String.
            (bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }, bytes.contains(0))
        }
        guard !hasNUL else { throw .passphraseInvalid }
        guard characters >= minimumPassphraseCharacters else {
            throw .passphraseTooShort(minimum: minimumPassphraseCharacters)
        }
    }

    // MARK: - Error mapping

    static func storeCall<Result>(_ body: () throws(StoreError) -> Result) throws(VaultError) -> Result {
        do { return try body() } catch { throw .storage(error) }
    }

    func storeCall<Result>(_ body: () throws(StoreError) -> Result) throws(VaultError) -> Result {
        try Self.storeCall(body)
    }

    static func cryptoCall<Result>(_ body: () throws(CryptoError) -> Result) throws(VaultError) -> Result {
        do { return try body() } catch { throw .crypto(error) }
    }

    func keystoreCall<Result>(_ body: () throws(KeystoreError) -> Result) throws(VaultError) -> Result {
        do { return try body() } catch { throw .keystore(error) }
    }
}

extension Vault {
    /// Whether a vault exists at `location` (without opening it).
    public static func exists(at location: VaultLocation) -> Bool {
        FileSystem.exists(location.databasePath)
    }

    /// Fails unless journal commands can run now: the key is in the keystore, not expired,
    /// and belongs to this vault. Used before asking the reader for anything.
    public func ensureUnlocked() throws(VaultError) {
        _ = try unlockedStore()
    }
}

// Not Sendable: one thread at a time uses a Vault (its Store, attached key and title cache are unsynchronized).
@available(*, unavailable)
extension Vault: Sendable {}
