internal import CSodium

/// Short tags for private values in logs, keyed per vault: the same title gets the same tag
/// in two log lines of one vault, so events can be correlated, yet the tag cannot be
/// reversed or compared across vaults, as a plain hash of the text could be.
///
/// The tag key is derived from the vault key (BLAKE2b, with its own label) and never leaves
/// sodium memory. Immutable after init, hence `@unchecked Sendable`: libsodium's hashing
/// only reads it.
public final class LogTagger: @unchecked Sendable {
    private let key: SecretBytes

    public init(vaultKey: VaultKey) throws(CryptoError) {
        let key = try SecretBytes(count: Int(crypto_generichash_KEYBYTES))
        let label = Array("bmvault log tag key v1".utf8)
        key.withUnsafeMutableBytes { out in
            vaultKey.withUnsafeBytes { vault in
                _ = crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, label, UInt64(label.count),
                                       vault.baseAddress!.assumingMemoryBound(to: UInt8.self), vault.count)
            }
        }
        self.key = key
    }

    /// Eight hex characters: a 32-bit keyed BLAKE2b of `text`.
    public func tag(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MIN))
        let bytes = Array(text.utf8)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(&digest, digest.count, bytes, UInt64(bytes.count),
                                   keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        return encodeHex(digest.prefix(4))
    }
}
