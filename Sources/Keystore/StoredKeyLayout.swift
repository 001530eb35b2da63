internal import VaultCrypto

/// The bytes of a keystore item's secret, version 1, 45 bytes:
///
///     "BMVK" (4) | layout version 0x01 (1) | expiresAt ms, Int64 big-endian (8) | key (32)
///
/// The expiry travels inside the secret, not in an attribute: attributes are stored and
/// sent in clear, and anyone on the session bus could otherwise edit them to extend it.
enum StoredKeyLayout {
    static let magic: [UInt8] = Array("BMVK".utf8)
    static let version: UInt8 = 1
    static let versionOffset = 4
    static let expiryOffset = 5
    static let keyOffset = 13
    static let byteCount = keyOffset + VaultKey.byteCount

    /// The content type the Secret Service records with the secret; informational only.
    static let contentType = "application/octet-stream"

    /// A decoded secret: the key already in sodium memory, and its expiry.
    struct Decoded {
        let key: VaultKey
        let expiresAtMilliseconds: Int64
    }

    /// Builds the secret inside sodium memory, never in a Swift Array or String.
    static func encode(_ key: VaultKey, expiresAtMilliseconds: Int64) throws(KeystoreError) -> SecretBytes {
        let buffer: SecretBytes
        do {
            buffer = try SecretBytes(count: byteCount)
        } catch {
            throw .crypto(error)
        }
        buffer.withUnsafeMutableBytes { out in
            for (index, byte) in magic.enumerated() { out[index] = byte }
            out[versionOffset] = version
            withUnsafeBytes(of: expiresAtMilliseconds.bigEndian) { expiry in
                UnsafeMutableRawBufferPointer(rebasing: out[expiryOffset..<keyOffset]).copyMemory(from: expiry)
            }
            key.withUnsafeBytes { keyBytes in
                UnsafeMutableRawBufferPointer(rebasing: out[keyOffset..<byteCount]).copyMemory(from: keyBytes)
            }
        }
        return buffer
    }

    /// Reads a secret as the Secret Service handed it out. The key bytes are copied straight into a
    /// fresh `SecretBytes`; anything that is not exactly this layout is `.malformedItem`.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(KeystoreError) -> Decoded {
        guard bytes.count == byteCount,
              bytes.prefix(magic.count).elementsEqual(magic),
              bytes[versionOffset] == version
        else { throw .malformedItem }
        let expiry = Int64(bigEndian: bytes.loadUnaligned(fromByteOffset: expiryOffset, as: Int64.self))
        do {
            let keyBytes = try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[keyOffset..<byteCount]))
            return Decoded(key: try VaultKey(bytes: keyBytes), expiresAtMilliseconds: expiry)
        } catch {
            throw .crypto(error)
        }
    }
}
