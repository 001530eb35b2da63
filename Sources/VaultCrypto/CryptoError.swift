/// Everything that can go wrong in VaultCrypto. No case carries key material or plaintext.
public enum CryptoError: Error, Equatable, Sendable {
    /// libsodium could not initialize (no usable random source).
    case libraryUnavailable
    /// Locked (non-swappable) memory for a secret could not be allocated.
    case outOfSecureMemory
    /// A sealed value was written by a newer envelope format than this build reads.
    case unsupportedFormat(version: UInt8)
    /// A sealed value is shorter than its header, or otherwise not an envelope.
    case malformed
    /// A sealed value names a key other than the one offered to open it.
    case keyMismatch
    /// The ciphertext was altered, moved to another record or field, or the key is wrong.
    case authenticationFailed
    /// Argon2id could not run with the requested limits (usually: not enough memory).
    case keyDerivationFailed
    /// A recovery key has the wrong length or a character outside its alphabet.
    case invalidRecoveryKey
    /// A recovery key of the right length and alphabet whose checksum does not match: a
    /// character was mistyped (or two swapped).
    case recoveryKeyChecksumFailed
    /// A key or salt had the wrong number of bytes.
    case invalidLength(expected: Int, actual: Int)
}
