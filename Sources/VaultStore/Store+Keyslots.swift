public import VaultCrypto
import Journal

extension Store {
    /// The vault's keyslots. Readable while locked: they are what unlocks it.
    public func keyslots() throws(StoreError) -> [Keyslot] {
        try keyslots(in: "keyslot")
    }

    /// The slots in `table` (`keyslot`, or `rekey_keyslot` for a rekey's new key).
    func keyslots(in table: String) throws(StoreError) -> [Keyslot] {
        var slots: [Keyslot] = []
        try database.forEachRow("""
            SELECT id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key FROM \(table) ORDER BY kind
            """) { row in
            guard let kind = Keyslot.Kind(rawValue: row.text(1)) else { return }
            // Clamped: a damaged negative value must fail derivation, not trap.
            let kdf = KDFParameters(algorithm: row.text(2), opsLimit: UInt64(clamping: row.int64(3)),
                                    memLimit: UInt64(clamping: row.int64(4)))
            slots.append(Keyslot(id: row.text(0), kind: kind, kdf: kdf, salt: row.blob(5), wrappedKey: row.blob(6)))
        }
        return slots
    }

    /// Replaces the slot of the same kind with `slot`, in one transaction: if anything
    /// fails, the old slot (and so the old passphrase) still opens the vault.
    ///
    /// Keyslots are device configuration, not journal records: no outbox operation.
    public func replaceKeyslot(_ slot: Keyslot) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("DELETE FROM keyslot WHERE kind = ?", [.text(slot.kind.rawValue)])
            try Self.insert(slot, into: database, at: clock.now())
            try advanceKeyslotGeneration()
        }
    }

    /// Replaces every keyslot with `slots` and takes their `generation`, in one transaction,
    /// unless the generation here is no longer `current` (a passphrase changed here since it
    /// was read): the keyslots of this very key that another device published with a
    /// passphrase change or a new recovery key, sealed under the key (the caller checked the
    /// seal). Returns whether it replaced them.
    public func adoptKeyslots(_ slots: [Keyslot], generation: Int, replacing current: Int) throws(StoreError) -> Bool {
        try database.writeTransaction { () throws(StoreError) -> Bool in
            guard try keyslotGeneration() == current else { return false }
            try database.run("DELETE FROM keyslot")
            for slot in slots { try Self.insert(slot, into: database, at: clock.now()) }
            try setKeyslotGeneration(generation)
            return true
        }
    }

    /// How many times this vault's keyslots have been replaced (passphrase changes, rekeys),
    /// as far as this device knows. A remote's descriptor is only overwritten by a higher
    /// generation, so devices never put back each other's older slots.
    public func keyslotGeneration() throws(StoreError) -> Int {
        var generation = 0
        try database.forEachRow("SELECT value FROM vault_meta WHERE key = 'keyslot_generation'") { row in
            generation = Int(row.text(0)) ?? 0
        }
        return generation
    }

    /// Takes the generation of the slots this vault was joined with.
    public func adoptKeyslotGeneration(_ generation: Int) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in try setKeyslotGeneration(generation) }
    }

    /// Inside a write transaction.
    func setKeyslotGeneration(_ generation: Int) throws(StoreError) {
        try database.run("""
            INSERT INTO vault_meta (key, value) VALUES ('keyslot_generation', ?1)
            ON CONFLICT (key) DO UPDATE SET value = ?1
            """, [.text(String(generation))])
    }

    /// Inside the transaction that replaces slots.
    func advanceKeyslotGeneration() throws(StoreError) {
        try database.run("""
            INSERT INTO vault_meta (key, value) VALUES ('keyslot_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
            """)
    }

    static func insert(_ slot: Keyslot, into database: Database, at time: Timestamp) throws(StoreError) {
        try database.run("""
            INSERT INTO keyslot (id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(slot.id), .text(slot.kind.rawValue), .text(slot.kdf.algorithm),
                  .integer(Int64(slot.kdf.opsLimit)), .integer(Int64(slot.kdf.memLimit)),
                  .blob(slot.salt), .blob(slot.wrappedKey), .integer(time.millisecondsSince1970)])
    }
}
