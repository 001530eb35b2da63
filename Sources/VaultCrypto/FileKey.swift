internal import CSodium

/// The random key of one stored book file: each file has its own, so a file can be shared
/// (a remote that carries files) or forgotten without touching any other, and the vault key
/// seals only 32 bytes per file (the sealed key lives in the file's database row).
public final class FileKey {
    public static let byteCount = Int(crypto_secretstream_xchacha20poly1305_KEYBYTES)

    let bytes: SecretBytes

    /// A fresh key from the operating system's CSPRNG.
    public static func generate() throws(CryptoError) -> FileKey {
        try FileKey(bytes: SecretBytes.random(count: byteCount))
    }

    /// Adopts `bytes` (exactly ``byteCount`` of them) as a file key.
    public init(bytes: SecretBytes) throws(CryptoError) {
        guard bytes.count == Self.byteCount else { throw .invalidLength(expected: Self.byteCount, actual: bytes.count) }
        self.bytes = bytes
    }

    /// Adopts the key a sealed field held, wiping the ordinary buffer it was opened into.
    public convenience init(opened plain: inout [UInt8]) throws(CryptoError) {
        defer { wipe(&plain) }
        let secret = try SecretBytes(count: plain.count)
        secret.withUnsafeMutableBytes { target in plain.withUnsafeBytes { target.copyMemory(from: $0) } }
        try self.init(bytes: secret)
    }

    /// Lends the raw key bytes, for sealing them under the vault key. Do not copy them out.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try bytes.withUnsafeBytes(body)
    }
}
