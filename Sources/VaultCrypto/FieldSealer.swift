internal import CSodium

/// Seals and opens the encrypted fields of one vault (titles, authors, bodies, locators,
/// outbox payloads) with XChaCha20-Poly1305 and a fresh random nonce per write (from a
/// ``RandomPool``: libsodium's CSPRNG, a block at a time).
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
    /// The envelope's bytes before the ciphertext: version, key id and the nonce, new at
    /// every sealing (what tells one sealing of a field from another without opening it).
    public static let clearPrefixCount = headerCount + nonceCount
    static let purpose = "bmvault.field"

    private let key: VaultKey
    public let vaultID: String
    public var keyID: KeyID { key.id }
    /// Where nonces come from: sealing is for one thread at a time (opening is not: a
    /// ``FieldOpener`` on another thread only reads the key).
    private let nonces = RandomPool()

    /// The envelope's header, format version and key id: the start of every value sealed,
    /// and of its associated data.
    private let header: [UInt8]

    public init(key: VaultKey, vaultID: String) {
        self.key = key
        self.vaultID = vaultID
        header = [Self.formatVersion] + key.id.bytes
    }

    /// Seals `plaintext` for one field of one record.
    public func seal(_ plaintext: some Collection<UInt8>, table: String, recordID: String, field: String) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, binding: Binding(vaultID: vaultID, table: table, recordID: recordID, field: field))
    }

    public func seal(_ plaintext: some Collection<UInt8>, binding: Binding) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialized()
        let additional = try binding.encoded(purpose: Self.purpose, header: header)
        // Padded and sealed in place, in the envelope's own buffer: the plaintext is never
        // copied elsewhere, and once sealed nothing of it is left to wipe.
        let unpaddedCount = plaintext.count
        let paddedCount = (unpaddedCount / Self.paddingBlock + 1) * Self.paddingBlock
        let cipherStart = Self.headerCount + Self.nonceCount
        var out = [UInt8](repeating: 0, count: cipherStart + paddedCount + Self.tagCount)
        out.replaceSubrange(0..<Self.headerCount, with: header)
        out.replaceSubrange(cipherStart..<(cipherStart + unpaddedCount), with: plaintext)
        let status = out.withUnsafeMutableBytes { buffer in
            let nonce = UnsafeMutableRawBufferPointer(rebasing: buffer[Self.headerCount..<cipherStart])
            nonces.fill(nonce)
            let text = buffer.baseAddress!.advanced(by: cipherStart).assumingMemoryBound(to: UInt8.self)
            var padded = 0
            guard sodium_pad(&padded, text, unpaddedCount, Self.paddingBlock, paddedCount) == 0, padded == paddedCount else {
                return Int32(-1)
            }
            // libsodium's AEAD encrypts in place (m == c): the tag goes after the text.
            return key.bytes.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    text, nil, text, UInt64(paddedCount),
                    additional, UInt64(additional.count), nil,
                    nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else {
            wipe(&out)
            throw .malformed
        }
        return out
    }

    /// Opens a sealed field, checking its format version, key and binding.
    public func open(_ sealed: some Collection<UInt8>, table: String, recordID: String, field: String) throws(CryptoError) -> [UInt8] {
        try open(sealed, binding: Binding(vaultID: vaultID, table: table, recordID: recordID, field: field))
    }

    public func open(_ sealed: some Collection<UInt8>, binding: Binding) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialized()
        let sealed = Array(sealed)
        let additional = try binding.encoded(purpose: Self.purpose, header: header)
        var plain = [UInt8](repeating: 0, count: max(sealed.count - Self.headerCount - Self.nonceCount - Self.tagCount, 0))
        // Array's closures rethrow untyped errors: carry the typed one out in a Result.
        let count = sealed.withUnsafeBytes { sealed in
            plain.withUnsafeMutableBufferPointer { plain in
                additional.withUnsafeBufferPointer { additional in
                    Result { () throws(CryptoError) in try open(sealed, additional: additional, into: plain) }
                }
            }
        }
        plain.removeSubrange(try count.get()...)
        return plain
    }

    /// The id of the key a sealed value names in its header, or nil for bytes that are not
    /// an envelope of this format: which key of a chain opens it (see ``RetiredKey``).
    public static func keyID(of sealed: some Collection<UInt8>) -> KeyID? {
        let header = Array(sealed.prefix(headerCount))
        guard header.count == headerCount, header[0] == formatVersion else { return nil }
        return try? KeyID(bytes: Array(header[1...]))
    }

    /// A reusable opener for many values of one field (a search scan): see ``FieldOpener``.
    public func opener(table: String, field: String) throws(CryptoError) -> FieldOpener {
        try Sodium.ensureInitialized()
        return try FieldOpener(sealer: self, table: table, field: field)
    }

    /// The associated data of a value of `binding` up to, not including, its record id: the
    /// part a ``FieldOpener`` encodes once.
    func additionalPrefix(table: String) throws(CryptoError) -> [UInt8] {
        try Binding.encodedPrefix(purpose: Self.purpose, header: header,
                                  vaultID: vaultID, table: table)
    }

    /// Checks the envelope of `sealed` (version, size, key) and decrypts and unpads it into
    /// `plain`, which must hold at least the ciphertext's length; returns the plaintext's
    /// length. On any failure `plain` is wiped.
    func open(_ sealed: UnsafeRawBufferPointer, additional: UnsafeBufferPointer<UInt8>,
              into plain: UnsafeMutableBufferPointer<UInt8>) throws(CryptoError) -> Int {
        guard let version = sealed.first else { throw .malformed }
        guard version == Self.formatVersion else { throw .unsupportedFormat(version: version) }
        guard sealed.count >= Self.headerCount + Self.nonceCount + Self.tagCount else { throw .malformed }
        let keyID = key.id.bytes
        guard keyID.count == Self.headerCount - 1,
              keyID.withUnsafeBytes({ sodium_memcmp(sealed.baseAddress! + 1, $0.baseAddress!, $0.count) == 0 }) else { throw .keyMismatch }
        let cipherStart = Self.headerCount + Self.nonceCount
        let cipherCount = sealed.count - cipherStart
        precondition(plain.count >= cipherCount - Self.tagCount, "plaintext buffer too small")
        let base = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var plainCount: UInt64 = 0
        let status = key.bytes.withUnsafeBytes { keyBytes in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                plain.baseAddress, &plainCount, nil,
                base + cipherStart, UInt64(cipherCount),
                additional.baseAddress, UInt64(additional.count),
                base + Self.headerCount,
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else { throw .authenticationFailed }
        var unpaddedCount = 0
        guard sodium_unpad(&unpaddedCount, plain.baseAddress!, Int(plainCount), Self.paddingBlock) == 0 else {
            sodium_memzero(plain.baseAddress, Int(plainCount))
            throw .malformed
        }
        return unpaddedCount
    }
}
