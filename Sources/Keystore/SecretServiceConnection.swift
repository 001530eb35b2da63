internal import CSecret
internal import FileIO
internal import VaultCrypto
#if canImport(Glibc)
import Glibc
#endif

/// The Secret Service calls bmvault makes, through libsecret, within one ``Deadline``.
///
/// libsecret opens the spec's Diffie-Hellman transfer session (falling back to `plain` only
/// where a provider offers nothing else) and keeps secrets it handles in its own secure
/// memory; here they go from a `SecretValue` straight into ``SecretBytes``, and the
/// `SecretValue` is released at once.
///
/// No call here may show a prompt: collections are checked for `Locked` before an item is
/// written, and only items already unlocked are read or deleted.
final class SecretServiceConnection {
    private let deadline: Deadline
    private let service: UnsafeMutablePointer<SecretService>

    /// Connects to the session bus, then to the Secret Service with an open transfer session.
    init(deadline: Deadline) throws(KeystoreError) {
        self.deadline = deadline
        // why not leave finding the bus to GIO: with no address and no `$XDG_RUNTIME_DIR/bus`,
        // GIO "autolaunches" one through dbus-launch (on any X11 display, say over `ssh -X`),
        // a child process no deadline can stop, and a bus that outlives bmvault.
        guard Self.sessionBusMayExist() else { throw .noSessionBus }
        var error: UnsafeMutablePointer<GError>?
        // why the bus alone first: any failure to reach it means "no session bus", which has
        // its own advice, whatever GIO's error code for the particular way it is missing.
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, deadline.pointer, &error) else {
            let failure = Self.take(&error, deadline)
            if case .timedOut = failure { throw failure }
            throw .noSessionBus
        }
        // GIO's shared bus ends the process (SIGTERM) when the bus closes: not bmvault, in the
        // middle of an import or an editor session. Held until libsecret has it too.
        g_dbus_connection_set_exit_on_close(bus, 0)
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        guard let service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, deadline.pointer, &error) else {
            throw Self.take(&error, deadline)
        }
        self.service = service
        // A provider that does not answer OpenSession leaves libsecret without a session.
        guard secret_service_get_session_algorithms(service) != nil else {
            throw deadline.hasExpired ? .timedOut(milliseconds: deadline.timeoutMilliseconds) : .noProvider
        }
    }

    deinit {
        g_object_unref(service)
    }

    /// The transfer session's algorithm as the provider agreed it: the spec's
    /// "dh-ietf1024-sha256-aes128-cbc-pkcs7" with gnome-keyring and KeePassXC, "plain" only
    /// with a provider that offers nothing else.
    var transferAlgorithm: String {
        secret_service_get_session_algorithms(service).map { String(cString: $0) } ?? "none"
    }

    /// An item found under bmvault's schema.
    struct Item {
        let reference: ObjectReference
        /// The D-Bus object path, which begins with its collection's path.
        let path: String
        let isLocked: Bool
        /// The secret, for an unlocked item when secrets were asked for and the provider gave it.
        let secret: SecretBytes?
        /// When the item was created, in seconds since 1970.
        let created: UInt64
    }

    /// What an item holds, which decides its schema and attributes.
    enum Secret {
        /// A vault's key (``StoredKeyLayout``).
        case vaultKey(vaultID: String)
        /// The password of a vault's WebDAV remote.
        case remotePassword(vaultID: String, remote: String)

        var schema: UnsafePointer<SecretSchema> {
            switch self {
            case .vaultKey: bmvault_vault_key_schema()
            case .remotePassword: bmvault_remote_password_schema()
            }
        }

        /// A new table of the attributes that find it; the caller unrefs it.
        func attributes() -> OpaquePointer {
            switch self {
            case .vaultKey(let vaultID): bmvault_vault_attributes(vaultID)
            case .remotePassword(let vaultID, let remote): bmvault_remote_attributes(vaultID, remote)
            }
        }
    }

    /// Every item holding `secret`, in every collection, locked or not; with
    /// `loadingSecrets`, the secrets of the unlocked ones. Nothing is unlocked to search.
    func items(_ secret: Secret, loadingSecrets: Bool) throws(KeystoreError) -> [Item] {
        let attributes = secret.attributes()
        defer { g_hash_table_unref(attributes) }
        var flags = SECRET_SEARCH_ALL.rawValue
        if loadingSecrets { flags |= SECRET_SEARCH_LOAD_SECRETS.rawValue }
        var error: UnsafeMutablePointer<GError>?
        let list = secret_service_search_sync(service, secret.schema, attributes, SecretSearchFlags(flags),
                                              deadline.pointer, &error)
        if error != nil { throw Self.take(&error, deadline) }
        defer { g_list_free_full(list) { g_object_unref($0) } }
        var items: [Item] = []
        var node = list
        while let current = node {
            let item = current.pointee.data.assumingMemoryBound(to: SecretItem.self)
            let isLocked = secret_item_get_locked(item) != 0
            items.append(Item(reference: ObjectReference(retaining: item), path: String(cString: bmvault_object_path(item)),
                              isLocked: isLocked, secret: isLocked ? nil : try Self.secret(of: item),
                              created: UInt64(secret_item_get_created(item))))
            node = current.pointee.next
        }
        return items
    }

    /// A collection named by an alias (`session`, `default`).
    struct Collection {
        let reference: ObjectReference
        let path: String
        let isLocked: Bool
    }

    /// The collection `alias` names, or nil when the alias is unset. Nothing is created or unlocked.
    func collection(alias: String) throws(KeystoreError) -> Collection? {
        var error: UnsafeMutablePointer<GError>?
        let collection = secret_collection_for_alias_sync(service, alias, SECRET_COLLECTION_NONE, deadline.pointer, &error)
        if error != nil { throw Self.take(&error, deadline) }
        guard let collection else { return nil }
        let reference = ObjectReference(adopting: collection)
        return Collection(reference: reference, path: String(cString: bmvault_object_path(collection)),
                          isLocked: secret_collection_get_locked(collection) != 0)
    }

    /// The object path an alias points at, or nil when it is unset (one call, no proxy).
    func path(ofAlias alias: String) throws(KeystoreError) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let path = bmvault_read_alias(service, alias, deadline.pointer, &error)
        if error != nil { throw Self.take(&error, deadline) }
        guard let path else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// Stores `secret` as a new item in `collection`, replacing an item there with the same
    /// attributes. The caller has checked that the collection is unlocked, so no prompt comes.
    func createItem(in collection: Collection, holding kind: Secret, label: String, secret: UnsafeRawBufferPointer,
                    contentType: String) throws(KeystoreError) {
        // Copied into libsecret's secure memory, released (and wiped) when this call ends.
        let value = bmvault_secret_value_new(secret.baseAddress, secret.count, contentType)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let attributes = kind.attributes()
        defer { g_hash_table_unref(attributes) }
        var error: UnsafeMutablePointer<GError>?
        let item = secret_item_create_sync(collection.reference.pointer.assumingMemoryBound(to: SecretCollection.self),
                                           kind.schema, attributes, label, value,
                                           SECRET_ITEM_CREATE_REPLACE, deadline.pointer, &error)
        if let item { g_object_unref(item) }
        if error != nil { throw Self.take(&error, deadline) }
        if item == nil { throw .keyringLocked }
    }

    /// Deletes an unlocked item.
    func delete(_ item: Item) throws(KeystoreError) {
        var error: UnsafeMutablePointer<GError>?
        let deleted = secret_item_delete_sync(item.reference.pointer.assumingMemoryBound(to: SecretItem.self), deadline.pointer, &error)
        if error != nil { throw Self.take(&error, deadline) }
        // Without an error, libsecret reports a prompt the reader dismissed as "not deleted".
        if deleted == 0 { throw .keyringLocked }
    }

    // MARK: - Private

    /// Whether GIO can find a session bus without starting one: an address in the
    /// environment, or the socket systemd and dbus-run-session leave in the runtime directory.
    private static func sessionBusMayExist() -> Bool {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return true }
        guard let runtime = getenv("XDG_RUNTIME_DIR"), runtime.pointee != 0 else { return false }
        return FileSystem.exists(String(cString: runtime) + "/bus")
    }

    /// Copies an item's loaded secret into secure memory and releases libsecret's copy at once.
    private static func secret(of item: UnsafeMutablePointer<SecretItem>) throws(KeystoreError) -> SecretBytes? {
        guard let value = secret_item_get_secret(item) else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length = 0
        guard let bytes = secret_value_get(value, &length) else { return nil }
        do {
            return try SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
        } catch {
            throw .crypto(error)
        }
    }

    private static func take(_ error: inout UnsafeMutablePointer<GError>?, _ deadline: Deadline) -> KeystoreError {
        guard let failure = error else { return .failure(domain: "bmvault-libsecret", code: 0) }
        error = nil
        return GLibFailure.consume(failure, deadline: deadline)
    }
}

/// One reference to a GObject (a libsecret item or collection), released when this goes.
final class ObjectReference {
    let pointer: UnsafeMutableRawPointer

    /// Takes a new reference to `object`, which the caller keeps owning too.
    init<Object>(retaining object: UnsafeMutablePointer<Object>) {
        pointer = UnsafeMutableRawPointer(g_object_ref(object))
    }

    /// Takes over the reference the caller owned.
    init<Object>(adopting object: UnsafeMutablePointer<Object>) {
        pointer = UnsafeMutableRawPointer(object)
    }

    deinit {
        g_object_unref(pointer)
    }
}
