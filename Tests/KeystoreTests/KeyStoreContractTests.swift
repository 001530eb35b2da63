import Testing
@testable import Keystore
import VaultCrypto

/// The contract of KeyStore, against the real private Secret Service and the memory fake.
@Suite struct KeyStoreContractTests {
    @Test(arguments: Backend.allCases, [KeyPersistence.session, .remembered])
    func roundTripKeepsKeyExpiryAndPersistence(backend: Backend, persistence: KeyPersistence) throws {
        let store = backend.make()
        let vaultID = try freshVaultID()
        let key = try VaultKey.generate()
        let expiry: Int64 = 1_767_225_600_123
        try store.store(key, vaultID: vaultID, expiresAtMilliseconds: expiry, persistence: persistence)
        defer { try? store.remove(vaultID: vaultID) }

        let stored = try #require(foundKey(try store.lookup(vaultID: vaultID)))
        #expect(stored.key.id == key.id)
        #expect(rawBytes(stored.key) == rawBytes(key))
        #expect(stored.expiresAtMilliseconds == expiry)
        #expect(stored.persistence == persistence)
    }

    @Test(arguments: Backend.allCases, [Int64.min, -1, 0, Int64.max])
    func extremeExpiriesRoundTrip(backend: Backend, expiry: Int64) throws {
        let store = backend.make()
        let vaultID = try freshVaultID()
        let key = try VaultKey.generate()
        try store.store(key, vaultID: vaultID, expiresAtMilliseconds: expiry, persistence: .session)
        defer { try? store.remove(vaultID: vaultID) }

        let stored = try #require(foundKey(try store.lookup(vaultID: vaultID)))
        #expect(stored.expiresAtMilliseconds == expiry)
        #expect(stored.key.id == key.id)
    }

    @Test(arguments: Backend.allCases)
    func storingTwiceReplacesAcrossCollections(backend: Backend) throws {
        let store = backend.make()
        let vaultID = try freshVaultID()
        let first = try VaultKey.generate()
        let second = try VaultKey.generate()
        try store.store(first, vaultID: vaultID, expiresAtMilliseconds: 1_000, persistence: .remembered)
        defer { try? store.remove(vaultID: vaultID) }
        try store.store(second, vaultID: vaultID, expiresAtMilliseconds: 2_000, persistence: .session)

        let stored = try #require(foundKey(try store.lookup(vaultID: vaultID)))
        #expect(stored.key.id == second.id)
        #expect(stored.expiresAtMilliseconds == 2_000)
        #expect(stored.persistence == .session)
        if let real = store as? SecretServiceKeyStore {
            // The first item, in the other collection, is gone: exactly one remains.
            #expect(try real.itemCount(vaultID: vaultID) == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func removeThenLookupIsNotFound(backend: Backend) throws {
        let store = backend.make()
        let vaultID = try freshVaultID()
        try store.store(try VaultKey.generate(), vaultID: vaultID, expiresAtMilliseconds: 5, persistence: .remembered)
        #expect(foundKey(try store.lookup(vaultID: vaultID)) != nil)

        try store.remove(vaultID: vaultID)
        #expect(isNotFound(try store.lookup(vaultID: vaultID)))
    }

    @Test(arguments: Backend.allCases)
    func removeWhenAbsentSucceeds(backend: Backend) throws {
        let store = backend.make()
        let vaultID = try freshVaultID()
        #expect(throws: Never.self) { try store.remove(vaultID: vaultID) }
        #expect(isNotFound(try store.lookup(vaultID: vaultID)))
        // And twice in a row, after a real item was removed.
        try store.store(try VaultKey.generate(), vaultID: vaultID, expiresAtMilliseconds: 5, persistence: .session)
        try store.remove(vaultID: vaultID)
        #expect(throws: Never.self) { try store.remove(vaultID: vaultID) }
    }

    @Test(arguments: Backend.allCases)
    func vaultIDsAreIndependent(backend: Backend) throws {
        let store = backend.make()
        let idA = try freshVaultID()
        let idB = try freshVaultID()
        let keyA = try VaultKey.generate()
        let keyB = try VaultKey.generate()
        try store.store(keyA, vaultID: idA, expiresAtMilliseconds: 10, persistence: .session)
        defer { try? store.remove(vaultID: idA) }
        try store.store(keyB, vaultID: idB, expiresAtMilliseconds: 20, persistence: .remembered)
        defer { try? store.remove(vaultID: idB) }

        let foundA = try #require(foundKey(try store.lookup(vaultID: idA)))
        let foundB = try #require(foundKey(try store.lookup(vaultID: idB)))
        #expect(foundA.key.id == keyA.id)
        #expect(foundA.expiresAtMilliseconds == 10)
        #expect(foundB.key.id == keyB.id)
        #expect(foundB.expiresAtMilliseconds == 20)

        try store.remove(vaultID: idA)
        #expect(isNotFound(try store.lookup(vaultID: idA)))
        #expect(foundKey(try store.lookup(vaultID: idB))?.key.id == keyB.id)
    }

    @Test(arguments: Backend.allCases)
    func vaultIDsSharingALabelPrefixStayApart(backend: Backend) throws {
        // The label uses only the first 8 characters; lookups must use the full id.
        let store = backend.make()
        let base = try freshVaultID()
        let idA = base + "-a"
        let idB = base + "-b"
        let keyA = try VaultKey.generate()
        try store.store(keyA, vaultID: idA, expiresAtMilliseconds: 1, persistence: .session)
        defer { try? store.remove(vaultID: idA) }

        #expect(isNotFound(try store.lookup(vaultID: idB)))
        try store.remove(vaultID: idB)
        #expect(foundKey(try store.lookup(vaultID: idA))?.key.id == keyA.id)
    }

    @Test(arguments: Backend.allCases)
    func lookupHandsOutAnIndependentCopy(backend: Backend) throws {
        let store = backend.make()
        let vaultID = try freshVaultID()
        let key = try VaultKey.generate()
        try store.store(key, vaultID: vaultID, expiresAtMilliseconds: 1, persistence: .session)
        defer { try? store.remove(vaultID: vaultID) }

        let first = try #require(foundKey(try store.lookup(vaultID: vaultID)))
        let second = try #require(foundKey(try store.lookup(vaultID: vaultID)))
        #expect(first.key !== second.key)
        #expect(first.key.id == second.key.id)
    }
}
