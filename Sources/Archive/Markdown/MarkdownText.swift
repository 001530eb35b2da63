#if canImport(Glibc)
import Glibc
#endif

/// How journal text is written into Markdown so that it reads (and renders) as the reader
/// wrote it, and reads back exactly: the escaping of archive format version 1, which every
/// format still uses for what is not the reader's Markdown (a title in a heading, a
/// locator line). Format 2 writes the text of notes and quotes as it is (``MarkdownBody``).
///
/// - A backslash before ASCII punctuation is an escape (CommonMark's rule), so the writer
///   may put one before any punctuation it needs to neutralise: `` ` * _ [ < # $ | ~ `` always;
///   `> - + =` and the `.` or `)` after leading digits at the start of a line; `&` before a
///   letter, digit or `#`; `%%` and `==`. A backslash of the text itself is doubled where it
///   stands before punctuation or at the end of a line.
/// - Numeric character references (`&#32;`) carry what Markdown or an editor would change:
///   a space or tab at the start or end of a line, control characters, U+2028/U+2029,
///   U+FEFF, an em dash starting a line (it marks a locator line), and each line break
///   before the first line with text.
/// - Reading back undoes both, and also `&amp; &lt; &gt; &quot; &apos; &nbsp;` a reader
///   may type.
enum MarkdownText {
    /// Where the line starting at `start` ends: its line break, or the end of the text.
    static func lineEnd(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = utf8.baseAddress, start < utf8.count,
              let found = memchr(base + start, 0x0A, utf8.count - start) else { return utf8.count }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// One line of text (a locator, a title in a heading) placed after other text on a line.
    static func inline(_ text: String) -> String {
        escapeLine(text, atLineStart: false)
    }

    /// Appends ``inline(_:)`` of `text` to `out`.
    static func appendInline(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { escapeLine($0, atLineStart: false, into: &out) }
    }

    /// The text of a note's or quote's lines as format 1 wrote them (or as the reader typed them).
    static func body(_ lines: some Collection<Substring>) -> String {
        lines.map(unescape).joined(separator: "\n")
    }

    static func escapeLine(_ line: String, atLineStart: Bool) -> String {
        var out: [UInt8] = []
        var line = line
        line.withUTF8 { escapeLine($0, atLineStart: atLineStart, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes one line's UTF-8 (no line break in it) onto `out`. Works on bytes: every rule
    /// is about ASCII characters or a few fixed multi-byte sequences, and a journal of
    /// 100,000 notes must export in seconds. Letters, digits, inner spaces and most
    /// non-ASCII bytes need nothing, so runs of them are copied at once.
    static func escapeLine(_ bytes: UnsafeBufferPointer<UInt8>, atLineStart: Bool, into out: inout [UInt8]) {
        let count = bytes.count
        // Digits then `.` or `)` at the start of a line would begin an ordered list.
        var listMarker = -1
        if atLineStart {
            var index = 0
            while index < count, index < 9, isDigit(bytes[index]) { index += 1 }
            if index > 0, index < count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ")") { listMarker = index }
        }
        var plainStart = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            let isFirst = atLineStart && index == 0
            // What no rule escapes here: letters, digits, most non-ASCII bytes, the punctuation
            // Markdown gives no meaning to, and (away from where they would) spaces, `.`, `)`,
            // `-`, `>` and `+`. Everything else goes through ``appendEscaped``.
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x80...0xC1, 0xC3...0xE1, 0xE3...0xEE, 0xF0...0xFF,
                 UInt8(ascii: "!"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ","), UInt8(ascii: "/"),
                 UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "]"), UInt8(ascii: "^"),
                 UInt8(ascii: "{"), UInt8(ascii: "}"):
                index += 1
                continue
            case 0x20 where !isFirst && index != count - 1:
                index += 1
                continue
            case UInt8(ascii: ".") where index != listMarker, UInt8(ascii: ")") where index != listMarker:
                index += 1
                continue
            case UInt8(ascii: "-") where !isFirst, UInt8(ascii: ">") where !isFirst, UInt8(ascii: "+") where !isFirst:
                index += 1
                continue
            default:
                break
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
            index += appendEscaped(bytes, at: index, isFirst: isFirst, listMarker: listMarker, into: &out)
            plainStart = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<count]))
    }

    /// Appends the character at `index` of a line, escaped if it must be; how many bytes it took.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, isFirst: Bool, listMarker: Int,
                                      into out: inout [UInt8]) -> Int {
        let count = bytes.count
        let byte = bytes[index]
        let next: UInt8? = index + 1 < count ? bytes[index + 1] : nil
        if (byte == 0x20 || byte == 0x09) && (isFirst || index == count - 1) {
            reference(UInt32(byte), &out)
            return 1
        }
        if isFirst, byte == 0xE2, next == 0x80, index + 2 < count, bytes[index + 2] == 0x94 {
            reference(0x2014, &out)   // an em dash starting a line marks a locator line
            return 3
        }
        if let (value, length) = referenced(bytes, at: index) {
            reference(value, &out)
            return length
        }
        var escape = false
        switch byte {
        case UInt8(ascii: "\\"):
            // Before punctuation or a reference (`&#...;`) a backslash would read as an escape.
            escape = next.map { isASCIIPunctuation($0) || referenced(bytes, at: index + 1) != nil
                || (index + 1 == count - 1 && ($0 == 0x20 || $0 == 0x09)) } ?? true
        case UInt8(ascii: "`"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "<"),
             UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            escape = true
        case UInt8(ascii: ">"), UInt8(ascii: "-"), UInt8(ascii: "+"):
            escape = isFirst
        case UInt8(ascii: "="):
            escape = isFirst || next == UInt8(ascii: "=")
        case UInt8(ascii: "%"):
            escape = next == UInt8(ascii: "%")
        case UInt8(ascii: "&"):
            escape = next.map { isDigit($0) || isASCIILetter($0) || $0 == UInt8(ascii: "#") } ?? false
        case UInt8(ascii: "."), UInt8(ascii: ")"):
            escape = listMarker == index
        default:
            break
        }
        if escape { out.append(UInt8(ascii: "\\")) }
        out.append(byte)
        return 1
    }

    /// A scalar at `index` that is written as a numeric reference, and its UTF-8 length:
    /// control characters but tab, U+2028, U+2029, U+FEFF.
    static func referenced(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int)? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return (UInt32(byte), 1) }
        guard byte >= 0xC2, index + 1 < bytes.count else { return nil }
        let second = bytes[index + 1]
        if byte == 0xC2, (0x80...0x9F).contains(second) { return (UInt32(second), 2) }
        guard index + 2 < bytes.count else { return nil }
        let third = bytes[index + 2]
        if byte == 0xE2, second == 0x80, third == 0xA8 || third == 0xA9 { return (third == 0xA8 ? 0x2028 : 0x2029, 3) }
        if byte == 0xEF, second == 0xBB, third == 0xBF { return (0xFEFF, 3) }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isASCIILetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// Undoes the escaping of one line.
    static func unescape(_ line: Substring) -> String {
        let scalars = Array(line.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\", index + 1 < scalars.count, isASCIIPunctuation(scalars[index + 1]) {
                out.append(scalars[index + 1])
                index += 2
                continue
            }
            if scalar == "&", let (decoded, length) = characterReference(scalars, at: index) {
                out.append(decoded)
                index += length
                continue
            }
            out.append(scalar)
            index += 1
        }
        return String(out)
    }

    /// One line with its character references (`&#32;`, `&#x20;`, `&amp;`) decoded, and
    /// nothing else changed: a text format 2 wrote with references (``MarkdownBody``).
    static func decodingReferences(_ line: Substring) -> String {
        guard line.utf8.contains(UInt8(ascii: "&")) else { return String(line) }
        let scalars = Array(line.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == "&", let (decoded, length) = characterReference(scalars, at: index) {
                out.append(decoded)
                index += length
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    // MARK: - YAML

    /// A YAML double-quoted scalar: `"` and `\` escaped, and anything YAML does not allow
    /// raw as `\u`/`\U` (one-line fields hold no control characters, but the format does not
    /// depend on that).
    static func yamlString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if isYAMLPrintable(scalar) {
                    out.unicodeScalars.append(scalar)
                } else {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += scalar.value > 0xFFFF ? "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
                        : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }
        }
        return out + "\""
    }

    // MARK: - Helpers

    static func isASCIIPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && isASCIIPunctuation(UInt8(scalar.value))
    }

    static func isASCIIPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E: return true
        default: return false
        }
    }

    private static func reference(_ value: UInt32, _ out: inout [UInt8]) {
        out.append(contentsOf: "&#\(value);".utf8)
    }

    private static let namedReferences: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    /// A character reference starting at `index` (`&#32;`, `&#x20;`, `&amp;`): the scalar it
    /// stands for and its length.
    private static func characterReference(_ scalars: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
        var end = index + 1
        while end < scalars.count, end - index <= 12, scalars[end] != ";" { end += 1 }
        guard end < scalars.count, scalars[end] == ";" else { return nil }
        let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
        let length = end - index + 1
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            guard let value = UInt32(name.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, length)
        }
        if name.hasPrefix("#") {
            guard let value = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, length)
        }
        return namedReferences[name].map { ($0, length) }
    }

    private static func isYAMLPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return scalar.value != 0xFEFF
        default: return false
        }
    }
}
