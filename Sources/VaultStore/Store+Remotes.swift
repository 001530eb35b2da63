public import Journal

/// A place this vault syncs with.
public struct RemoteRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Any directory: a USB stick, a NAS mount, a folder Syncthing keeps in step.
        case folder
    }

    public let name: String
    public let kind: Kind
    public let location: String
    public let addedAt: Timestamp
}

extension Store {
    /// Records a remote. Its name is the reader's label for it, unique in this vault.
    public func addRemote(name: String, kind: RemoteRecord.Kind, location: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            var exists = false
            try database.forEachRow("SELECT 1 FROM remote WHERE name = ?", [.text(name)]) { _ in exists = true }
            guard !exists else { throw .remoteExists(name: name) }
            try database.run("INSERT INTO remote (name, kind, location, added_at) VALUES (?, ?, ?, ?)",
                             [.text(name), .text(kind.rawValue), .text(location), .integer(clock.now().millisecondsSince1970)])
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
    }

    /// The remotes, by name.
    public func remotes() throws(StoreError) -> [RemoteRecord] {
        var remotes: [RemoteRecord] = []
        try database.forEachRow("SELECT name, kind, location, added_at FROM remote ORDER BY name") { row in
            guard let kind = RemoteRecord.Kind(rawValue: row.text(1)) else { return }
            remotes.append(RemoteRecord(name: row.text(0), kind: kind, location: row.text(2),
                                        addedAt: Timestamp(millisecondsSince1970: row.int64(3))))
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
