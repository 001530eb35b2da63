internal import CSodium

/// A random 160-bit key shown once at `init`: the way back in when the passphrase is lost.
///
/// Written as 36 Crockford base32 characters in six groups of six: 32 characters carry the
/// key and 4 carry a 20-bit BLAKE2b checksum, so a mistyped character is caught before any
/// unlock is attempted. Parsing ignores case, spaces and hyphens, and reads O as 0, I and L as 1.
public final class RecoveryKey {
    static let keyCount = 20
    static let characterCount = 36
    static let groupSize = 6
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    let bytes: SecretBytes

    private init(bytes: SecretBytes) {
        self.bytes = bytes
    }

    /// A fresh recovery key.
    public static func generate() throws(CryptoError) -> RecoveryKey {
        try RecoveryKey(bytes: SecretBytes.random(count: keyCount))
    }

    /// Parses what the reader typed. Never echoes the input in an error.
    public convenience init(parsing text: SecretBytes) throws(CryptoError) {
        let symbols = try SecretBytes(count: Self.characterCount)
        var found = 0
        try text.withUnsafeBytes { (input) throws(CryptoError) in
            try symbols.withUnsafeMutableBytes { (out) throws(CryptoError) in
                for character in input {
                    if character == UInt8(ascii: "-") || character == UInt8(ascii: " ")
                        || character == UInt8(ascii: "\t") || character == UInt8(ascii: "\n") || character == UInt8(ascii: "\r") {
                        continue
                    }
                    guard found < Self.characterCount, let value = Self.symbolValue(character) else {
                        throw CryptoError.invalidRecoveryKey
                    }
                    out[found] = value
                    found += 1
                }
            }
        }
        guard found == Self.characterCount else { throw .invalidRecoveryKey }

        // 36 symbols × 5 bits = 180 bits: 160 bits of key, then 20 bits of checksum.
        let packed = try SecretBytes(count: 23)
        symbols.withUnsafeBytes { values in
            packed.withUnsafeMutableBytes { out in
                var bitIndex = 0
                for value in values {
                    for bit in (0..<5).reversed() where (value >> UInt8(bit)) & 1 == 1 {
                        out[(bitIndex + 4 - bit) / 8] |= 0x80 >> UInt8((bitIndex + 4 - bit) % 8)
                    }
                    bitIndex += 5
                }
            }
        }
        let key = try SecretBytes(count: Self.keyCount)
        let checksumMatches = packed.withUnsafeBytes { packedBytes in
            key.withUnsafeMutableBytes { out in
                out.copyMemory(from: UnsafeRawBufferPointer(rebasing: packedBytes[0..<Self.keyCount]))
            }
            let expected = Self.checksum(of: key)
            return packedBytes[20] == expected[0] && packedBytes[21] == expected[1]
                && packedBytes[22] & 0xf0 == expected[2] & 0xf0
        }
        guard checksumMatches else { throw .recoveryKeyChecksumFailed }
        self.init(bytes: key)
    }

    /// The display form, `XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX`, in secure memory.
    public func formatted() throws(CryptoError) -> SecretBytes {
        let packed = try SecretBytes(count: 23)
        let checksum = Self.checksum(of: bytes)
        packed.withUnsafeMutableBytes { out in
            bytes.withUnsafeBytes { key in
                out.copyMemory(from: key)
            }
            out[20] = checksum[0]
            out[21] = checksum[1]
            out[22] = checksum[2] & 0xf0
        }
        let groups = Self.characterCount / Self.groupSize
        let text = try SecretBytes(count: Self.characterCount + groups - 1)
        packed.withUnsafeBytes { input in
            text.withUnsafeMutableBytes { out in
                var position = 0
                for symbol in 0..<Self.characterCount {
                    if symbol > 0 && symbol % Self.groupSize == 0 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    var value: UInt8 = 0
                    for bit in 0..<5 {
                        let bitIndex = symbol * 5 + bit
                        let isSet = input[bitIndex / 8] & (0x80 >> UInt8(bitIndex % 8)) != 0
                        value = value << 1 | (isSet ? 1 : 0)
                    }
                    out[position] = Self.alphabet[Int(value)]
                    position += 1
                }
            }
        }
        return text
    }

    private static func symbolValue(_ character: UInt8) -> UInt8? {
        var upper = character
        if upper >= UInt8(ascii: "a") && upper <= UInt8(ascii: "z") { upper -= 32 }
        switch upper {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return alphabet.firstIndex(of: upper).map { UInt8($0) }
        }
    }

    private static func checksum(of key: SecretBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MIN))
        let label = Array("bmvault recovery checksum v1".utf8)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(&digest, digest.count, label, UInt64(label.count),
                                   keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        return digest
    }
}
