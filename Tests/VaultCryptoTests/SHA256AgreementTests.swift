import Testing
internal import CSodium
import TestSupport
import VaultCrypto

/// `SHA256`'s hasher is computed by libcrypto since issue 42; its `hex(of:)`, and every digest
/// stored or exchanged before (book files' checksums, archive manifests, import keys, derived
/// ids), by libsodium's `crypto_hash_sha256`. The two must be one function: checked on random
/// bytes at the lengths where SHA-256's padding changes (55 and 56: whether the length still
/// fits in the last block; 63, 64, 65: a block's edges), past a mebibyte, and fed to the hasher
/// in random pieces by each of its three paths (contiguous bytes, a raw buffer, a collection
/// that must be copied). The known answers pin both libraries to the standard, so they cannot
/// agree on a wrong digest. Each run draws a new seed, named in every failure to replay it.
@Suite struct SHA256AgreementTests {
    static let lengths = [0, 1, 2, 31, 32, 33, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1_000, 4_096, (1 << 20) + 3]

    /// libsodium's SHA-256 of `bytes`, in one call.
    static func libsodiumHex(_ bytes: [UInt8]) -> String {
        #expect(sodium_init() >= 0)
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        #expect(crypto_hash_sha256(&digest, bytes, UInt64(bytes.count)) == 0)
        return encodeHex(digest)
    }

    static func randomBytes(_ count: Int, _ generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count { withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) } }
        return Array(bytes.prefix(count))
    }

    @Test("Both libraries give the standard's digests of \"\" and \"abc\"", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func knownAnswers(input: String, digest: String) {
        #expect(Self.libsodiumHex(Array(input.utf8)) == digest)
        #expect(SHA256.hex(of: Array(input.utf8)) == digest)
        var hasher = SHA256()
        hasher.update(Array(input.utf8))
        #expect(hasher.finalizeHex() == digest)
    }

    @Test("libcrypto's digest of random bytes is libsodium's, at every length where padding changes")
    func whole() {
        let seed = UInt64.random(in: .min ... .max)
        var generator = SeededGenerator(seed: seed)
        for length in Self.lengths {
            let bytes = Self.randomBytes(length, &generator)
            var hasher = SHA256()
            hasher.update(bytes)
            let libsodium = Self.libsodiumHex(bytes)
            #expect(hasher.finalizeHex() == libsodium, "length \(length), seed \(seed)")
            #expect(SHA256.hex(of: bytes) == libsodium, "length \(length), seed \(seed)")
        }
    }

    @Test("Fed in random pieces, by every update path, libcrypto's digest is libsodium's")
    func incremental() {
        let seed = UInt64.random(in: .min ... .max)
        var generator = SeededGenerator(seed: seed)
        for length in Self.lengths {
            let bytes = Self.randomBytes(length, &generator)
            var hasher = SHA256()
            var start = 0
            var pieces: [Int] = []
            while start < bytes.count || pieces.isEmpty {
                // Empty pieces too, and pieces that straddle a block; the mebibyte in longer ones.
                let longest = length > 1 << 16 ? 1 << 17 : 130
                let end = min(bytes.count, start + Int.random(in: 0...longest, using: &generator))
                switch pieces.count % 3 {
                case 0: hasher.update(bytes[start..<end])
                case 1: bytes[start..<end].withUnsafeBytes { hasher.update($0) }
                default: hasher.update(bytes[start..<end].lazy.map { $0 })
                }
                pieces.append(end - start)
                start = end
            }
            #expect(hasher.finalizeHex() == Self.libsodiumHex(bytes),
                    "length \(length), seed \(seed), pieces \(pieces.count < 40 ? "\(pieces)" : "\(pieces.count) of them")")
        }
    }
}
