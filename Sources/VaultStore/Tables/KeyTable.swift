public import SyncWire
import Telemetry
public import VaultCrypto
import Journal

/// The keys' tables: `keyslot` (what unwraps the vault key: the passphrase's and the
/// recovery key's slots, with their generation in `vault_meta`) and `retired_key` (the key
/// chain: the vault keys rekeys replaced, each sealed under the current key, see
/// ``RetiredKey``). Keyslots are readable while locked: they are what unlocks the vault.
/// Neither is a journal record: no change here writes an outbox operation.
public struct KeyTable {
    let tables: Tables
    private var store: Store { tables.store }
    private var database: Database { tables.database }

    // MARK: - Keyslots

    /// The vault's keyslots.
    public func slots() throws(StoreError) -> [Keyslot] {
        try slots(in: "keyslot")
    }

    /// The slots in `table` (`keyslot`, or `rekey_keyslot` for a rekey's new key).
    func slots(in table: String) throws(StoreError) -> [Keyslot] {
        var slots: [Keyslot] = []
        try database.forEachRow("""
            SELECT id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key FROM \(table) ORDER BY kind
            """) { row in
            guard let kind = Keyslot.Kind(rawValue: row.text("kind")) else { return }
            // Clamped: a damaged negative value must fail derivation, not trap.
            let kdf = KDFParameters(algorithm: row.text("kdf"), opsLimit: UInt64(clamping: row.int64("ops_limit")),
                                    memLimit: UInt64(clamping: row.int64("mem_limit")))
            slots.append(Keyslot(id: row.text("id"), kind: kind, kdf: kdf, salt: row.blob("salt"), wrappedKey: row.blob("wrapped_key")))
        }
        return slots
    }

    /// Replaces the slot of the same kind with `slot`: if anything fails, the transaction
    /// rolls back and the old slot (and so the old passphrase) still opens the vault.
    public func replace(_ slot: Keyslot) throws(StoreError) {
        tables.requireWrite()
        try database.run("DELETE FROM keyslot WHERE kind = ?", [.text(slot.kind.rawValue)])
        try Self.insert(slot, into: database, at: store.clock.now())
        try advanceGeneration()
    }

    /// Replaces every keyslot with `slots` and takes their `generation`, unless the
    /// generation here is no longer `current` (a passphrase changed here since it was
    /// read): the keyslots of this very key that another device published with a passphrase
    /// change or a new recovery key, sealed under the key (the caller checked the seal).
    /// Returns whether it replaced them.
    public func adopt(_ slots: [Keyslot], generation: Int, replacing current: Int) throws(StoreError) -> Bool {
        tables.requireWrite()
        guard try self.generation() == current else { return false }
        try database.run("DELETE FROM keyslot")
        for slot in slots { try Self.insert(slot, into: database, at: store.clock.now()) }
        try setGeneration(generation)
        return true
    }

    /// How many times this vault's keyslots have been replaced (passphrase changes, rekeys),
    /// as far as this device knows. A remote's descriptor is only overwritten by a higher
    /// generation, so devices never put back each other's older slots.
    public func generation() throws(StoreError) -> Int {
        var generation = 0
        try database.forEachRow("SELECT value FROM vault_meta WHERE key = 'keyslot_generation'") { row in
            generation = Int(row.text("value")) ?? 0
        }
        return generation
    }

    /// Takes `generation` (the slots' a vault was joined with, or a followed rekey's).
    public func setGeneration(_ generation: Int) throws(StoreError) {
        tables.requireWrite()
        try database.run("""
            INSERT INTO vault_meta (key, value) VALUES ('keyslot_generation', ?1)
            ON CONFLICT (key) DO UPDATE SET value = ?1
            """, [.text(String(generation))])
    }

    /// One more replacement of the slots.
    func advanceGeneration() throws(StoreError) {
        tables.requireWrite()
        try database.run("""
            INSERT INTO vault_meta (key, value) VALUES ('keyslot_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
            """)
    }

    /// Inserts `slot` into `database` (a vault being built has no Store yet).
    static func insert(_ slot: Keyslot, into database: Database, at time: Timestamp) throws(StoreError) {
        try database.run("""
            INSERT INTO keyslot (id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key, created_at)
            VALUES (:id, :kind, :kdf, :opsLimit, :memLimit, :salt, :wrappedKey, :createdAt)
            """, named: [":id": .text(slot.id), ":kind": .text(slot.kind.rawValue), ":kdf": .text(slot.kdf.algorithm),
                         ":opsLimit": .integer(Int64(slot.kdf.opsLimit)), ":memLimit": .integer(Int64(slot.kdf.memLimit)),
                         ":salt": .blob(slot.salt), ":wrappedKey": .blob(slot.wrappedKey), ":createdAt": .integer(time.millisecondsSince1970)])
    }

    // MARK: - The key chain

    /// The retired keys, still sealed. Readable while locked: a remote's descriptor carries
    /// them to joining devices as they are.
    public func retired() throws(StoreError) -> [RetiredKey] {
        var keys: [RetiredKey] = []
        try database.forEachRow("SELECT key_id, sealed_key FROM retired_key ORDER BY retired_at, key_id") { row in
            // A damaged id names no key: the entry could not be used, so it is not offered.
            guard let id = try? KeyID(hex: row.text("key_id")) else { return }
            keys.append(RetiredKey(id: id, sealed: row.blob("sealed_key")))
        }
        return keys
    }

    /// Takes up the entries of `keys` (another device's chain, from a remote's descriptor)
    /// that this one lacks and that open under `sealer` (the current key's): the same chain,
    /// learnt after a rekey both devices followed from different keys. Anything else is
    /// ignored. Returns how many.
    @discardableResult
    public func adoptRetired(_ keys: [RetiredKey], openingUnder sealer: FieldSealer) throws(StoreError) -> Int {
        tables.requireWrite()
        let held = Set(try retired().map(\.id))
        let adopted = keys.filter { key in
            !held.contains(key.id) && key.id != sealer.keyID && (try? key.open(with: sealer)) != nil
        }
        for key in adopted { try insertRetired(key) }
        return adopted.count
    }

    /// What sync seals and opens with: the current key, and every key of the chain. An
    /// entry that no longer opens (damaged at rest) is left out; files under it then count
    /// as unreadable, never as read.
    public func operationCipher() throws(StoreError) -> OperationCipher {
        let sealer = try store.requireCipher().sealer
        return OperationCipher(sealer: sealer, retired: try retired().compactMap { try? $0.sealer(openedWith: sealer) })
    }

    /// In a rekey's last transaction: the chain sealed again under the new key, and the old
    /// key added to it. An entry that does not open under the old key (damaged) cannot open
    /// anything again and is dropped, and logged.
    func carryChain(from old: FieldSealer, retiring oldKey: VaultKey, to new: FieldSealer) throws(StoreError) {
        tables.requireWrite()
        let held = try retired()
        var chain: [RetiredKey] = []
        var dropped = 0
        do throws(CryptoError) {
            for entry in held where entry.id != new.keyID {
                guard let key = try? entry.open(with: old) else { dropped += 1; continue }
                chain.append(try RetiredKey.sealing(key, under: new))
            }
            chain.append(try RetiredKey.sealing(oldKey, under: new))
        } catch {
            throw .crypto(error)
        }
        try database.run("DELETE FROM retired_key")
        for entry in chain { try insertRetired(entry) }
        if dropped > 0 { log.warning("rekey.keyChain.damaged", ["count": .integer(dropped)]) }
    }

    private func insertRetired(_ key: RetiredKey) throws(StoreError) {
        try database.run("""
            INSERT INTO retired_key (key_id, sealed_key, retired_at) VALUES (?, ?, ?)
            ON CONFLICT (key_id) DO NOTHING
            """, [.text(key.id.description), .blob(key.sealed), .integer(store.clock.now().millisecondsSince1970)])
    }
}
