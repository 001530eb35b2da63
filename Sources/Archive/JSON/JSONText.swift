/// Canonical JSON text, written byte by byte so two exports of one vault are identical:
/// strings escaped the same way every time, numbers in their shortest exact form.
enum JSONText {
    /// Appends `text` as a JSON string. `"` and `\` are escaped, as are C0 controls (JSON
    /// requires it), DEL and the C1 controls (so `less` and terminals show an escape, not a
    /// control), and U+2028/U+2029 (which end lines in JavaScript). Everything else,
    /// non-ASCII included, is written as it is.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var utf8 = text.utf8.makeIterator()
        var pending: UInt8?
        while let byte = pending ?? utf8.next() {
            pending = nil
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x00..<0x20, 0x7F: appendUnicodeEscape(UInt32(byte), to: &out)
            case 0xC2:
                // U+0080...U+009F are C2 80...C2 9F in UTF-8.
                guard let next = utf8.next() else { out.append(byte); break }
                if (0x80...0x9F).contains(next) {
                    appendUnicodeEscape(UInt32(next), to: &out)
                } else {
                    out.append(byte)
                    pending = next
                }
            case 0xE2:
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                guard let second = utf8.next() else { out.append(byte); break }
                guard second == 0x80, let third = utf8.next() else {
                    out.append(byte)
                    pending = second
                    break
                }
                if third == 0xA8 || third == 0xA9 {
                    appendUnicodeEscape(third == 0xA8 ? 0x2028 : 0x2029, to: &out)
                } else {
                    out.append(contentsOf: [byte, second])
                    pending = third
                }
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendUnicodeEscape(_ value: UInt32, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [0x5C, UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
    }

    /// A number: integral values without a fraction (`42`), others in Swift's shortest
    /// form that reads back to the same Double (`42.5`).
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A string as JSON text, for small documents such as the manifest.
    static func string(_ text: String) -> String {
        var out: [UInt8] = []
        appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
