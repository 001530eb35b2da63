/// Lowercase hexadecimal, for public values only (ids, digests), never for secrets.
public func encodeHex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Parses lowercase or uppercase hexadecimal.
func decodeHex(_ text: String) throws(CryptoError) -> [UInt8] {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { throw .malformed }
    func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    var bytes = [UInt8]()
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { throw .malformed }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}
