internal import CSodium

/// The vault key, wrapped under a key derived from something the reader holds.
///
/// A vault has one passphrase slot and one recovery slot. Changing the passphrase
/// replaces its slot; the vault key, and so every sealed field, stays the same.
///
/// Wrapped key layout, version 1: `version (0x01) | nonce (24) | sealed key (32) + tag (16)`,
/// with associated data binding the vault, the slot id, its kind and its KDF parameters.
public struct Keyslot: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case passphrase
        case recovery
    }

    /// The KDF name recorded for recovery slots: the recovery key is 160 random bits, so a
    /// keyed BLAKE2b hash is enough and a slow KDF would add nothing.
    public static let recoveryKDF = "blake2b"
    static let formatVersion: UInt8 = 1
    static let saltCount = Int(crypto_pwhash_SALTBYTES)

    public let id: String
    public let kind: Kind
    public let kdf: KDFParameters
    public let salt: [UInt8]
    public let wrappedKey: [UInt8]

    /// Restores a slot read back from storage.
    public init(id: String, kind: Kind, kdf: KDFParameters, salt: [UInt8], wrappedKey: [UInt8]) {
        self.id = id
        self.kind = kind
        self.kdf = kdf
        self.salt = salt
        self.wrappedKey = wrappedKey
    }

    /// Wraps `key` under a passphrase, with Argon2id at `kdf`.
    public static func wrapping(_ key: VaultKey, passphrase: SecretBytes, kdf: KDFParameters,
                                vaultID: String, slotID: String) throws(CryptoError) -> Keyslot {
        let salt = try randomBytes(count: saltCount)
        let wrappingKey = try deriveFromPassphrase(passphrase, salt: salt, kdf: kdf)
        let wrapped = try seal(key, under: wrappingKey, binding: binding(vaultID: vaultID, slotID: slotID, kind: .passphrase, kdf: kdf))
        return Keyslot(id: slotID, kind: .passphrase, kdf: kdf, salt: salt, wrappedKey: wrapped)
    }

    /// Wraps `key` under a recovery key.
    public static func wrapping(_ key: VaultKey, recoveryKey: RecoveryKey,
                                vaultID: String, slotID: String) throws(CryptoError) -> Keyslot {
        let salt = try randomBytes(count: saltCount)
        let kdf = KDFParameters(algorithm: recoveryKDF, opsLimit: 0, memLimit: 0)
        let wrappingKey = try deriveFromRecoveryKey(recoveryKey, salt: salt)
        let wrapped = try seal(key, under: wrappingKey, binding: binding(vaultID: vaultID, slotID: slotID, kind: .recovery, kdf: kdf))
        return Keyslot(id: slotID, kind: .recovery, kdf: kdf, salt: salt, wrappedKey: wrapped)
    }

    /// Unwraps the vault key with a passphrase. A wrong passphrase is ``CryptoError/authenticationFailed``.
    public func unwrap(passphrase: SecretBytes, vaultID: String) throws(CryptoError) -> VaultKey {
        guard kind == .passphrase, kdf.algorithm == KDFParameters.argon2id else { throw .malformed }
        let wrappingKey = try Self.deriveFromPassphrase(passphrase, salt: salt, kdf: kdf)
        return try open(under: wrappingKey, vaultID: vaultID)
    }

    /// Unwraps the vault key with a recovery key.
    public func unwrap(recoveryKey: RecoveryKey, vaultID: String) throws(CryptoError) -> VaultKey {
        guard kind == .recovery, kdf.algorithm == Self.recoveryKDF else { throw .malformed }
        let wrappingKey = try Self.deriveFromRecoveryKey(recoveryKey, salt: salt)
        return try open(under: wrappingKey, vaultID: vaultID)
    }

    /// Whether the slot has the shape this build writes: its salt and wrapped key of the
    /// right lengths and version, and a KDF it would run (`bmvault check`). It says nothing
    /// of whether the passphrase or recovery key opens it.
    public var isWellFormed: Bool {
        guard salt.count == Self.saltCount, wrappedKey.first == Self.formatVersion,
              wrappedKey.count == 1 + FieldSealer.nonceCount + VaultKey.byteCount + FieldSealer.tagCount else { return false }
        switch kind {
        case .passphrase: return kdf.algorithm == KDFParameters.argon2id && Self.limitsAreWithinBounds(kdf)
        case .recovery: return kdf.algorithm == Self.recoveryKDF && kdf.opsLimit == 0 && kdf.memLimit == 0
        }
    }

    /// Whether `slots` are what a vault holds: one well-formed slot of each kind, under two
    /// ids. Asked of keyslots read from a remote before they replace a vault's own.
    public static func areOneOfEachKind(_ slots: [Keyslot]) -> Bool {
        slots.count == 2 && Set(slots.map(\.kind)) == [.passphrase, .recovery] && Set(slots.map(\.id)).count == 2
            && slots.allSatisfy(\.isWellFormed)
    }

    /// Limits come from the vault file: a damaged or hostile slot must not be able to crash
    /// the process or demand more than the strongest preset.
    private static func limitsAreWithinBounds(_ kdf: KDFParameters) -> Bool {
        let strongest = KDFParameters(strength: .sensitive)
        return kdf.opsLimit >= UInt64(crypto_pwhash_OPSLIMIT_MIN) && kdf.opsLimit <= strongest.opsLimit
            && kdf.memLimit >= UInt64(crypto_pwhash_MEMLIMIT_MIN) && kdf.memLimit <= strongest.memLimit
    }

    // MARK: - Derivation and sealing

    private static func binding(vaultID: String, slotID: String, kind: Kind, kdf: KDFParameters) -> Binding {
        Binding(vaultID: vaultID, table: "keyslot", recordID: slotID,
                field: "\(kind.rawValue)/\(kdf.algorithm)/\(kdf.opsLimit)/\(kdf.memLimit)")
    }

    private static func deriveFromPassphrase(_ passphrase: SecretBytes, salt: [UInt8], kdf: KDFParameters) throws(CryptoError) -> SecretBytes {
        guard salt.count == saltCount else { throw .invalidLength(expected: saltCount, actual: salt.count) }
        guard limitsAreWithinBounds(kdf), let memLimit = Int(exactly: kdf.memLimit) else { throw .keyDerivationFailed }
        let derived = try SecretBytes(count: VaultKey.byteCount)
        let status = derived.withUnsafeMutableBytes { out in
            passphrase.withUnsafeBytes { secret in
                crypto_pwhash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(out.count),
                              secret.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(secret.count),
                              salt, kdf.opsLimit, memLimit, crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard status == 0 else { throw .keyDerivationFailed }
        return derived
    }

    private static func deriveFromRecoveryKey(_ recoveryKey: RecoveryKey, salt: [UInt8]) throws(CryptoError) -> SecretBytes {
        guard salt.count == saltCount else { throw .invalidLength(expected: saltCount, actual: salt.count) }
        let derived = try SecretBytes(count: VaultKey.byteCount)
        let message = Array("bmvault recovery slot v1".utf8) + salt
        derived.withUnsafeMutableBytes { out in
            recoveryKey.bytes.withUnsafeBytes { secret in
                _ = crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count,
                                       message, UInt64(message.count),
                                       secret.baseAddress!.assumingMemoryBound(to: UInt8.self), secret.count)
            }
        }
        return derived
    }

    private static func seal(_ key: VaultKey, under wrappingKey: SecretBytes, binding: Binding) throws(CryptoError) -> [UInt8] {
        let additional = try binding.encoded(purpose: "bmvault.keyslot", header: [formatVersion])
        let nonceCount = FieldSealer.nonceCount
        var out = [UInt8](repeating: 0, count: 1 + nonceCount + VaultKey.byteCount + FieldSealer.tagCount)
        out[0] = formatVersion
        try Sodium.ensureInitialized()
        out.withUnsafeMutableBytes { buffer in
            let nonce = UnsafeMutableRawBufferPointer(rebasing: buffer[1..<(1 + nonceCount)])
            Sodium.fillRandom(nonce)
            let cipher = buffer.baseAddress!.advanced(by: 1 + nonceCount).assumingMemoryBound(to: UInt8.self)
            _ = key.bytes.withUnsafeBytes { plain in
                wrappingKey.withUnsafeBytes { wrapping in
                    crypto_aead_xchacha20poly1305_ietf_encrypt(
                        cipher, nil, plain.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(plain.count),
                        additional, UInt64(additional.count), nil,
                        nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        wrapping.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return out
    }

    private func open(under wrappingKey: SecretBytes, vaultID: String) throws(CryptoError) -> VaultKey {
        let nonceCount = FieldSealer.nonceCount
        guard let version = wrappedKey.first else { throw .malformed }
        guard version == Self.formatVersion else { throw .unsupportedFormat(version: version) }
        guard wrappedKey.count == 1 + nonceCount + VaultKey.byteCount + FieldSealer.tagCount else { throw .malformed }
        let additional = try Self.binding(vaultID: vaultID, slotID: id, kind: kind, kdf: kdf)
            .encoded(purpose: "bmvault.keyslot", header: [version])
        let key = try SecretBytes(count: VaultKey.byteCount)
        let status = key.withUnsafeMutableBytes { out in
            wrappedKey.withUnsafeBufferPointer { sealed in
                wrappingKey.withUnsafeBytes { wrapping in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil,
                        sealed.baseAddress! + 1 + nonceCount, UInt64(sealed.count - 1 - nonceCount),
                        additional, UInt64(additional.count),
                        sealed.baseAddress! + 1,
                        wrapping.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard status == 0 else { throw .authenticationFailed }
        return try VaultKey(bytes: key)
    }
}
