internal import CSodium

/// Facts about the cryptographic library, for diagnostics.
public enum CryptoLibrary {
    /// libsodium's version string, such as `1.0.18`.
    public static var version: String { String(cString: sodium_version_string()) }
}
