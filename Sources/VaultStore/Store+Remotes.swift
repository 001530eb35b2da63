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

extension Store {
    /// Records a remote. Its name is the reader's label for it, unique in this vault. It
    /// needs a snapshot when the journal holds anything: what earlier changes queued is not
    /// kept for it (it went to other remotes, or was compacted with no remote).
    public func addRemote(name: String, kind: RemoteRecord.Kind, location: String, user: String? = nil,
                          caFile: String? = nil, carriesFiles: Bool = false) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            var exists = false
            try database.forEachRow("SELECT 1 FROM remote WHERE name = ?", [.text(name)]) { _ in exists = true }
            guard !exists else { throw .remoteExists(name: name) }
            // The first remote: nothing was sent anywhere, and the snapshot covers it all.
            _ = try discardOutboxIfNoRemote()
            try database.run("""
                INSERT INTO remote (name, kind, location, user, ca_file, added_at, carries_files, needs_snapshot)
                VALUES (?, ?, ?, ?, ?, ?, ?, EXISTS (SELECT 1 FROM book) OR EXISTS (SELECT 1 FROM reading_session) OR EXISTS (SELECT 1 FROM annotation))
                """,
                             [.text(name), .text(kind.rawValue), .text(location), user.map(SQLValue.text) ?? .null,
                              caFile.map(SQLValue.text) ?? .null, .integer(clock.now().millisecondsSince1970), .integer(carriesFiles ? 1 : 0)])
        }
    }

    /// Whether sync carries book files' blobs to and from the remote `name`.
    public func setCarriesFiles(_ carries: Bool, remote name: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("UPDATE remote SET carries_files = ? WHERE name = ?", [.integer(carries ? 1 : 0), .text(name)])
            guard database.changes == 1 else { throw .remoteNotFound(name: name) }
        }
    }

    /// Forgets a remote (what was synced stays; deliveries to it are forgotten).
    public func removeRemote(name: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("DELETE FROM remote WHERE name = ?", [.text(name)])
            guard database.changes == 1 else { throw .remoteNotFound(name: name) }
            // Operations delivered to every remote that is left are done.
            try completeDeliveredOperations()
        }
        try compactOutbox()
    }

    /// Records that a sync used `name` without a failure, now.
    public func recordSyncSuccess(of name: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("UPDATE remote SET last_synced_at = ? WHERE name = ?", [.integer(clock.now().millisecondsSince1970), .text(name)])
        }
    }

    /// Marks `name` as lacking what this device sent before (its folder was emptied, or
    /// replaced by another): its next push starts with a snapshot. Its last sync time is
    /// forgotten too, so a failed acknowledgement after that snapshot does not read as an
    /// emptied folder again (and send the whole journal at every sync).
    public func requireSnapshot(for name: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("UPDATE remote SET needs_snapshot = 1, last_synced_at = NULL WHERE name = ?", [.text(name)])
        }
    }

    /// The remotes, by name. Readable while locked: names, paths and times, no content.
    public func remotes() throws(StoreError) -> [RemoteRecord] {
        var remotes: [RemoteRecord] = []
        try database.forEachRow("SELECT name, kind, location, added_at, last_synced_at, user, ca_file, carries_files FROM remote ORDER BY name") { row in
            guard let kind = RemoteRecord.Kind(rawValue: row.text(1)) else { return }
            remotes.append(RemoteRecord(name: row.text(0), kind: kind, location: row.text(2),
                                        user: row.isNull(5) ? nil : row.text(5), caFile: row.isNull(6) ? nil : row.text(6),
                                        addedAt: Timestamp(millisecondsSince1970: row.int64(3)),
                                        lastSyncedAt: row.isNull(4) ? nil : Timestamp(millisecondsSince1970: row.int64(4)),
                                        carriesFiles: row.int64(7) != 0))
        }
        return remotes
    }

    /// Marks `done` every waiting operation that every remote now has.
    func completeDeliveredOperations() throws(StoreError) {
        try database.run("""
            UPDATE outbox SET state = 'done', next_attempt_at = NULL
            WHERE state IN ('pending', 'in_flight')
              AND EXISTS (SELECT 1 FROM remote)
              AND NOT EXISTS (SELECT 1 FROM remote r WHERE NOT EXISTS (
                    SELECT 1 FROM outbox_delivery d WHERE d.operation_id = outbox.id AND d.remote = r.name))
            """)
    }
}
