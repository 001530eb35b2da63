internal import CSodium

/// The one place libsodium is initialized. `sodium_init` is idempotent and thread-safe,
/// and a `static let` runs it exactly once per process.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    static func ensureInitialized() throws(CryptoError) {
        guard initialized else { throw .libraryUnavailable }
    }

    /// Fills `buffer` with bytes from the operating system's CSPRNG.
    /// Call ``ensureInitialized()`` first.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }
}

/// Random bytes from libsodium, for values that are not secret (salts, nonces, ids).
public func randomBytes(count: Int) throws(CryptoError) -> [UInt8] {
    try Sodium.ensureInitialized()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { Sodium.fillRandom($0) }
    return bytes
}
