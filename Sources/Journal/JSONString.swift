/// The journal's text as a JSON string, written byte by byte the same way everywhere bmvault
/// writes JSON (archives, operations for other devices), so equal text is always equal bytes.
public enum JSONString {
    /// Appends `text` as a JSON string. `"` and `\` are escaped, as are C0 controls (JSON
    /// requires it), DEL and the C1 controls (so `less` and terminals show an escape, not a
    /// control), and U+2028/U+2029 (which end lines in JavaScript). Everything else,
    /// non-ASCII included, is written as it is.
    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append(utf8: $0, to: &out) }
    }

    /// A JSON array of `texts`, each escaped as ``append(_:to:)`` does (a book's authors).
    public static func array(_ texts: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, text) in texts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            append(text, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The UTF-8 of a string, escaped as ``append(_:to:)`` does. Runs of bytes that need no
    /// escape (nearly all of a note) are copied at once.
    private static func append(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var plainStart = 0
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while none needs a look (most of any text in a Latin
            // script): then the loop below runs only near an escape or a non-ASCII letter.
            if index + 8 <= bytes.count, let base = bytes.baseAddress,
               !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = bytes[index]
            // Printable ASCII but `"` and `\`: most of any text, decided in one test.
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            guard let (escape, length) = escape(in: bytes, at: index) else {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
            switch escape {
            case .short(let letter): out.append(contentsOf: [0x5C, letter])
            case .unicode(let value): appendUnicodeEscape(value, to: &out)
            }
            index += length
            plainStart = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart...]))
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` may need an escape or a closer look: a byte
    /// below 0x20, `"`, `\`, 0x7F or any byte with the high bit set. Never false for such a
    /// word; true for a few others (the byte loop then decides).
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> Bool { (x &- ones &* n) & ~x & highBits != 0 }
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return hasByteBelow(word, 0x20) || hasByteBelow(quote, 1) || hasByteBelow(backslash, 1)
            || (word | (word &+ ones)) & highBits != 0
    }

    private enum Escape {
        /// `\"`, `\\`, `\n`, `\t`, `\r`.
        case short(UInt8)
        /// `\u` and four hex digits.
        case unicode(UInt32)
    }

    /// The escape for the character starting at `index`, and how many bytes it replaces;
    /// nil for a byte written as it is.
    @inline(__always)
    private static func escape(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Escape, Int)? {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): return (.short(byte), 1)
        case 0x0A: return (.short(UInt8(ascii: "n")), 1)
        case 0x09: return (.short(UInt8(ascii: "t")), 1)
        case 0x0D: return (.short(UInt8(ascii: "r")), 1)
        case 0x00..<0x20, 0x7F: return (.unicode(UInt32(byte)), 1)
        case 0xC2:
            // U+0080...U+009F are C2 80...C2 9F in UTF-8.
            guard index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) else { return nil }
            return (.unicode(UInt32(bytes[index + 1])), 2)
        case 0xE2:
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
            guard index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 else { return nil }
            return (.unicode(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029), 3)
        default:
            return nil
        }
    }

    private static func appendUnicodeEscape(_ value: UInt32, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [0x5C, UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
    }
}
