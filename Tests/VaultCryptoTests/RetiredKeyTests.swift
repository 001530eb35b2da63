import Testing
@testable import VaultCrypto

/// The key chain's entries: a retired key opens only with the key that retired it, in its
/// own vault, under its own id.
@Suite struct RetiredKeyTests {
    let vaultID = "vault-1"

    @Test func opensWithTheKeyThatRetiredIt() throws {
        let old = try VaultKey.generate()
        let current = FieldSealer(key: try VaultKey.generate(), vaultID: vaultID)
        let retired = try RetiredKey.sealing(old, under: current)
        #expect(retired.id == old.id)
        #expect(try retired.open(with: current).id == old.id)
        // The reopened key seals what the old one opens.
        let sealed = try FieldSealer(key: old, vaultID: vaultID).seal(Array("text".utf8), table: "t", recordID: "r", field: "f")
        #expect(try retired.sealer(openedWith: current).open(sealed, table: "t", recordID: "r", field: "f") == Array("text".utf8))
    }

    @Test func refusesAnotherKeyAnotherVaultOrAnotherID() throws {
        let old = try VaultKey.generate()
        let currentKey = try VaultKey.generate()
        let retired = try RetiredKey.sealing(old, under: FieldSealer(key: currentKey, vaultID: vaultID))
        #expect(throws: CryptoError.keyMismatch) { try retired.open(with: FieldSealer(key: old, vaultID: vaultID)) }
        #expect(throws: CryptoError.authenticationFailed) { try retired.open(with: FieldSealer(key: currentKey, vaultID: "vault-2")) }
        let renamed = RetiredKey(id: try VaultKey.generate().id, sealed: retired.sealed)
        #expect(throws: CryptoError.authenticationFailed) { try renamed.open(with: FieldSealer(key: currentKey, vaultID: vaultID)) }
    }

    @Test func theEnvelopeNamesItsKey() throws {
        let key = try VaultKey.generate()
        let sealed = try FieldSealer(key: key, vaultID: vaultID).seal([1, 2, 3], table: "t", recordID: "r", field: "f")
        #expect(FieldSealer.keyID(of: sealed) == key.id)
        #expect(FieldSealer.keyID(of: [2] + sealed.dropFirst()) == nil, "another envelope version names no key")
        #expect(FieldSealer.keyID(of: Array(sealed.prefix(5))) == nil)
    }
}
