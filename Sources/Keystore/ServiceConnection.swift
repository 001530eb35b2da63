internal import CSecret

/// One connection to the Secret Service for the length of one keystore operation: the
/// shared `SecretService` proxy with an open transfer session, plus the operation's budget.
/// Every method is a thin, bounded wrapper around one libsecret call.
final class ServiceConnection {
    let budget: OperationBudget
    private let service: UnsafeMutablePointer<SecretService>

    /// Connects (or reuses libsecret's per-process proxy) and opens a transfer session.
    /// why SECRET_SERVICE_OPEN_SESSION: secrets then travel DH-encrypted over the bus,
    /// and a missing bus or provider surfaces here, at connect, where it is easy to name.
    init(timeoutMilliseconds: Int) throws(KeystoreError) {
        let budget = try OperationBudget(timeoutMilliseconds: timeoutMilliseconds)
        var connected: UnsafeMutablePointer<SecretService>?
        try budget.run(.connect) { cancellable, error in
            connected = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, error)
            return connected != nil
        }
        guard let connected else { throw .failure(domain: "bmvault-keystore", code: 1) }
        self.budget = budget
        self.service = connected
    }

    deinit { bmv_object_unref(service) }

    /// Every item under bmvault's schema for this vault, locked or not, in every collection.
    ///
    /// why not secret_password_lookup: it returns NULL with no error both for "no item" and
    /// for "item in a locked collection"; searching lets us look at each item's Locked flag.
    /// why no SECRET_SEARCH_LOAD_SECRETS: secret_service_search_sync loads the secrets with
    /// a NULL cancellable and ignores the result, so that step would escape our timeout.
    func items(vaultID: String) throws(KeystoreError) -> ItemList {
        let attributes = Attributes(vaultID: vaultID)
        var head: UnsafeMutablePointer<GList>?
        try budget.run(.operation) { cancellable, error in
            head = secret_service_search_sync(service, bmv_vault_key_schema(), attributes.table,
                                              SECRET_SEARCH_ALL, cancellable, error)
            // An empty result is NULL too; failure is told by the error alone.
            return true
        }
        return ItemList(head: head)
    }

    /// Fetches one unlocked item's secret into the item (read it with `secret_item_get_secret`).
    func loadSecret(of item: UnsafeMutablePointer<SecretItem>) throws(KeystoreError) {
        try budget.run(.operation) { cancellable, error in
            secret_item_load_secret_sync(item, cancellable, error) != 0
        }
    }

    /// Deletes one item.
    func delete(_ item: UnsafeMutablePointer<SecretItem>) throws(KeystoreError) {
        try budget.run(.operation) { cancellable, error in
            secret_item_delete_sync(item, cancellable, error) != 0
        }
    }

    /// The collection an alias ("default", "session") names, or nil when the alias is unset.
    func collection(alias: String) throws(KeystoreError) -> CollectionInfo? {
        var found: UnsafeMutablePointer<SecretCollection>?
        try budget.run(.operation) { cancellable, error in
            found = alias.withCString { name in
                secret_collection_for_alias_sync(service, name, SECRET_COLLECTION_NONE, cancellable, error)
            }
            // An unset alias is NULL with no error.
            return true
        }
        guard let found else { return nil }
        defer { bmv_object_unref(found) }
        guard let path = bmv_collection_object_path(found) else { return nil }
        return CollectionInfo(path: String(cString: path), isLocked: secret_collection_get_locked(found) != 0)
    }

    /// Stores `secret` as a new item in the collection at `collectionPath`.
    ///
    /// why a path, not libsecret's alias or NULL: given the "default" alias, libsecret
    /// creates a missing default collection, and given a locked collection it unlocks it;
    /// both mean a prompt, which our timeout would cancel mid-typing anyway. The caller
    /// resolves and checks the collection first, then stores exactly there.
    func store(secret: UnsafeRawBufferPointer, vaultID: String, collectionPath: String, label: String) throws(KeystoreError) {
        let attributes = Attributes(vaultID: vaultID)
        // why secret_value_new: it copies into libsecret's own secure (mlocked, wiped) memory.
        let created = StoredKeyLayout.contentType.withCString { type in
            secret_value_new(secret.baseAddress?.assumingMemoryBound(to: CChar.self), secret.count, type)
        }
        guard let value = created else { throw .failure(domain: "bmvault-keystore", code: 2) }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        try budget.run(.operation) { cancellable, error in
            label.withCString { labelText in
                collectionPath.withCString { path in
                    secret_service_store_sync(service, bmv_vault_key_schema(), attributes.table,
                                              path, labelText, value, cancellable, error) != 0
                }
            }
        }
    }
}

/// A collection's object path and lock state, read once.
struct CollectionInfo {
    let path: String
    let isLocked: Bool

    /// why: the Secret Service spec places items under their collection's object path
    /// (".../collection/login/17"), and SecretItem has no "collection" property.
    func contains(itemPath: String) -> Bool {
        itemPath.hasPrefix(path + "/")
    }
}

/// An attribute table `{ "vault-id": id }` that owns copies of its strings (see shim.h).
final class Attributes {
    let table: OpaquePointer

    init(vaultID: String) {
        table = bmv_attributes_new()
        bmv_attributes_insert(table, "vault-id", vaultID)
    }

    deinit { bmv_hash_table_unref(table) }
}

/// Search results: a GList of SecretItems (transfer full), freed with the list.
final class ItemList {
    private let head: UnsafeMutablePointer<GList>?
    let items: [UnsafeMutablePointer<SecretItem>]

    init(head: UnsafeMutablePointer<GList>?) {
        self.head = head
        var items: [UnsafeMutablePointer<SecretItem>] = []
        var node = head
        while let current = node {
            if let data = current.pointee.data {
                items.append(data.assumingMemoryBound(to: SecretItem.self))
            }
            node = current.pointee.next
        }
        self.items = items
    }

    deinit {
        // why this matters: each item caches its loaded secret until the item is freed.
        if let head { bmv_object_list_free(head) }
    }
}
