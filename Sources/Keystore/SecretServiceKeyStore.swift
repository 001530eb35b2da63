internal import CSecret
public import VaultCrypto
internal import Synchronization
import Foundation
import Telemetry

/// The real keystore: the freedesktop Secret Service (gnome-keyring, KeePassXC, ...) over
/// D-Bus, through libsecret. Items use the schema "org.bmvault.VaultKey", found by their
/// "vault-id" attribute, and hold the key in ``StoredKeyLayout``.
///
/// Every operation is bounded by `timeoutMilliseconds` as a whole, never prompts, and
/// never unlocks a collection: a locked keyring is reported, not opened.
public final class SecretServiceKeyStore: KeyStore, Sendable {
    /// How long one `store`, `lookup` or `remove` may take before it gives up.
    public let timeoutMilliseconds: Int

    /// why a process-wide lock: libsecret shares one SecretService proxy per process and
    /// does not document its *_sync calls as safe to interleave from several threads; a
    /// CLI makes one call at a time anyway, so serializing them costs nothing.
    private static let gate = Mutex(())

    /// Creates a keystore whose operations give up after `timeoutMilliseconds`, clamped to
    /// 1 ms ... `Int32.max` ms (about 24 days) so the timer's deadline arithmetic cannot overflow.
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
        try serialized("lookup") { () throws(KeystoreError) -> KeyLookup in
            let connection = try ServiceConnection(timeoutMilliseconds: timeoutMilliseconds)
            let list = try connection.items(vaultID: vaultID)
            if list.items.isEmpty { return .notFound }

            var best: (item: UnsafeMutablePointer<SecretItem>, decoded: StoredKeyLayout.Decoded, created: UInt64)?
            var sawMalformed = false
            var sawUnreadable = false
            for item in list.items {
                guard secret_item_get_locked(item) == 0 else {
                    sawUnreadable = true
                    continue
                }
                do throws(KeystoreError) {
                    try connection.loadSecret(of: item)
                } catch .keyringLocked {
                    // Locked between the search and the read: the same as locked at search.
                    sawUnreadable = true
                    continue
                }
                let decoded: StoredKeyLayout.Decoded
                do throws(KeystoreError) {
                    guard let found = try Self.decodeSecret(of: item) else {
                        // why: a provider may answer GetSecrets without this item (it could
                        // not unlock it); from here that is the same as a locked item.
                        sawUnreadable = true
                        continue
                    }
                    decoded = found
                } catch .malformedItem {
                    sawMalformed = true
                    continue
                }
                let created = UInt64(secret_item_get_created(item))
                if let current = best,
                   (current.created, current.decoded.expiresAtMilliseconds) >= (created, decoded.expiresAtMilliseconds) {
                    continue
                }
                best = (item, decoded, created)
            }

            if let best {
                let persistence = try Self.persistence(of: best.item, connection: connection)
                return .found(StoredVaultKey(key: best.decoded.key,
                                             expiresAtMilliseconds: best.decoded.expiresAtMilliseconds,
                                             persistence: persistence))
            }
            if sawMalformed { throw .malformedItem }
            return sawUnreadable ? .keyringLocked : .notFound
        }
    }

    /// Removes every item for the vault. Items in a locked collection cannot be deleted
    /// without an unlock prompt, so they are left and the call fails with `.keyringLocked`
    /// after removing the rest.
    public func remove(vaultID: String) throws(KeystoreError) {
        try serialized("remove") { () throws(KeystoreError) in
            let connection = try ServiceConnection(timeoutMilliseconds: timeoutMilliseconds)
            let lockedLeft = try Self.deleteUnlockedItems(vaultID: vaultID, connection: connection)
            if lockedLeft { throw .keyringLocked }
        }
    }

    // MARK: - Internal (also used by tests through @testable import)

    /// Stores raw secret bytes exactly as given, after the same replace-and-lock checks as
    /// ``store(_:vaultID:expiresAtMilliseconds:persistence:)``. Tests use it to plant items
    /// that are not bmvault's layout.
    func storeSecret(_ secret: UnsafeRawBufferPointer, vaultID: String, persistence: KeyPersistence) throws(KeystoreError) {
        try serialized("store") { () throws(KeystoreError) in
            let connection = try ServiceConnection(timeoutMilliseconds: timeoutMilliseconds)
            // "session" is SECRET_COLLECTION_SESSION; "default" is what collection NULL means.
            let alias = persistence == .session ? "session" : "default"
            guard let target = try connection.collection(alias: alias) else {
                // libsecret would create the collection behind a password prompt; we say so instead.
                throw .noSuchCollection(alias: alias)
            }
            // Refuse before touching anything, so a failed store leaves the old key in place.
            if target.isLocked { throw .keyringLocked }
            // why items in locked collections are left: deleting them needs an unlock prompt.
            // The new item is unlocked, and lookup prefers the newest readable item.
            _ = try Self.deleteUnlockedItems(vaultID: vaultID, connection: connection)
            try connection.store(secret: secret, vaultID: vaultID, collectionPath: target.path,
                                 label: Self.label(vaultID: vaultID))
        }
    }

    /// How many items exist for the vault, locked or not (for tests).
    func itemCount(vaultID: String) throws(KeystoreError) -> Int {
        try serialized("count") { () throws(KeystoreError) -> Int in
            let connection = try ServiceConnection(timeoutMilliseconds: timeoutMilliseconds)
            return try connection.items(vaultID: vaultID).items.count
        }
    }

    /// The item label shown in Seahorse and similar tools.
    static func label(vaultID: String) -> String {
        "bmvault vault key (" + String(vaultID.prefix(8)) + ")"
    }

    // MARK: - Private

    /// Runs one operation under the process-wide gate, logging its duration and outcome
    /// (the error case only: never an attribute, a label or a secret).
    private func serialized<Result>(_ operation: String, _ body: () throws(KeystoreError) -> Result) throws(KeystoreError) -> Result {
        let started = Date()
        do {
            let result = try Self.gate.withLock { (_) throws(KeystoreError) -> Result in try body() }
            log.debug("keystore.call", ["operation": .public(operation), "outcome": .public("ok"),
                                        "ms": .integer(Int64(Date().timeIntervalSince(started) * 1000))])
            return result
        } catch {
            log.warning("keystore.call", ["operation": .public(operation), "outcome": .public(error.caseName),
                                          "ms": .integer(Int64(Date().timeIntervalSince(started) * 1000))])
            throw error
        }
    }

    /// Deletes the vault's unlocked items; reports whether locked ones remain.
    private static func deleteUnlockedItems(vaultID: String, connection: ServiceConnection) throws(KeystoreError) -> Bool {
        let list = try connection.items(vaultID: vaultID)
        var lockedLeft = false
        for item in list.items {
            if secret_item_get_locked(item) != 0 {
                lockedLeft = true
                continue
            }
            try connection.delete(item)
        }
        return lockedLeft
    }

    /// Decodes a loaded item's secret; nil when the provider gave no secret for it.
    /// The SecretValue is released before returning; the key is already in sodium memory.
    private static func decodeSecret(of item: UnsafeMutablePointer<SecretItem>) throws(KeystoreError) -> StoredKeyLayout.Decoded? {
        // why: secret_item_get_secret returns a new reference (transfer full).
        guard let value = secret_item_get_secret(item) else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length = 0
        guard let bytes = secret_value_get(value, &length) else { throw .malformedItem }
        return try StoredKeyLayout.decode(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Which collection an item lives in, by its object path; nil when neither alias
    /// resolves, when they name the same collection, or when the item is in neither.
    private static func persistence(of item: UnsafeMutablePointer<SecretItem>, connection: ServiceConnection) throws(KeystoreError) -> KeyPersistence? {
        guard let raw = bmv_item_object_path(item) else { return nil }
        let itemPath = String(cString: raw)
        let session: CollectionInfo?
        let remembered: CollectionInfo?
        do throws(KeystoreError) {
            session = try connection.collection(alias: "session")
            remembered = try connection.collection(alias: "default")
        } catch .timedOut(let milliseconds) {
            throw .timedOut(milliseconds: milliseconds)
        } catch {
            // The key was found; not knowing where it lives is not worth failing over.
            return nil
        }
        if let session, let remembered, session.path == remembered.path { return nil }
        if session?.contains(itemPath: itemPath) == true { return .session }
        if remembered?.contains(itemPath: itemPath) == true { return .remembered }
        return nil
    }
}

extension SecretServiceKeyStore {
    /// The libsecret version bmvault was built with, for diagnostics.
    public static var libraryVersion: String { "\(SECRET_MAJOR_VERSION).\(SECRET_MINOR_VERSION).\(SECRET_MICRO_VERSION)" }
}
