import Testing
internal import CSodium
@testable import VaultCrypto

@Suite("VaultKey and KeyID")
struct VaultKeyTests {
    @Test("generate() gives a 32-byte key, and two keys differ")
    func generate() throws {
        let first = try VaultKey.generate()
        let second = try VaultKey.generate()
        #expect(VaultKey.byteCount == 32)
        #expect(rawBytes(first).count == 32)
        #expect(rawBytes(first) != rawBytes(second))
        #expect(first.id != second.id)
    }

    @Test("init(bytes:) refuses any length but 32", arguments: [0, 1, 16, 31, 33, 64])
    func wrongLength(count: Int) throws {
        #expect(throws: CryptoError.invalidLength(expected: 32, actual: count)) {
            try VaultKey(bytes: SecretBytes(count: count))
        }
    }

    @Test("init(bytes:) adopts exactly the bytes given")
    func adoptsBytes() throws {
        let raw = (0..<32).map { UInt8($0) }
        #expect(rawBytes(try vaultKey(raw)) == raw)
    }

    @Test("The key id is deterministic for the same bytes and differs for other bytes")
    func keyIDDeterministic() throws {
        let raw = try randomBytes(count: 32)
        let first = try vaultKey(raw)
        let second = try vaultKey(raw)
        #expect(first.id == second.id)
        #expect(first.id != (try vaultKey(flipping(raw, at: 31))).id)
        #expect(first.id != (try vaultKey(flipping(raw, at: 0))).id)
    }

    @Test("The key id is 8 bytes of keyed BLAKE2b over the label, not a prefix of the key")
    func keyIDDerivation() throws {
        let raw = (0..<32).map { UInt8($0 * 7 & 0xff) }
        let key = try vaultKey(raw)
        var digest = [UInt8](repeating: 0, count: 16)
        let label = Array("bmvault key id v1".utf8)
        #expect(crypto_generichash(&digest, 16, label, UInt64(label.count), raw, raw.count) == 0)
        #expect(key.id.bytes == Array(digest.prefix(8)))
        #expect(key.id.bytes != Array(raw.prefix(8)))
    }

    @Test("The key id's description is 16 lowercase hex digits and parses back")
    func keyIDHexRoundTrip() throws {
        let id = try VaultKey.generate().id
        let text = id.description
        #expect(text.count == 16)
        #expect(text.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(text == encodeHex(id.bytes))
        #expect(try KeyID(hex: text) == id)
        #expect(try KeyID(hex: text.uppercased()) == id)
    }

    @Test("KeyID(hex:) rejects odd lengths and non-hex as .malformed", arguments: [
        "0", "0123456789abcde", "0123456789abcdeg", "0123456789abcdeZ", "0x23456789abcdef", " 123456789abcdef", "0123456789abcdé",
    ])
    func keyIDRejectsBadHex(text: String) throws {
        #expect(throws: CryptoError.malformed) { try KeyID(hex: text) }
    }

    @Test("KeyID(hex:) rejects a valid hex string of the wrong length")
    func keyIDRejectsWrongLength() throws {
        #expect(throws: CryptoError.invalidLength(expected: 8, actual: 7)) { try KeyID(hex: "0123456789abcd") }
        #expect(throws: CryptoError.invalidLength(expected: 8, actual: 9)) { try KeyID(hex: "0123456789abcdef01") }
        #expect(throws: CryptoError.invalidLength(expected: 8, actual: 0)) { try KeyID(hex: "") }
        #expect(throws: CryptoError.invalidLength(expected: 8, actual: 3)) { try KeyID(bytes: [1, 2, 3]) }
    }

    @Test("KeyID(bytes:) keeps its bytes, and equal bytes are equal ids")
    func keyIDFromBytes() throws {
        let bytes: [UInt8] = [0, 1, 0xab, 0xcd, 0xef, 0x10, 0x7f, 0xff]
        let id = try KeyID(bytes: bytes)
        #expect(id.bytes == bytes)
        #expect(id.description == "0001abcdef107fff")
        #expect(id == (try KeyID(hex: "0001ABCDEF107FFF")))
        #expect(Set([id, try KeyID(bytes: bytes), try KeyID(bytes: flipping(bytes, at: 7))]).count == 2)
    }
}

@Suite("Hex")
struct HexTests {
    @Test("encodeHex writes lowercase pairs")
    func encode() {
        #expect(encodeHex([0x00, 0x0f, 0xa5, 0xff, 0x10]) == "000fa5ff10")
        #expect(encodeHex([UInt8]()) == "")
        #expect(encodeHex((0...255).map { UInt8($0) }).count == 512)
    }

    @Test("decodeHex reads both cases and inverts encodeHex")
    func decode() throws {
        #expect(try decodeHex("000FA5ff10") == [0x00, 0x0f, 0xa5, 0xff, 0x10])
        let all = (0...255).map { UInt8($0) }
        #expect(try decodeHex(encodeHex(all)) == all)
        #expect(try decodeHex("") == [])
    }

    @Test("decodeHex rejects odd lengths and non-hex", arguments: ["a", "abc", "gg", "0g", "g0", "-1", "  ", "0x"])
    func decodeRejects(text: String) {
        #expect(throws: CryptoError.malformed) { try decodeHex(text) }
    }
}
