public import VaultCrypto
import Telemetry

/// The real keystore: the freedesktop Secret Service (gnome-keyring, KeePassXC, ...) through
/// libsecret (``SecretServiceConnection``), with its encrypted transfer session. Items
/// carry the attributes `vault-id` and `xdg:schema` = "org.bmvault.VaultKey" (as libsecret
/// writes them for a schema, so items made by earlier bmvault releases are found) and hold
/// the key in ``StoredKeyLayout``.
///
/// Every operation is bounded by `timeoutMilliseconds` as a whole, never prompts, and
/// never unlocks a collection: a locked keyring is reported, not opened.
public final class SecretServiceKeyStore: KeyStore, Sendable {
    /// How long one `store`, `lookup` or `remove` may take before it gives up.
    public let timeoutMilliseconds: Int

    /// Creates a keystore whose operations give up after `timeoutMilliseconds`, clamped to
    /// 1 ms ... `Int32.max` ms (about 24 days) so deadline arithmetic cannot overflow.
    public init(timeoutMilliseconds: Int = 5000) {
        self.timeoutMilliseconds = min(max(1, timeoutMilliseconds), Int(Int32.max))
    }

    /// Replaces every item for the vault with one holding `key`, in the collection chosen by
    /// `persistence`. Fails with `.keyringLocked`, leaving the old items in place, when the
    /// target collection is locked.
    public func store(_ key: VaultKey, vaultID: String, expiresAtMilliseconds: Int64, persistence: KeyPersistence) throws(KeystoreError) {
        let secret = try StoredKeyLayout.encode(key, expiresAtMilliseconds: expiresAtMilliseconds)
        try secret.withUnsafeBytes { (bytes) throws(KeystoreError) in
            try storeSecret(bytes, vaultID: vaultID, persistence: persistence)
        }
    }

    /// Finds the vault's key: `.found` for a readable well-formed item (the newest, if there
    /// are several), `.keyringLocked` when items exist only in locked collections,
    /// `.notFound` when there are none. A readable item that is not bmvault's layout throws
    /// `.malformedItem` (unless a good item was also found): something else wrote under our
    /// schema, and the next `store` replaces it.
    public func lookup(vaultID: String) throws(KeystoreError) -> KeyLookup {
        try logged("lookup") { () throws(KeystoreError) -> KeyLookup in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            let items = try connection.items(.vaultKey(vaultID: vaultID), loadingSecrets: true)
            if items.isEmpty { return .notFound }

            var sawUnreadable = false
            var sawMalformed = false
            var best: (item: SecretServiceConnection.Item, decoded: StoredKeyLayout.Decoded)?
            for item in items {
                // why an unlocked item without a secret counts as unreadable: a provider may
                // answer GetSecrets without an item it could not unlock.
                guard let secret = item.secret else {
                    sawUnreadable = true
                    continue
                }
                let decoded: StoredKeyLayout.Decoded
                do throws(KeystoreError) {
                    decoded = try secret.withUnsafeBytes { (bytes) throws(KeystoreError) in try StoredKeyLayout.decode(bytes) }
                } catch .malformedItem {
                    sawMalformed = true
                    continue
                }
                // The newest by the item's creation time, then the expiry.
                if let current = best,
                   (current.item.created, current.decoded.expiresAtMilliseconds) >= (item.created, decoded.expiresAtMilliseconds) {
                    continue
                }
                best = (item, decoded)
            }
            guard let best else {
                if sawMalformed { throw .malformedItem }
                return sawUnreadable ? .keyringLocked : .notFound
            }
            let persistence = try Self.persistence(of: best.item.path, connection: connection)
            return .found(StoredVaultKey(key: best.decoded.key, expiresAtMilliseconds: best.decoded.expiresAtMilliseconds,
                                         persistence: persistence))
        }
    }

    /// Removes every item for the vault. Items in a locked collection cannot be deleted
    /// without an unlock prompt, so they are left and the call fails with `.keyringLocked`
    /// after removing the rest.
    public func remove(vaultID: String) throws(KeystoreError) {
        try logged("remove") { () throws(KeystoreError) in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            let lockedLeft = try Self.deleteUnlockedItems(.vaultKey(vaultID: vaultID), connection: connection)
            if lockedLeft { throw .keyringLocked }
        }
    }

    // MARK: - Remote passwords

    /// Replaces the password of a vault's WebDAV remote, in the login keyring ("default"),
    /// or the session collection where there is none: it outlives an unlock, like the
    /// server's account. Fails with `.keyringLocked` when that collection is locked.
    public func storeRemotePassword(_ password: SecretBytes, vaultID: String, remote: String) throws(KeystoreError) {
        try logged("store-remote") { () throws(KeystoreError) in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            var found = try connection.collection(alias: "default")
            if found == nil { found = try connection.collection(alias: "session") }
            guard let target = found else { throw .noSuchCollection(alias: "default") }
            if target.isLocked { throw .keyringLocked }
            let secret = SecretServiceConnection.Secret.remotePassword(vaultID: vaultID, remote: remote)
            _ = try Self.deleteUnlockedItems(secret, connection: connection)
            try password.withUnsafeBytes { (bytes) throws(KeystoreError) in
                try connection.createItem(in: target, holding: secret, label: "bmvault remote \(remote) (vault \(vaultID.prefix(8)))",
                                          secret: bytes, contentType: "text/plain")
            }
        }
    }

    /// The password of a vault's WebDAV remote (the newest readable item), nil when there is
    /// none; `.keyringLocked` when the only ones are in locked collections.
    public func remotePassword(vaultID: String, remote: String) throws(KeystoreError) -> SecretBytes? {
        try logged("lookup-remote") { () throws(KeystoreError) -> SecretBytes? in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            let items = try connection.items(.remotePassword(vaultID: vaultID, remote: remote), loadingSecrets: true)
            guard let newest = items.filter({ $0.secret != nil }).max(by: { $0.created < $1.created }) else {
                if items.contains(where: \.isLocked) { throw .keyringLocked }
                return nil
            }
            return newest.secret
        }
    }

    /// Removes the password of a vault's WebDAV remote; succeeds when there is none.
    public func removeRemotePassword(vaultID: String, remote: String) throws(KeystoreError) {
        try logged("remove-remote") { () throws(KeystoreError) in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            if try Self.deleteUnlockedItems(.remotePassword(vaultID: vaultID, remote: remote), connection: connection) {
                throw .keyringLocked
            }
        }
    }

    // MARK: - Internal (also used by tests through @testable import)

    /// Stores raw secret bytes exactly as given, after the same replace-and-lock checks as
    /// ``store(_:vaultID:expiresAtMilliseconds:persistence:)``. Tests use it to plant items
    /// that are not bmvault's layout.
    func storeSecret(_ secret: UnsafeRawBufferPointer, vaultID: String, persistence: KeyPersistence) throws(KeystoreError) {
        try logged("store") { () throws(KeystoreError) in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            // "session" is libsecret's SECRET_COLLECTION_SESSION; "default" is the login keyring.
            let alias = persistence == .session ? "session" : "default"
            guard let target = try connection.collection(alias: alias) else {
                // A provider could create the collection behind a password prompt; we say so instead.
                throw .noSuchCollection(alias: alias)
            }
            // Refuse before touching anything, so a failed store leaves the old key in place
            // (and so libsecret never meets a locked collection, which would mean a prompt).
            if target.isLocked { throw .keyringLocked }
            // why items in locked collections are left: deleting them needs an unlock prompt.
            // The new item is unlocked, and lookup prefers the newest readable item.
            _ = try Self.deleteUnlockedItems(.vaultKey(vaultID: vaultID), connection: connection)
            try connection.createItem(in: target, holding: .vaultKey(vaultID: vaultID), label: Self.label(vaultID: vaultID), secret: secret,
                                      contentType: StoredKeyLayout.contentType)
        }
    }

    /// How many items exist for the vault, locked or not (for tests).
    func itemCount(vaultID: String) throws(KeystoreError) -> Int {
        try logged("count") { () throws(KeystoreError) -> Int in
            let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: timeoutMilliseconds))
            return try connection.items(.vaultKey(vaultID: vaultID), loadingSecrets: false).count
        }
    }

    /// The item label shown in Seahorse and similar tools.
    static func label(vaultID: String) -> String {
        "bmvault vault key (" + String(vaultID.prefix(8)) + ")"
    }

    // MARK: - Private

    /// Runs one operation, logging its duration and outcome (the error case only: never an
    /// attribute, a label or a secret).
    private func logged<Result>(_ operation: String, _ body: () throws(KeystoreError) -> Result) throws(KeystoreError) -> Result {
        let started = ContinuousClock.now
        func milliseconds() -> Int64 {
            let (seconds, attoseconds) = started.duration(to: .now).components
            return seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }
        do {
            let result = try body()
            log.debug("keystore.call", ["operation": .public(operation), "outcome": .public("ok"), "ms": .integer(milliseconds())])
            return result
        } catch {
            log.warning("keystore.call", ["operation": .public(operation), "outcome": .public(error.caseName), "ms": .integer(milliseconds())])
            throw error
        }
    }

    /// Deletes the unlocked items holding `secret`; reports whether locked ones remain.
    private static func deleteUnlockedItems(_ secret: SecretServiceConnection.Secret,
                                            connection: SecretServiceConnection) throws(KeystoreError) -> Bool {
        let items = try connection.items(secret, loadingSecrets: false)
        for item in items where !item.isLocked { try connection.delete(item) }
        return items.contains { $0.isLocked }
    }

    /// Which collection an item lives in, by its object path; nil when neither alias
    /// resolves, when they name the same collection, or when the item is in neither.
    private static func persistence(of item: String, connection: SecretServiceConnection) throws(KeystoreError) -> KeyPersistence? {
        let sessionPath: String?
        let rememberedPath: String?
        do throws(KeystoreError) {
            sessionPath = try connection.path(ofAlias: "session")
            rememberedPath = try connection.path(ofAlias: "default")
        } catch .timedOut(let milliseconds) {
            throw .timedOut(milliseconds: milliseconds)
        } catch {
            // The key was found; not knowing where it lives is not worth failing over.
            return nil
        }
        // why a path prefix: the Secret Service spec places items under their collection's
        // object path (".../collection/login/17"), and an item has no "collection" property.
        func contains(_ collection: String?) -> Bool { collection.map { item.hasPrefix($0 + "/") } ?? false }
        if let sessionPath, sessionPath == rememberedPath { return nil }
        if contains(sessionPath) { return .session }
        if contains(rememberedPath) { return .remembered }
        return nil
    }
}
