public import Journal

/// The `applied_operation` table: the idempotency key of every operation from another
/// device applied here, recorded in the transaction that applied it, so an operation read
/// again (a retried sync, a second remote holding it) is applied once.
public struct AppliedOperationTable {
    let tables: Tables
    var database: Database { tables.database }

    /// Whether the operation with this key was applied here.
    public func contains(_ idempotencyKey: String) throws(StoreError) -> Bool {
        try database.integer("SELECT EXISTS (SELECT 1 FROM applied_operation WHERE idempotency_key = ?)", [.text(idempotencyKey)]) == 1
    }

    /// Records the operation as applied, by `device` at `clock`.
    public func record(_ idempotencyKey: String, device: String, clock: HybridTimestamp) throws(StoreError) {
        tables.requireWrite()
        try database.run("INSERT INTO applied_operation (idempotency_key, device_id, hlc, applied_at) VALUES (?, ?, ?, ?)",
                         [.text(idempotencyKey), .text(device), .text(clock.description),
                          .integer(tables.store.now.millisecondsSince1970)])
    }

    /// The keys of `device`'s operations applied here.
    public func keys(from device: String) throws(StoreError) -> Set<String> {
        var keys = Set<String>()
        try database.forEachRow("SELECT idempotency_key FROM applied_operation WHERE device_id = ?", [.text(device)]) { row in
            keys.insert(row.text("idempotency_key"))
        }
        return keys
    }
}
