internal import CSodium

/// Streaming SHA-256, for public integrity checks: migration checksums and archive
/// manifests. Not a MAC; never use it on secrets to make an identifier.
public struct SHA256: Sendable {
    private var state = crypto_hash_sha256_state()

    public init() {
        _ = crypto_hash_sha256_init(&state)
    }

    public mutating func update(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        _ = crypto_hash_sha256_update(&state, bytes, UInt64(bytes.count))
    }

    /// Hashes `buffer` where it lies: a book file goes through in chunks, never copied.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count))
    }

    /// The digest as 64 lowercase hex characters.
    public mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256_final(&state, &digest)
        return encodeHex(digest)
    }

    /// The digest of `bytes`, as 64 lowercase hex characters.
    public static func hex(of bytes: some Collection<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}
