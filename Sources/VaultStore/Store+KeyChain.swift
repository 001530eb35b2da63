public import SyncWire
import Telemetry
public import VaultCrypto

/// The key chain: the vault keys rekeys replaced, each sealed under the current key (see
/// ``RetiredKey``). Operation files and acknowledgements written under an older key stay on
/// the remotes; the chain is how this device, and one joining later, still opens them.
extension Store {
    /// The retired keys, still sealed. Readable while locked: a remote's descriptor carries
    /// them to joining devices as they are.
    public func retiredKeys() throws(StoreError) -> [RetiredKey] {
        var keys: [RetiredKey] = []
        try database.forEachRow("SELECT key_id, sealed_key FROM retired_key ORDER BY retired_at, key_id") { row in
            // A damaged id names no key: the entry could not be used, so it is not offered.
            guard let id = try? KeyID(hex: row.text(0)) else { return }
            keys.append(RetiredKey(id: id, sealed: row.blob(1)))
        }
        return keys
    }

    /// Takes up the entries of another device's chain (from a remote's descriptor) that this
    /// one lacks and that open under the current key: the same chain, learnt after a rekey
    /// both devices followed from different keys. Anything else is ignored. Returns how many.
    @discardableResult
    public func adoptRetiredKeys(_ keys: [RetiredKey]) throws(StoreError) -> Int {
        let sealer = try requireCipher().sealer
        return try database.writeTransaction { () throws(StoreError) -> Int in
            try insertRetiredKeys(keys, openingUnder: sealer)
        }
    }

    /// Inserts the entries of `keys` that open under `sealer` (the current key's) and are not
    /// held yet; returns how many. Inside a write transaction.
    @discardableResult
    func insertRetiredKeys(_ keys: [RetiredKey], openingUnder sealer: FieldSealer) throws(StoreError) -> Int {
        let held = Set(try retiredKeys().map(\.id))
        let adopted = keys.filter { key in
            !held.contains(key.id) && key.id != sealer.keyID && (try? key.open(with: sealer)) != nil
        }
        for key in adopted { try insertRetiredKey(key) }
        return adopted.count
    }

    /// What sync seals and opens with: the current key, and every key of the chain. An
    /// entry that no longer opens (damaged at rest) is left out; files under it then count
    /// as unreadable, never as read.
    public func operationCipher() throws(StoreError) -> OperationCipher {
        let sealer = try requireCipher().sealer
        return OperationCipher(sealer: sealer, retired: try retiredKeys().compactMap { try? $0.sealer(openedWith: sealer) })
    }

    /// Inside a rekey's last transaction: the chain sealed again under the new key, and the
    /// old key added to it. An entry that does not open under the old key (damaged) cannot
    /// open anything again and is dropped, and logged.
    func carryKeyChain(from old: FieldSealer, retiring oldKey: VaultKey, to new: FieldSealer) throws(StoreError) {
        let held = try retiredKeys()
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
        for entry in chain { try insertRetiredKey(entry) }
        if dropped > 0 { log.warning("rekey.keyChain.damaged", ["count": .integer(dropped)]) }
    }

    private func insertRetiredKey(_ key: RetiredKey) throws(StoreError) {
        try database.run("""
            INSERT INTO retired_key (key_id, sealed_key, retired_at) VALUES (?, ?, ?)
            ON CONFLICT (key_id) DO NOTHING
            """, [.text(key.id.description), .blob(key.sealed), .integer(clock.now().millisecondsSince1970)])
    }
}
