/// How a note's or quote's text is written between its markers, by archive format version.
///
/// Format 2 writes the reader's text as it is, so their Markdown (`*loved*`, links, lists,
/// `#idea`) renders in a note tool, and reads back exactly line by line. Only a text that
/// Markdown tools or the archive's own layout would change is written with character
/// references, and its marker says so (`text=references`):
///
/// - a space or tab ending a line (editors strip them), a line break before the first line
///   with text, control characters, U+2028, U+2029, U+FEFF;
/// - `<!--` anywhere (it would hide the rest of the file, or read as a marker);
/// - an em dash starting the last line (it would read as the locator line).
///
/// In such a text every `&` is written `&amp;`, `<` of `<!--` as `&lt;`, an em dash starting
/// a line as `&#8212;`, and the rest as `&#N;`; reading it back decodes every reference. A
/// text without the mark is taken exactly as its lines stand.
enum MarkdownBody {
    enum Encoding {
        /// Format 1: every text escaped (``MarkdownText``).
        case escaped
        /// Format 2: the text as it is.
        case plain
        /// Format 2, `text=references`: character references are bmvault's, decoded on reading.
        case references
    }

    /// The marker attribute of a text written with ``Encoding/references``.
    static let referencesAttribute = (key: "text", value: "references")

    /// How format 2 writes `body`: ``Encoding/plain`` unless something in it needs a reference.
    static func encoding(of body: String) -> Encoding {
        var body = body
        return body.withUTF8 { needsReferences($0) } ? .references : .plain
    }

    /// Appends `body` as lines, each ending in a line break; `quoted` lines begin `> `
    /// (`>` alone when empty), as in a blockquote.
    static func append(_ body: String, encoding: Encoding, quoted: Bool, to out: inout [UInt8]) {
        precondition(encoding != .escaped, "format 1 is read, never written")
        var body = body
        body.withUTF8 { utf8 in
            var leadingBreaks = 0
            if encoding == .references { while leadingBreaks < utf8.count, utf8[leadingBreaks] == 0x0A { leadingBreaks += 1 } }
            var lineStart = leadingBreaks
            var first = true
            while true {
                let lineEnd = MarkdownText.lineEnd(in: utf8, from: lineStart)
                let line = UnsafeBufferPointer(rebasing: utf8[lineStart..<lineEnd])
                if quoted { out.append(ascii: line.isEmpty && !(first && leadingBreaks > 0) ? ">" : "> ") }
                if first { for _ in 0..<leadingBreaks { out.append(ascii: "&#10;") } }
                if encoding == .references { appendReferenced(line, into: &out) } else { out.append(contentsOf: line) }
                out.append(0x0A)
                first = false
                guard lineEnd < utf8.count else { break }
                lineStart = lineEnd + 1
            }
        }
    }

    /// The text of lines written by ``append(_:encoding:quoted:to:)`` (quote marks already
    /// stripped), or typed by the reader.
    static func text(_ lines: some Collection<Substring>, encoding: Encoding) -> String {
        switch encoding {
        case .escaped: MarkdownText.body(lines)
        case .plain: lines.joined(separator: "\n")
        case .references: lines.map(MarkdownText.decodingReferences).joined(separator: "\n")
        }
    }

    // MARK: - Format 2 with references

    private static func needsReferences(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count > 0 else { return false }
        if bytes[0] == 0x0A { return true }
        var lastLineStart = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            switch byte {
            case 0x0A:
                if index > 0, bytes[index - 1] == 0x20 || bytes[index - 1] == 0x09 { return true }
                lastLineStart = index + 1
            case UInt8(ascii: "<"):
                if isCommentOpening(bytes, at: index) { return true }
            case 0x00...0x1F where byte != 0x09, 0x7F, 0xC2, 0xE2, 0xEF:
                if MarkdownText.referenced(bytes, at: index) != nil { return true }
            default:
                break
            }
            index += 1
        }
        if bytes[count - 1] == 0x20 || bytes[count - 1] == 0x09 { return true }
        return isEmDash(bytes, at: lastLineStart)
    }

    /// One line with every `&`, `<!--`, leading em dash, last space or tab and character
    /// ``MarkdownText`` writes as a number, as a reference.
    private static func appendReferenced(_ line: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var index = 0
        if isEmDash(line, at: 0) {
            out.append(ascii: "&#8212;")
            index = 3
        }
        while index < line.count {
            let byte = line[index]
            if let (value, length) = MarkdownText.referenced(line, at: index) {
                out.append(contentsOf: "&#\(value);".utf8)
                index += length
                continue
            }
            if index == line.count - 1, byte == 0x20 || byte == 0x09 {
                out.append(ascii: byte == 0x20 ? "&#32;" : "&#9;")
            } else if byte == UInt8(ascii: "&") {
                out.append(ascii: "&amp;")
            } else if byte == UInt8(ascii: "<"), isCommentOpening(line, at: index) {
                out.append(ascii: "&lt;")
            } else {
                out.append(byte)
            }
            index += 1
        }
    }

    private static func isCommentOpening(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 3 < bytes.count && bytes[index + 1] == UInt8(ascii: "!") && bytes[index + 2] == UInt8(ascii: "-")
            && bytes[index + 3] == UInt8(ascii: "-")
    }

    private static func isEmDash(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 2 < bytes.count && bytes[index] == 0xE2 && bytes[index + 1] == 0x80 && bytes[index + 2] == 0x94
    }
}
