import Testing
@testable import VaultCrypto

/// A stored book file's encryption: what is sealed opens to the same bytes, and a stream
/// cut short, extended, tampered with, reordered or moved to another file is refused.
@Suite struct FileStreamTests {
    let binding = Binding(vaultID: "vault", table: "file", recordID: "file-1", field: "blob")

    /// Seals `plain` in chunks of `FileStream.chunkSize`: the header, then each sealed chunk.
    func seal(_ plain: [UInt8], key: FileKey, binding: Binding) throws -> (header: [UInt8], chunks: [[UInt8]]) {
        let sealer = try FileStreamSealer(key: key, binding: binding)
        var chunks: [[UInt8]] = []
        var start = 0
        while true {
            // Every chunk but the last is whole; the last is shorter, possibly empty.
            let final = plain.count - start < FileStream.chunkSize
            let end = final ? plain.count : start + FileStream.chunkSize
            var out = [UInt8](repeating: 0, count: end - start + FileStream.overhead)
            let count = try plain[start..<end].withUnsafeBytes { chunk in
                try out.withUnsafeMutableBytes { try sealer.seal(chunk, final: final, into: $0) }
            }
            #expect(count == out.count)
            chunks.append(out)
            start = end
            if final { break }
        }
        return (sealer.header, chunks)
    }

    /// Opens every chunk, requiring the FINAL tag on the last one and on no other.
    func open(header: [UInt8], chunks: [[UInt8]], key: FileKey, binding: Binding) throws -> [UInt8] {
        let opener = try FileStreamOpener(key: key, header: header, binding: binding)
        var plain: [UInt8] = []
        for (index, chunk) in chunks.enumerated() {
            var out = [UInt8](repeating: 0, count: chunk.count)
            let (count, isFinal) = try chunk.withUnsafeBytes { chunk in
                try out.withUnsafeMutableBytes { try opener.open(chunk, into: $0) }
            }
            guard isFinal == (index == chunks.count - 1) else { throw CryptoError.malformed }
            plain += out[..<count]
        }
        return plain
    }

    @Test(arguments: [0, 1, FileStream.chunkSize - 1, FileStream.chunkSize, FileStream.chunkSize * 2 + 5])
    func whatIsSealedOpensToTheSameBytes(size: Int) throws {
        let key = try FileKey.generate()
        let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let sealed = try seal(plain, key: key, binding: binding)
        #expect(sealed.header.count == FileStream.headerCount && sealed.header[0] == FileStream.formatVersion)
        #expect(Int64(sealed.header.count + sealed.chunks.reduce(0) { $0 + $1.count }) == FileStream.sealedSize(ofPlainSize: Int64(size)))
        #expect(try open(header: sealed.header, chunks: sealed.chunks, key: key, binding: binding) == plain)
        if size >= 16 {
            // The plaintext does not appear in what is stored.
            let stored = sealed.header + sealed.chunks.flatMap { $0 }
            #expect(!stored.indices.dropLast(15).contains { Array(stored[$0..<$0 + 16]) == Array(plain[0..<16]) })
        }
    }

    @Test func aStreamCutShortExtendedOrReorderedIsRefused() throws {
        let key = try FileKey.generate()
        let plain = [UInt8](repeating: 0x41, count: FileStream.chunkSize * 2 + 10)
        let sealed = try seal(plain, key: key, binding: binding)
        #expect(sealed.chunks.count == 3)
        // Cut after a whole chunk: the last one read is not FINAL.
        #expect(throws: CryptoError.malformed) { try open(header: sealed.header, chunks: Array(sealed.chunks.prefix(2)), key: key, binding: binding) }
        // A chunk repeated or the order swapped does not authenticate.
        #expect(throws: CryptoError.authenticationFailed) {
            try open(header: sealed.header, chunks: [sealed.chunks[0], sealed.chunks[0], sealed.chunks[2]], key: key, binding: binding)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try open(header: sealed.header, chunks: [sealed.chunks[1], sealed.chunks[0], sealed.chunks[2]], key: key, binding: binding)
        }
        // Anything after the FINAL chunk is refused.
        #expect(throws: (any Error).self) { try open(header: sealed.header, chunks: sealed.chunks + [sealed.chunks[2]], key: key, binding: binding) }
    }

    @Test func aFlippedBitAnotherFilesNameOrAnotherKeyIsRefused() throws {
        let key = try FileKey.generate()
        let sealed = try seal(Array("a chapter of a book".utf8), key: key, binding: binding)
        var tampered = sealed.chunks
        tampered[0][5] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) { try open(header: sealed.header, chunks: tampered, key: key, binding: binding) }
        let elsewhere = Binding(vaultID: "vault", table: "file", recordID: "file-2", field: "blob")
        #expect(throws: CryptoError.authenticationFailed) { try open(header: sealed.header, chunks: sealed.chunks, key: key, binding: elsewhere) }
        #expect(throws: CryptoError.authenticationFailed) { try open(header: sealed.header, chunks: sealed.chunks, key: try FileKey.generate(), binding: binding) }
        var future = sealed.header
        future[0] = 2
        #expect(throws: CryptoError.unsupportedFormat(version: 2)) { try open(header: future, chunks: sealed.chunks, key: key, binding: binding) }
        #expect(throws: CryptoError.malformed) { try FileStreamOpener(key: key, header: Array(sealed.header.prefix(10)), binding: binding) }
    }

    @Test func aFileKeyOpenedFromAFieldIsAdoptedAndTheBufferWiped() throws {
        var opened = [UInt8](repeating: 7, count: FileKey.byteCount)
        let key = try FileKey(opened: &opened)
        #expect(opened.allSatisfy { $0 == 0 })
        #expect(key.withUnsafeBytes { Array($0) } == [UInt8](repeating: 7, count: FileKey.byteCount))
        var short = [UInt8](repeating: 1, count: 5)
        #expect(throws: CryptoError.invalidLength(expected: FileKey.byteCount, actual: 5)) { try FileKey(opened: &short) }
    }

    @Test func hashingABufferEqualsHashingItsBytes() {
        let bytes = Array("bmvault".utf8)
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        #expect(hasher.finalizeHex() == SHA256.hex(of: bytes))
    }
}
