internal import CSodium

/// Bytes that must not be swapped out, copied into ordinary memory, or left behind:
/// key material, passphrases, recovery keys.
///
/// The buffer comes from `sodium_malloc` (guard pages, locked in RAM) and is wiped by
/// `sodium_free` when the object goes away. Reach the bytes only through the closures,
/// and do not let the pointer escape them.
public final class SecretBytes {
    private let base: UnsafeMutableRawPointer
    /// The number of bytes in use (the allocation is never empty, even when this is 0).
    public private(set) var count: Int
    private let capacity: Int

    /// A zero-filled buffer of `count` bytes.
    public init(count: Int) throws(CryptoError) {
        try Sodium.ensureInitialized()
        let capacity = max(count, 1)
        guard let base = sodium_malloc(capacity) else { throw .outOfSecureMemory }
        sodium_memzero(base, capacity)
        self.base = base
        self.count = count
        self.capacity = capacity
    }

    /// A buffer holding a copy of `bytes`. Wipe the source yourself if it was secret.
    public convenience init(copying bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        try self.init(count: bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            base.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    /// `count` bytes from the operating system's CSPRNG.
    public static func random(count: Int) throws(CryptoError) -> SecretBytes {
        let secret = try SecretBytes(count: count)
        secret.withUnsafeMutableBytes { Sodium.fillRandom($0) }
        return secret
    }

    deinit {
        sodium_free(base)
    }

    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    public func withUnsafeMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Shortens the visible length (for a buffer filled less than its size), wiping the rest.
    public func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncate beyond the buffer")
        sodium_memzero(base + newCount, capacity - newCount)
        count = newCount
    }

    /// Compares contents in time that does not depend on where they differ.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        guard count > 0 else { return true }
        return sodium_memcmp(base, other.base, count) == 0
    }
}

/// Wipes an ordinary buffer that briefly held something secret.
public func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 { sodium_memzero(base, buffer.count) }
    }
}

/// Wipes a buffer that held something private (a chunk of a book file in the clear).
public func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
    if let base = bytes.baseAddress, bytes.count > 0 { sodium_memzero(base, bytes.count) }
}
