import Testing
@testable import Keystore
import VaultCrypto

@Suite struct StoredKeyLayoutTests {
    @Test func encodesMagicVersionBigEndianExpiryAndKey() throws {
        let key = try VaultKey.generate()
        let secret = try StoredKeyLayout.encode(key, expiresAtMilliseconds: 0x0102_0304_0506_0708)
        let bytes = secret.withUnsafeBytes { Array($0) }
        #expect(bytes.count == 45)
        #expect(Array(bytes[0..<4]) == Array("BMVK".utf8))
        #expect(bytes[4] == 0x01)
        #expect(Array(bytes[5..<13]) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Array(bytes[13..<45]) == rawBytes(key))
    }

    @Test func decodesWhatItEncodes() throws {
        let key = try VaultKey.generate()
        let secret = try StoredKeyLayout.encode(key, expiresAtMilliseconds: -42)
        let decoded = try secret.withUnsafeBytes { (bytes) throws(KeystoreError) -> StoredKeyLayout.Decoded in
            try StoredKeyLayout.decode(bytes)
        }
        #expect(decoded.key.id == key.id)
        #expect(decoded.expiresAtMilliseconds == -42)
    }

    @Test(arguments: [0, 4, 5, 12, 13, 44])
    func rejectsAnyFlippedHeaderOrTruncation(position: Int) throws {
        let key = try VaultKey.generate()
        var bytes = try StoredKeyLayout.encode(key, expiresAtMilliseconds: 1).withUnsafeBytes { Array($0) }
        defer { wipe(&bytes) }
        // Truncating at `position` always breaks the layout.
        #expect(layoutError(Array(bytes[0..<position])) == .malformedItem)
        // Flipping a magic or version byte does too; an expiry or key byte does not.
        bytes[position] ^= 0xff
        #expect(layoutError(bytes) == (position < 5 ? .malformedItem : nil))
    }
}
