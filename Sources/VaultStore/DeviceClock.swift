import Journal

/// This device's hybrid logical clock, persisted in `vault_meta` so every process on the
/// device continues one sequence. Inside a ``WriteBatch`` the reading is kept in memory and
/// written once, when the batch ends. Use it inside a write transaction.
struct DeviceClock {
    let store: Store
    private var database: Database { store.database }

    /// The next reading, stamped with this device's id, past every reading made or seen here.
    func tick() throws(StoreError) -> HybridTimestamp {
        let next = HybridTimestamp.next(after: try last(), now: store.clock.now(), deviceID: store.deviceID)
        try set(next)
        return next
    }

    /// Moves the clock past a reading seen on another device, so the next local change
    /// sorts after everything already applied.
    func observe(_ reading: HybridTimestamp) throws(StoreError) {
        guard let last = try last(), last >= reading else {
            try set(reading)
            return
        }
    }

    /// Writes `reading` as the device's clock (what a ``WriteBatch`` does when it ends).
    static func write(_ reading: HybridTimestamp, to database: Database) throws(StoreError) {
        try database.run("UPDATE vault_meta SET value = ? WHERE key = 'hlc'", [.text(reading.description)])
    }

    private func set(_ reading: HybridTimestamp) throws(StoreError) {
        if let writeBatch = store.writeBatch {
            writeBatch.clock = reading
        } else {
            try Self.write(reading, to: database)
        }
    }

    private func last() throws(StoreError) -> HybridTimestamp? {
        if let kept = store.writeBatch?.clock { return kept }
        var last: HybridTimestamp?
        try database.forEachRow("SELECT value FROM vault_meta WHERE key = 'hlc'") { row in
            last = try? HybridTimestamp(parsing: row.text("value"))
        }
        return last
    }
}
