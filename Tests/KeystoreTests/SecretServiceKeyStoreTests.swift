import Dispatch
import Synchronization
import Testing
@testable import Keystore
import VaultCrypto

/// Behaviour only the real Secret Service has: foreign items under our schema.
@Suite struct SecretServiceKeyStoreTests {
    static let malformedSecrets: [(String, [UInt8])] = {
        let expiry: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
        let key = [UInt8](repeating: 0x42, count: 32)
        return [
            ("empty", []),
            ("text password", Array("hunter2".utf8)),
            ("wrong magic", Array("BMVX".utf8) + [1] + expiry + key),
            ("newer version", Array("BMVK".utf8) + [2] + expiry + key),
            ("one byte short", Array("BMVK".utf8) + [1] + expiry + key.dropLast()),
            ("one byte long", Array("BMVK".utf8) + [1] + expiry + key + [0]),
        ]
    }()

    @Test(arguments: malformedSecrets)
    func foreignLayoutIsMalformed(name: String, secret: [UInt8]) throws {
        let store = SecretServiceKeyStore()
        let vaultID = try freshVaultID()
        try plant(secret, in: store, vaultID: vaultID, persistence: .session)
        defer { try? store.remove(vaultID: vaultID) }

        #expect(throws: KeystoreError.malformedItem) { try store.lookup(vaultID: vaultID) }
    }

    @Test func wellFormedRawSecretIsFound() throws {
        // The control for the malformed cases: the same raw path with the right layout works.
        let store = SecretServiceKeyStore()
        let vaultID = try freshVaultID()
        let key = [UInt8](repeating: 0x42, count: 32)
        let secret = Array("BMVK".utf8) + [1] + [0, 0, 0, 0, 0, 0, 0x01, 0x02] + key
        try plant(secret, in: store, vaultID: vaultID, persistence: .remembered)
        defer { try? store.remove(vaultID: vaultID) }

        let stored = try #require(foundKey(try store.lookup(vaultID: vaultID)))
        #expect(rawBytes(stored.key) == key)
        #expect(stored.expiresAtMilliseconds == 0x0102)
        #expect(stored.persistence == .remembered)
    }

    @Test func storeReplacesAMalformedItem() throws {
        let store = SecretServiceKeyStore()
        let vaultID = try freshVaultID()
        let junk = Array("not a key".utf8)
        try plant(junk, in: store, vaultID: vaultID, persistence: .remembered)
        defer { try? store.remove(vaultID: vaultID) }
        #expect(throws: KeystoreError.malformedItem) { try store.lookup(vaultID: vaultID) }

        let key = try VaultKey.generate()
        try store.store(key, vaultID: vaultID, expiresAtMilliseconds: 7, persistence: .session)
        #expect(foundKey(try store.lookup(vaultID: vaultID))?.key.id == key.id)
        #expect(try store.itemCount(vaultID: vaultID) == 1)
    }

    @Test func removeDeletesEveryItem() throws {
        let store = SecretServiceKeyStore()
        let vaultID = try freshVaultID()
        try store.store(try VaultKey.generate(), vaultID: vaultID, expiresAtMilliseconds: 1, persistence: .session)
        #expect(try store.itemCount(vaultID: vaultID) == 1)
        try store.remove(vaultID: vaultID)
        #expect(try store.itemCount(vaultID: vaultID) == 0)
    }

    /// Four threads at a time store, read and remove through libsecret's one shared
    /// connection, as parallel tests do: each operation gets its answer, and a key stored
    /// before is still there afterwards (the daemon and the connection survived).
    @Test func concurrentOperationsEachGetTheirAnswer() throws {
        let store = SecretServiceKeyStore()
        let vaultID = try freshVaultID()
        let key = try VaultKey.generate()
        try store.store(key, vaultID: vaultID, expiresAtMilliseconds: 0, persistence: .session)
        defer { try? store.remove(vaultID: vaultID) }

        let unexpected = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let workerKey = try VaultKey.generate()
                for round in 0..<50 {
                    let id = "\(vaultID)-\(worker)-\(round)"
                    try store.store(workerKey, vaultID: id, expiresAtMilliseconds: 1,
                                    persistence: (worker + round).isMultiple(of: 2) ? .session : .remembered)
                    if foundKey(try store.lookup(vaultID: id))?.key.id != workerKey.id { unexpected.withLock { $0.append("not found") } }
                    try store.remove(vaultID: id)
                    if !isNotFound(try store.lookup(vaultID: id)) { unexpected.withLock { $0.append("not removed") } }
                }
            } catch {
                unexpected.withLock { $0.append("\(error)") }
            }
        }
        let outcomes = unexpected.withLock { $0 }
        #expect(outcomes.isEmpty, "\(outcomes)")
        #expect(foundKey(try store.lookup(vaultID: vaultID))?.key.id == key.id)
    }

    /// The key travels on the bus encrypted: libsecret agreed the spec's Diffie-Hellman
    /// session with gnome-keyring, not `plain`.
    @Test func theTransferSessionIsEncrypted() throws {
        let connection = try SecretServiceConnection(deadline: Deadline(timeoutMilliseconds: 5000))
        #expect(connection.transferAlgorithm == "dh-ietf1024-sha256-aes128-cbc-pkcs7")
    }

    @Test func labelNamesTheVaultByItsFirstEightCharacters() {
        #expect(SecretServiceKeyStore.label(vaultID: "0123456789abcdef") == "bmvault vault key (01234567)")
        #expect(SecretServiceKeyStore.label(vaultID: "abc") == "bmvault vault key (abc)")
    }

    @Test func timeoutIsClampedToASaneRange() {
        #expect(SecretServiceKeyStore(timeoutMilliseconds: 0).timeoutMilliseconds == 1)
        #expect(SecretServiceKeyStore(timeoutMilliseconds: -5).timeoutMilliseconds == 1)
        #expect(SecretServiceKeyStore(timeoutMilliseconds: .max).timeoutMilliseconds == Int(Int32.max))
        #expect(SecretServiceKeyStore().timeoutMilliseconds == 5000)
    }
}
