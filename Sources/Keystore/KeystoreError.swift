internal import VaultCrypto

/// Everything that can go wrong talking to the keystore. Cases carry only D-Bus error
/// names, GLib error domains and codes, never an error message: a message may quote
/// anything, including attribute values or paths, and would end up in logs and terminal output.
public enum KeystoreError: Error, Equatable, Sendable {
    /// There is no D-Bus session bus to connect to (no address, or its socket is missing or
    /// refuses the connection), as on a headless server or in a bare SSH login.
    case noSessionBus
    /// The bus is up but nobody owns `org.freedesktop.secrets` and it cannot be activated
    /// (`org.freedesktop.DBus.Error.ServiceUnknown`, or a related no-owner/activation failure).
    case noProvider
    /// The provider did not answer within the timeout (our deadline passed, or the bus
    /// itself gave up), so bmvault stopped waiting instead of hanging.
    case timedOut(milliseconds: Int)
    /// The target collection is locked, or the provider wanted an unlock prompt that we do
    /// not show, or the reader dismissed one.
    case keyringLocked
    /// The provider has no collection under this alias: `session` (KeePassXC keeps none) or
    /// `default` (no login keyring yet). A provider would create one behind a password prompt.
    case noSuchCollection(alias: String)
    /// An item under bmvault's schema holds a secret that is not bmvault's layout: written by
    /// something else, by a newer bmvault, or damaged.
    case malformedItem
    /// Anything else, as a domain and a code (never a message): a D-Bus error name with code
    /// 0 (`org.freedesktop.DBus.Error.AccessDenied`), a GLib error domain with its code
    /// (`g-io-error-quark` 14), `bmvault-malformed-error-name` for a provider that answered
    /// with something that is not a D-Bus error name, or `bmvault-crypto` for a VaultCrypto
    /// failure (no secure memory).
    case failure(domain: String, code: Int32)
}

extension KeystoreError {
    /// Maps a VaultCrypto failure (in practice: no secure memory for the key buffer).
    static func crypto(_ error: CryptoError) -> KeystoreError {
        let code: Int32 = switch error {
        case .libraryUnavailable: 1
        case .outOfSecureMemory: 2
        case .unsupportedFormat: 3
        case .malformed: 4
        case .keyMismatch: 5
        case .authenticationFailed: 6
        case .keyDerivationFailed: 7
        case .invalidRecoveryKey: 8
        case .invalidLength: 9
        case .recoveryKeyChecksumFailed: 10
        }
        return .failure(domain: "bmvault-crypto", code: code)
    }
}

extension KeystoreError {
    /// The case name alone (`timedOut`), for logs.
    public var caseName: String {
        switch self {
        case .noSessionBus: "noSessionBus"
        case .noProvider: "noProvider"
        case .timedOut: "timedOut"
        case .keyringLocked: "keyringLocked"
        case .noSuchCollection: "noSuchCollection"
        case .malformedItem: "malformedItem"
        case .failure: "failure"
        }
    }
}
