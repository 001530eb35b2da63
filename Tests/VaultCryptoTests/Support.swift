import Testing
@testable import VaultCrypto

/// Secret bytes holding the UTF-8 of `text`.
func secret(_ text: String) throws(CryptoError) -> SecretBytes {
    try secret(bytes: Array(text.utf8))
}

/// Secret bytes holding `bytes`.
func secret(bytes: [UInt8]) throws(CryptoError) -> SecretBytes {
    let secret = try SecretBytes(count: bytes.count)
    secret.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
    return secret
}

/// The visible contents of a secret, for comparing in tests only.
func contents(_ secret: SecretBytes) -> [UInt8] {
    secret.withUnsafeBytes { Array($0) }
}

/// The visible contents of a secret as text, for comparing in tests only.
func string(_ secret: SecretBytes) -> String {
    String(decoding: contents(secret), as: UTF8.self)
}

/// The raw key bytes, for comparing in tests only.
func rawBytes(_ key: VaultKey) -> [UInt8] {
    key.withUnsafeBytes { Array($0) }
}

/// A vault key with the given 32 bytes.
func vaultKey(_ bytes: [UInt8]) throws(CryptoError) -> VaultKey {
    try VaultKey(bytes: secret(bytes: bytes))
}

/// `bytes` with the byte at `index` XORed with `mask`.
func flipping(_ bytes: [UInt8], at index: Int, mask: UInt8 = 0x01) -> [UInt8] {
    var copy = bytes
    copy[index] ^= mask
    return copy
}

/// The error a throwing call produced, or nil when it returned.
func caught<T>(_ body: () throws(CryptoError) -> T) -> CryptoError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Cheap Argon2id for tests (the moderate default takes about half a second per slot).
let fastKDF = KDFParameters(strength: .interactive)
