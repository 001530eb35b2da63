internal import CSodium

/// The random 256-bit key that seals every field of one vault.
///
/// It lives only in sodium memory, is written to disk only wrapped by a keyslot, and
/// is handed to the Secret Service while the vault is unlocked.
public final class VaultKey {
    /// Key length for XChaCha20-Poly1305 (IETF).
    public static let byteCount = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)

    let bytes: SecretBytes
    /// A short public fingerprint of the key, stored with every sealed field and in the
    /// vault metadata, so a stale or foreign key is recognised before it is used.
    public let id: KeyID

    /// A fresh key from the operating system's CSPRNG.
    public static func generate() throws(CryptoError) -> VaultKey {
        try VaultKey(bytes: SecretBytes.random(count: byteCount))
    }

    /// Adopts `bytes` (exactly ``byteCount`` of them) as a key.
    public init(bytes: SecretBytes) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidLength(expected: Self.byteCount, actual: bytes.count)
        }
        self.bytes = bytes
        self.id = KeyID(deriving: bytes)
    }

    /// Lends the raw key bytes, for handing to the keystore. Do not copy them out.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try bytes.withUnsafeBytes(body)
    }
}

/// The public 8-byte fingerprint of a ``VaultKey``: the first bytes of a BLAKE2b MAC of a
/// fixed label under the key. It reveals nothing about the key.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 8
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidLength(expected: Self.byteCount, actual: bytes.count)
        }
        self.bytes = bytes
    }

    /// Parses the 16-character lowercase hex form written by ``description``.
    public init(hex: String) throws(CryptoError) {
        try self.init(bytes: decodeHex(hex))
    }

    init(deriving key: SecretBytes) {
        let label = Array("bmvault key id v1".utf8)
        var digest = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MIN))
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(&digest, digest.count, label, UInt64(label.count),
                                   keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        self.bytes = Array(digest.prefix(Self.byteCount))
    }

    public var description: String { encodeHex(bytes) }
}
