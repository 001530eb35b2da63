internal import CSodium

/// The encrypted form of a stored book file: libsodium's secretstream
/// (XChaCha20-Poly1305) over chunks of ``chunkSize`` plaintext bytes, so a file of any size
/// is sealed and opened in bounded memory, and a chunk dropped, repeated, reordered or cut
/// off is refused.
///
/// Format version 1:
///
///     version (1 byte = 0x01) | secretstream header (24) | chunk 1 | chunk 2 | … | last chunk
///
/// Every chunk but the last holds exactly ``chunkSize`` plaintext bytes (``sealedChunkSize``
/// sealed); the last holds fewer (possibly none) and carries the FINAL tag, so a stream
/// that ends early or goes on after it is refused. Each chunk's associated data is the
/// version and the ``Binding`` of the file (the vault, the file's id), so a stream copied to
/// another file's name does not open.
public enum FileStream {
    public static let formatVersion: UInt8 = 1
    /// Plaintext bytes per chunk: 1 MiB.
    public static let chunkSize = 1 << 20
    /// What sealing adds to each chunk (a tag byte and the MAC).
    public static let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
    public static var sealedChunkSize: Int { chunkSize + overhead }
    /// The version byte and the secretstream header.
    public static let headerCount = 1 + Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    static let purpose = "bmvault.file"

    /// The size of a sealed stream of `plainSize` bytes.
    public static func sealedSize(ofPlainSize plainSize: Int64) -> Int64 {
        let chunks = plainSize / Int64(chunkSize) + 1
        return Int64(headerCount) + plainSize + chunks * Int64(overhead)
    }

    static func additionalData(_ binding: Binding) throws(CryptoError) -> [UInt8] {
        try binding.encoded(purpose: purpose, header: [formatVersion])
    }
}

/// The secretstream state, in sodium memory (it holds the subkey) and wiped when released.
final class SecretStreamState {
    let pointer: UnsafeMutablePointer<crypto_secretstream_xchacha20poly1305_state>

    init() throws(CryptoError) {
        try Sodium.ensureInitialized()
        let size = MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size
        guard let raw = sodium_malloc(size) else { throw .outOfSecureMemory }
        sodium_memzero(raw, size)
        pointer = raw.bindMemory(to: crypto_secretstream_xchacha20poly1305_state.self, capacity: 1)
    }

    deinit {
        sodium_free(pointer)
    }
}

/// Seals one file, chunk by chunk: write ``header`` first, then each chunk's ``seal(_:final:into:)``.
public final class FileStreamSealer {
    /// The first ``FileStream/headerCount`` bytes of the sealed file.
    public let header: [UInt8]
    private let state: SecretStreamState
    private let additional: [UInt8]

    public init(key: FileKey, binding: Binding) throws(CryptoError) {
        let state = try SecretStreamState()
        additional = try FileStream.additionalData(binding)
        var streamHeader = [UInt8](repeating: 0, count: FileStream.headerCount - 1)
        let status = key.bytes.withUnsafeBytes { keyBytes in
            crypto_secretstream_xchacha20poly1305_init_push(state.pointer, &streamHeader,
                                                            keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else { throw .malformed }
        self.state = state
        header = [FileStream.formatVersion] + streamHeader
    }

    /// Seals `chunk` (at most ``FileStream/chunkSize`` bytes; fewer only when `final`) into
    /// `output`, which must hold `chunk.count + FileStream.overhead` bytes; returns that count.
    public func seal(_ chunk: UnsafeRawBufferPointer, final: Bool, into output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Int {
        precondition(chunk.count <= FileStream.chunkSize && (final || chunk.count == FileStream.chunkSize), "a short chunk that is not the last")
        precondition(output.count >= chunk.count + FileStream.overhead, "output buffer too small")
        var written: UInt64 = 0
        let tag = final ? UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL) : UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
        let status = crypto_secretstream_xchacha20poly1305_push(
            state.pointer, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
            chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(chunk.count),
            additional, UInt64(additional.count), tag)
        guard status == 0 else { throw .malformed }
        return Int(written)
    }
}

/// Opens one sealed file, chunk by chunk, after checking its header.
public final class FileStreamOpener {
    private let state: SecretStreamState
    private let additional: [UInt8]

    /// `header`: the file's first ``FileStream/headerCount`` bytes.
    public init(key: FileKey, header: [UInt8], binding: Binding) throws(CryptoError) {
        guard let version = header.first else { throw .malformed }
        guard version == FileStream.formatVersion else { throw .unsupportedFormat(version: version) }
        guard header.count == FileStream.headerCount else { throw .malformed }
        let state = try SecretStreamState()
        additional = try FileStream.additionalData(binding)
        let streamHeader = Array(header.dropFirst())
        let status = key.bytes.withUnsafeBytes { keyBytes in
            crypto_secretstream_xchacha20poly1305_init_pull(state.pointer, streamHeader,
                                                            keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else { throw .malformed }
        self.state = state
    }

    /// Opens one sealed chunk into `output` (at least `chunk.count - FileStream.overhead`
    /// bytes); returns the plaintext's length and whether it was the last chunk. A chunk
    /// that does not authenticate (tampered, reordered, another file's) throws
    /// ``CryptoError/authenticationFailed``.
    public func open(_ chunk: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> (count: Int, isFinal: Bool) {
        guard chunk.count >= FileStream.overhead, chunk.count <= FileStream.sealedChunkSize else { throw .malformed }
        precondition(output.count >= chunk.count - FileStream.overhead, "output buffer too small")
        var count: UInt64 = 0
        var tag: UInt8 = 0
        let status = crypto_secretstream_xchacha20poly1305_pull(
            state.pointer, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &count, &tag,
            chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(chunk.count),
            additional, UInt64(additional.count))
        guard status == 0 else { throw .authenticationFailed }
        return (Int(count), tag == UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL))
    }
}
