/// Random bytes from libsodium's CSPRNG, drawn a block at a time, for code that makes many
/// small draws: a nonce for every sealed field, an id for every outbox operation.
/// `randombytes_buf` is one `getrandom` system call per draw; an import of 100,000 notes
/// made about half a million of them. Here it is one per block of 256 bytes (ten nonces):
/// libsodium asks the kernel for at most 256 bytes per call anyway, so a larger block
/// would only cost a command that seals one note more calls, not fewer.
///
/// Only for values that are not secret (nonces and ids are stored in the clear), which is
/// why the block is not kept in secure memory. Not `Sendable`: one pool, one thread.
public final class RandomPool: RandomNumberGenerator {
    static let blockCount = 256

    private var block = [UInt8](repeating: 0, count: RandomPool.blockCount)
    private var used = RandomPool.blockCount

    public init() {}

    /// Fills `buffer` with random bytes.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var filled = 0
        while filled < buffer.count {
            if used == block.count {
                block.withUnsafeMutableBytes { Sodium.fillRandom($0) }
                used = 0
            }
            let count = min(buffer.count - filled, block.count - used)
            block.withUnsafeBytes { source in
                (buffer.baseAddress! + filled).copyMemory(from: source.baseAddress! + used, byteCount: count)
            }
            used += count
            filled += count
        }
    }

    /// Eight random bytes, for ``EntityID/generate(at:using:)``.
    public func next() -> UInt64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { fill($0) }
        return value
    }
}
