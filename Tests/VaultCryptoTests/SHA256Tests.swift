import Testing
import VaultCrypto

@Suite("SHA256")
struct SHA256Tests {
    @Test("Known vectors (FIPS 180-4 / NIST examples)", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("The quick brown fox jumps over the lazy dog",
         "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
    ])
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hex(of: Array(input.utf8)) == digest)
        var hasher = SHA256()
        hasher.update(input.utf8)
        #expect(hasher.finalizeHex() == digest)
    }

    @Test("One million 'a', fed in uneven pieces")
    func millionA() {
        var hasher = SHA256()
        var remaining = 1_000_000
        var piece = 1
        while remaining > 0 {
            let count = min(piece, remaining)
            hasher.update([UInt8](repeating: 0x61, count: count))
            remaining -= count
            piece = piece * 3 % 1_021 + 1
        }
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("Streaming in pieces equals hashing in one shot, whatever the split")
    func streamingMatchesOneShot() throws {
        let data = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let oneShot = SHA256.hex(of: data)
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 999, 1_000] {
            var hasher = SHA256()
            hasher.update(data[..<split])
            hasher.update([UInt8]())
            hasher.update(data[split...])
            #expect(hasher.finalizeHex() == oneShot, "split at \(split)")
        }
        var bytewise = SHA256()
        for byte in data { bytewise.update(CollectionOfOne(byte)) }
        #expect(bytewise.finalizeHex() == oneShot)
    }

    @Test("Digests are 64 lowercase hex digits, and one changed bit changes them")
    func sensitivity() {
        let a = SHA256.hex(of: Array("bmvault".utf8))
        let b = SHA256.hex(of: Array("bmvaulu".utf8))
        #expect(a.count == 64)
        #expect(a.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(a != b)
    }

    @Test("A copied hasher continues independently")
    func copiesAreIndependent() {
        var first = SHA256()
        first.update(Array("ab".utf8))
        var second = first
        first.update(Array("c".utf8))
        second.update(Array("d".utf8))
        #expect(first.finalizeHex() == SHA256.hex(of: Array("abc".utf8)))
        #expect(second.finalizeHex() == SHA256.hex(of: Array("abd".utf8)))
    }
}
