public import Journal

extension Store {
    /// This device's id, bound into every clock reading it makes.
    public var deviceID: String { metadata.deviceID }

    /// The next reading of this device's hybrid logical clock, persisted in the vault so
    /// every process on the device continues one sequence. Call inside a write transaction.
    func tick() throws(StoreError) -> HybridTimestamp {
        let next = HybridTimestamp.next(after: try lastClock(), now: clock.now(), deviceID: deviceID)
        try setClock(next)
        return next
    }

    /// Moves this device's clock past a reading seen on another device, so the next local
    /// change sorts after everything already applied. Call inside a write transaction.
    package func observe(_ reading: HybridTimestamp) throws(StoreError) {
        guard let last = try lastClock(), last >= reading else {
            try setClock(reading)
            return
        }
    }

    /// In a ``WriteBatch``, the clock is kept in memory and written once, when it ends.
    private func setClock(_ reading: HybridTimestamp) throws(StoreError) {
        if let writeBatch {
            writeBatch.clock = reading
        } else {
            try Self.writeClock(reading, to: database)
        }
    }

    static func writeClock(_ reading: HybridTimestamp, to database: Database) throws(StoreError) {
        try database.run("UPDATE vault_meta SET value = ? WHERE key = 'hlc'", [.text(reading.description)])
    }

    private func lastClock() throws(StoreError) -> HybridTimestamp? {
        if let kept = writeBatch?.clock { return kept }
        var last: HybridTimestamp?
        try database.forEachRow("SELECT value FROM vault_meta WHERE key = 'hlc'") { row in
            last = try? HybridTimestamp(parsing: row.text(0))
        }
        return last
    }

    /// The clock of a record's current version (`nil` when the record does not exist).
    func recordClock(table: String, id: EntityID) throws(StoreError) -> HybridTimestamp? {
        var reading: HybridTimestamp?
        try database.forEachRow("SELECT hlc FROM \(table) WHERE id = ?", [.text(id.rawValue)]) { row in
            if !row.isNull(0) { reading = try? HybridTimestamp(parsing: row.text(0)) }
        }
        return reading
    }
}

extension Store {
    /// This store's clock reading: what the engine stamps on acknowledgements.
    public var now: Timestamp { clock.now() }
}
