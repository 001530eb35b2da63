internal import CSodium

/// How hard Argon2id works to turn a passphrase into a keyslot key. Stored with each
/// passphrase keyslot, so a vault keeps opening when the defaults change.
public struct KDFParameters: Sendable, Equatable {
    /// The algorithm name recorded in the keyslot.
    public static let argon2id = "argon2id13"

    public let algorithm: String
    public let opsLimit: UInt64
    public let memLimit: UInt64

    public init(algorithm: String = KDFParameters.argon2id, opsLimit: UInt64, memLimit: UInt64) {
        self.algorithm = algorithm
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// libsodium's named presets.
    public enum Strength: String, CaseIterable, Sendable {
        /// About 0.05 s and 64 MiB here: for tests and slow machines.
        case interactive
        /// About 0.5 s and 256 MiB here: the default.
        case moderate
        /// Several seconds and 1 GiB.
        case sensitive
    }

    public init(strength: Strength) {
        switch strength {
        case .interactive:
            self.init(opsLimit: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE), memLimit: UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE))
        case .moderate:
            self.init(opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MODERATE), memLimit: UInt64(crypto_pwhash_MEMLIMIT_MODERATE))
        case .sensitive:
            self.init(opsLimit: UInt64(crypto_pwhash_OPSLIMIT_SENSITIVE), memLimit: UInt64(crypto_pwhash_MEMLIMIT_SENSITIVE))
        }
    }
}
