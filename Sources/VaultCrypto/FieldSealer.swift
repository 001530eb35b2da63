internal import CSodium

/// Seals and opens the encrypted fields of one vault (titles, authors, bodies, locators,
/// outbox payloads) with XChaCha20-Poly1305 and a fresh random nonce per write.
///
/// Envelope, format version 1:
///
///     version (1 byte = 0x01) | key id (8) | nonce (24) | ciphertext + tag (16)
///
/// The plaintext is padded (ISO/IEC 7816-4) to a multiple of ``paddingBlock`` bytes so the
/// ciphertext length reveals only a coarse size. The associated data is the header
/// (version and key id) followed by the ``Binding``.
public final class FieldSealer {
    public static let formatVersion: UInt8 = 1
    static let paddingBlock = 32
    static let nonceCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    static let headerCount = 1 + KeyID.byteCount
    static let purpose = "bmvault.field"

    private let key: VaultKey
    public let vaultID: String
    public var keyID: KeyID { key.id }

    public init(key: VaultKey, vaultID: String) {
        self.key = key
        self.vaultID = vaultID
    }

    /// Seals `plaintext` for one field of one record.
    public func seal(_ plaintext: some Collection<UInt8>, table: String, recordID: String, field: String) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, binding: Binding(vaultID: vaultID, table: table, recordID: recordID, field: field))
    }

    public func seal(_ plaintext: some Collection<UInt8>, binding: Binding) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialized()
        let header = [Self.formatVersion] + key.id.bytes
        let additional = try binding.encoded(purpose: Self.purpose, header: header)

        var padded = Array(plaintext)
        defer { wipe(&padded) }
        let unpaddedCount = padded.count
        padded.append(contentsOf: repeatElement(0, count: Self.paddingBlock))
        var paddedCount = 0
        guard sodium_pad(&paddedCount, &padded, unpaddedCount, Self.paddingBlock, padded.count) == 0 else {
            throw .malformed
        }

        var out = [UInt8](repeating: 0, count: Self.headerCount + Self.nonceCount + paddedCount + Self.tagCount)
        out.replaceSubrange(0..<Self.headerCount, with: header)
        let status = out.withUnsafeMutableBytes { buffer in
            let nonce = UnsafeMutableRawBufferPointer(rebasing: buffer[Self.headerCount..<(Self.headerCount + Self.nonceCount)])
            Sodium.fillRandom(nonce)
            let cipher = buffer.baseAddress!.advanced(by: Self.headerCount + Self.nonceCount).assumingMemoryBound(to: UInt8.self)
            return key.bytes.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    cipher, nil, padded, UInt64(paddedCount),
                    additional, UInt64(additional.count), nil,
                    nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw .malformed }
        return out
    }

    /// Opens a sealed field, checking its format version, key and binding.
    public func open(_ sealed: some Collection<UInt8>, table: String, recordID: String, field: String) throws(CryptoError) -> [UInt8] {
        try open(sealed, binding: Binding(vaultID: vaultID, table: table, recordID: recordID, field: field))
    }

    public func open(_ sealed: some Collection<UInt8>, binding: Binding) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialized()
        let sealed = Array(sealed)
        guard let version = sealed.first else { throw .malformed }
        guard version == Self.formatVersion else { throw .unsupportedFormat(version: version) }
        guard sealed.count >= Self.headerCount + Self.nonceCount + Self.tagCount else { throw .malformed }
        guard sealed[1..<Self.headerCount].elementsEqual(key.id.bytes) else { throw .keyMismatch }

        let additional = try binding.encoded(purpose: Self.purpose, header: sealed[0..<Self.headerCount])
        let cipherStart = Self.headerCount + Self.nonceCount
        let cipherCount = sealed.count - cipherStart
        var plain = [UInt8](repeating: 0, count: cipherCount - Self.tagCount)
        var plainCount: UInt64 = 0
        let status = sealed.withUnsafeBufferPointer { buffer in
            key.bytes.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    &plain, &plainCount, nil,
                    buffer.baseAddress! + cipherStart, UInt64(cipherCount),
                    additional, UInt64(additional.count),
                    buffer.baseAddress! + Self.headerCount,
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw .authenticationFailed }
        var unpaddedCount = 0
        guard sodium_unpad(&unpaddedCount, plain, Int(plainCount), Self.paddingBlock) == 0 else {
            wipe(&plain)
            throw .malformed
        }
        plain.removeSubrange(unpaddedCount...)
        return plain
    }
}
