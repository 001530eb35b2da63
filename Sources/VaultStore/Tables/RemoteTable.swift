public import Journal

/// A place this vault syncs with.
public struct RemoteRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Any directory: a USB stick, a NAS mount, a folder Syncthing keeps in step.
        case folder
        /// A folder on a WebDAV server (schema v15): `location` is its URL.
        case webdav
    }

    public let name: String
    public let kind: Kind
    /// The folder's path, or a WebDAV folder's URL.
    public let location: String
    /// The user name a WebDAV server asks for (its password is in the Secret Service).
    public let user: String?
    /// Certificates to trust for a WebDAV server instead of the system's: a PEM file's path.
    public let caFile: String?
    public let addedAt: Timestamp
    /// When a sync last used it without a failure; nil before the first such sync.
    public let lastSyncedAt: Timestamp?
    /// Whether sync sends book files' encrypted blobs there and takes them from it (schema v19).
    public let carriesFiles: Bool
}

/// The `remote` table: names, folders or URLs, times and flags, all in the clear, so it is
/// readable while the vault is locked.
public struct RemoteTable {
    let tables: Tables
    private var database: Database { tables.database }

    /// Records a remote. Its name is the reader's label for it, unique in this vault. It
    /// needs a snapshot when the journal holds anything: what earlier changes queued is not
    /// kept for it (it went to other remotes, or was compacted with no remote).
    public func add(name: String, kind: RemoteRecord.Kind, location: String, user: String? = nil,
                    caFile: String? = nil, carriesFiles: Bool = false) throws(StoreError) {
        tables.requireWrite()
        guard try database.integer("SELECT EXISTS (SELECT 1 FROM remote WHERE name = ?)", [.text(name)]) == 0 else {
            throw .remoteExists(name: name)
        }
        // The first remote: nothing was sent anywhere, and the snapshot covers it all.
        _ = try tables.outbox.discardIfNoRemote()
        try database.run("""
            INSERT INTO remote (name, kind, location, user, ca_file, added_at, carries_files, needs_snapshot)
            VALUES (:name, :kind, :location, :user, :caFile, :addedAt, :carriesFiles,
                    EXISTS (SELECT 1 FROM book) OR EXISTS (SELECT 1 FROM reading_session) OR EXISTS (SELECT 1 FROM annotation))
            """, named: [":name": .text(name), ":kind": .text(kind.rawValue), ":location": .text(location),
                         ":user": user.map(SQLValue.text) ?? .null, ":caFile": caFile.map(SQLValue.text) ?? .null,
                         ":addedAt": .integer(tables.store.clock.now().millisecondsSince1970),
                         ":carriesFiles": .integer(carriesFiles ? 1 : 0)])
    }

    /// Whether sync carries book files' blobs to and from the remote `name`.
    public func setCarriesFiles(_ carries: Bool, remote name: String) throws(StoreError) {
        tables.requireWrite()
        try database.run("UPDATE remote SET carries_files = ? WHERE name = ?", [.integer(carries ? 1 : 0), .text(name)])
        guard database.changes == 1 else { throw .remoteNotFound(name: name) }
    }

    /// Forgets a remote (what was synced stays; deliveries to it are forgotten), and marks
    /// `done` every waiting operation the remotes left all have.
    public func remove(name: String) throws(StoreError) {
        tables.requireWrite()
        try database.run("DELETE FROM remote WHERE name = ?", [.text(name)])
        guard database.changes == 1 else { throw .remoteNotFound(name: name) }
        try tables.outbox.completeDelivered()
    }

    /// Records that a sync used `name` without a failure, now.
    public func recordSyncSuccess(of name: String) throws(StoreError) {
        tables.requireWrite()
        try database.run("UPDATE remote SET last_synced_at = ? WHERE name = ?",
                         [.integer(tables.store.clock.now().millisecondsSince1970), .text(name)])
    }

    /// Marks `name` as lacking what this device sent before (its folder was emptied, or
    /// replaced by another): its next push starts with a snapshot. Its last sync time is
    /// forgotten too, so a failed acknowledgement after that snapshot does not read as an
    /// emptied folder again (and send the whole journal at every sync).
    public func requireSnapshot(for name: String) throws(StoreError) {
        tables.requireWrite()
        try database.run("UPDATE remote SET needs_snapshot = 1, last_synced_at = NULL WHERE name = ?", [.text(name)])
    }

    /// The remotes, by name.
    public func all() throws(StoreError) -> [RemoteRecord] {
        var remotes: [RemoteRecord] = []
        try database.forEachRow("""
            SELECT name, kind, location, added_at, last_synced_at, user, ca_file, carries_files FROM remote ORDER BY name
            """) { row in
            guard let kind = RemoteRecord.Kind(rawValue: row.text("kind")) else { return }
            remotes.append(RemoteRecord(name: row.text("name"), kind: kind, location: row.text("location"),
                                        user: row.optionalText("user"), caFile: row.optionalText("ca_file"),
                                        addedAt: Timestamp(millisecondsSince1970: row.int64("added_at")),
                                        lastSyncedAt: row.optionalInt64("last_synced_at").map(Timestamp.init(millisecondsSince1970:)),
                                        carriesFiles: row.int64("carries_files") != 0))
        }
        return remotes
    }

    /// The remotes whose next push must start with a snapshot.
    public func needingSnapshot() throws(StoreError) -> Set<String> {
        var names = Set<String>()
        try database.forEachRow("SELECT name FROM remote WHERE needs_snapshot = 1") { row in names.insert(row.text("name")) }
        return names
    }

    /// Whether a sync has used `remote` without a failure before.
    public func hasSynced(with remote: String) throws(StoreError) -> Bool {
        try database.integer("SELECT last_synced_at IS NOT NULL FROM remote WHERE name = ?", [.text(remote)]) == 1
    }

    /// Whether `remote` has everything this device has queued: no snapshot owed and no
    /// operation (waiting, or failed for good) that it lacks.
    public func hasEverything(_ remote: String) throws(StoreError) -> Bool {
        try database.integer("""
            SELECT needs_snapshot = 0 AND NOT EXISTS (
                SELECT 1 FROM outbox o WHERE o.state <> 'done'
                  AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.operation_id = o.id AND d.remote = ?1))
            FROM remote WHERE name = ?1
            """, [.text(remote)]) == 1
    }
}
