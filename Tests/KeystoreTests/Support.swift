@testable import Keystore
import VaultCrypto

/// A random vault id per test: tests run in parallel against one shared Secret Service.
func freshVaultID() throws -> String {
    encodeHex(try randomBytes(count: 16))
}

/// The key bytes, for comparing in tests only.
func rawBytes(_ key: VaultKey) -> [UInt8] {
    key.withUnsafeBytes { Array($0) }
}

/// The stored key, or nil for any other outcome.
func foundKey(_ lookup: KeyLookup) -> StoredVaultKey? {
    if case .found(let stored) = lookup { return stored }
    return nil
}

func isNotFound(_ lookup: KeyLookup) -> Bool {
    if case .notFound = lookup { return true }
    return false
}

/// The two implementations that must honour the same contract.
enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case secretService
    case memory

    func make() -> any KeyStore {
        switch self {
        case .secretService: SecretServiceKeyStore()
        case .memory: MemoryKeyStore()
        }
    }

    var testDescription: String { rawValue }
}

import Testing

/// Decodes `bytes` as a stored secret; returns the error, or nil when it decoded.
func layoutError(_ bytes: [UInt8]) -> KeystoreError? {
    bytes.withUnsafeBytes { raw -> KeystoreError? in
        do throws(KeystoreError) {
            _ = try StoredKeyLayout.decode(raw)
            return nil
        } catch {
            return error
        }
    }
}

/// Stores raw secret bytes under our schema, as a foreign program could.
/// why not `try array.withUnsafeBytes { (raw) throws(KeystoreError) in ... }`: Swift 6.3.1
/// crashes in IRGen on a typed-throws closure passed to a `rethrows` function.
func plant(_ secret: [UInt8], in store: SecretServiceKeyStore, vaultID: String, persistence: KeyPersistence) throws(KeystoreError) {
    let failure: KeystoreError? = secret.withUnsafeBytes { raw in
        do throws(KeystoreError) {
            try store.storeSecret(raw, vaultID: vaultID, persistence: persistence)
            return nil
        } catch {
            return error
        }
    }
    if let failure { throw failure }
}
