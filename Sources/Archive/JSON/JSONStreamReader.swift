import Journal

/// A pull parser for one JSON file, read as a stream: the caller walks the outer object and
/// arrays (``beginObject()``, ``nextKey()``, ``beginArray()``, ``nextElement()``) and reads
/// each record whole (``readValue()``), so memory holds one record at a time however large
/// the journal is. Errors name the file and line, and a fixed reason, never the text.
///
/// Strict RFC 8259: no comments, no trailing commas, no duplicate keys; strings must be
/// UTF-8; a UTF-8 byte order mark at the start is allowed.
final class JSONStreamReader {
    /// Deeper than any record bmvault writes; bounds recursion on hostile input.
    static let maximumDepth = 32
    /// Larger than any text a record may hold (a body is at most 1 MiB), so a damaged file
    /// cannot make one value take unbounded memory.
    static let maximumStringBytes = 4 << 20
    static let maximumMembers = 100_000

    private let bytes: FileBytes
    /// For each container opened with ``beginObject()`` or ``beginArray()``: no member read yet.
    private var isFirst: [Bool] = []
    private var scratch: [UInt8] = []

    var file: String { bytes.displayName }
    var line: Int { bytes.line }

    init(path: String, displayName: String, followingLinks: Bool = false) throws(ArchiveError) {
        bytes = try FileBytes(path: path, displayName: displayName, followingLinks: followingLinks)
        // A byte order mark some editors add.
        if try bytes.peek() == 0xEF {
            for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
                guard try bytes.next() == expected else { throw malformed("unexpected character") }
            }
        }
    }

    // MARK: - Walking containers

    func beginObject() throws(ArchiveError) {
        try expect(UInt8(ascii: "{"), "expected an object")
        isFirst.append(true)
    }

    /// The next key of the innermost open object (its `:` consumed), or nil at its end.
    func nextKey() throws(ArchiveError) -> String? {
        guard try nextMember(closing: UInt8(ascii: "}"), "expected ',' or '}'") else { return nil }
        guard try peekSignificant() == UInt8(ascii: "\"") else { throw malformed("expected a string key") }
        bytes.advance()
        let key = try readStringBody()
        try expect(UInt8(ascii: ":"), "expected ':'")
        return key
    }

    func beginArray() throws(ArchiveError) {
        try expect(UInt8(ascii: "["), "expected an array")
        isFirst.append(true)
    }

    /// True when the innermost open array has another element (ready to be read).
    func nextElement() throws(ArchiveError) -> Bool {
        try nextMember(closing: UInt8(ascii: "]"), "expected ',' or ']'")
    }

    /// After the outer value: only white space may follow.
    func finish() throws(ArchiveError) {
        guard try peekSignificant() == nil else { throw malformed("unexpected data after the end of the document") }
    }

    /// The line where the next value starts (after white space).
    func lineOfNextValue() throws(ArchiveError) -> Int {
        _ = try peekSignificant()
        return bytes.line
    }

    private func nextMember(closing: UInt8, _ reason: String) throws(ArchiveError) -> Bool {
        guard let byte = try peekSignificant() else { throw truncated() }
        if byte == closing {
            bytes.advance()
            isFirst.removeLast()
            return false
        }
        if isFirst[isFirst.count - 1] {
            isFirst[isFirst.count - 1] = false
        } else {
            guard byte == UInt8(ascii: ",") else { throw malformed(reason) }
            bytes.advance()
        }
        return true
    }

    // MARK: - Values

    /// Reads one whole value.
    func readValue() throws(ArchiveError) -> JSONValue {
        try readValue(depth: 0)
    }

    /// Passes over one value without keeping it (a member a newer bmvault added).
    func skipValue() throws(ArchiveError) {
        _ = try readValue(depth: 0, keep: false)
    }

    private func readValue(depth: Int, keep: Bool = true) throws(ArchiveError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw malformed("values nested too deeply") }
        guard let byte = try peekSignificant() else { throw truncated() }
        switch byte {
        case UInt8(ascii: "{"):
            bytes.advance()
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(16)   // a record has 5 to 11 members: no growing
            var first = true
            while true {
                guard let next = try peekSignificant() else { throw truncated() }
                if next == UInt8(ascii: "}") { bytes.advance(); break }
                if !first {
                    guard next == UInt8(ascii: ",") else { throw malformed("expected ',' or '}'") }
                    bytes.advance()
                }
                first = false
                guard try peekSignificant() == UInt8(ascii: "\"") else { throw malformed("expected a string key") }
                bytes.advance()
                let key = try readStringBody()
                try expect(UInt8(ascii: ":"), "expected ':'")
                let value = try readValue(depth: depth + 1, keep: keep)
                if keep {
                    guard members.updateValue(value, forKey: key) == nil else { throw malformed("a key appears twice in one object") }
                    guard members.count <= Self.maximumMembers else { throw malformed("an object has too many members") }
                }
            }
            return keep ? .object(members) : .null
        case UInt8(ascii: "["):
            bytes.advance()
            var elements: [JSONValue] = []
            var first = true
            while true {
                guard let next = try peekSignificant() else { throw truncated() }
                if next == UInt8(ascii: "]") { bytes.advance(); break }
                if !first {
                    guard next == UInt8(ascii: ",") else { throw malformed("expected ',' or ']'") }
                    bytes.advance()
                }
                first = false
                let element = try readValue(depth: depth + 1, keep: keep)
                if keep {
                    elements.append(element)
                    guard elements.count <= Self.maximumMembers else { throw malformed("an array has too many elements") }
                }
            }
            return keep ? .array(elements) : .null
        case UInt8(ascii: "\""):
            bytes.advance()
            return .string(try readStringBody())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try readNumber())
        default:
            throw malformed("expected a value")
        }
    }

    /// The rest of a string whose opening quote was consumed.
    private func readStringBody() throws(ArchiveError) -> String {
        let startLine = bytes.line
        // Worked on as a local (then put back for the next string), not as a property:
        // millions of strings, each touched many times.
        var text = scratch
        scratch = []
        text.removeAll(keepingCapacity: true)
        defer { scratch = text }
        while true {
            guard let byte = try bytes.copyStringRun(into: &text) else { throw truncated() }
            guard text.count <= Self.maximumStringBytes else { throw malformed("a string is longer than any record allows") }
            bytes.advance()
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(utf8Bytes: text) else {
                    throw .invalidUTF8(file: file, line: startLine)
                }
                return string
            case UInt8(ascii: "\\"):
                try readEscape(into: &text)
            default:
                throw .malformed(file: file, line: startLine, reason: "a control character inside a string (it must be escaped)")
            }
        }
    }

    private func readEscape(into text: inout [UInt8]) throws(ArchiveError) {
        guard let byte = try bytes.next() else { throw truncated() }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var value = try readHex4()
            if (0xD800...0xDBFF).contains(value) {
                guard try bytes.next() == UInt8(ascii: "\\"), try bytes.next() == UInt8(ascii: "u") else {
                    throw malformed("an unpaired surrogate in a \\u escape")
                }
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw malformed("an unpaired surrogate in a \\u escape") }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else { throw malformed("an unpaired surrogate in a \\u escape") }
            text.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw malformed("an invalid escape in a string")
        }
    }

    private func readHex4() throws(ArchiveError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try bytes.next() else { throw truncated() }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("an invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private func readNumber() throws(ArchiveError) -> String {
        var text: [UInt8] = []
        func digits() throws(ArchiveError) -> Int {
            var count = 0
            while let byte = try bytes.peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                text.append(byte)
                bytes.advance()
                count += 1
            }
            return count
        }
        if try bytes.peek() == UInt8(ascii: "-") { text.append(UInt8(ascii: "-")); bytes.advance() }
        if try bytes.peek() == UInt8(ascii: "0") {
            text.append(UInt8(ascii: "0"))
            bytes.advance()
        } else {
            guard try digits() > 0 else { throw malformed("an invalid number") }
        }
        if try bytes.peek() == UInt8(ascii: ".") {
            text.append(UInt8(ascii: "."))
            bytes.advance()
            guard try digits() > 0 else { throw malformed("an invalid number") }
        }
        if let byte = try bytes.peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            text.append(byte)
            bytes.advance()
            if let sign = try bytes.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                text.append(sign)
                bytes.advance()
            }
            guard try digits() > 0 else { throw malformed("an invalid number") }
        }
        guard text.count <= 64 else { throw malformed("an invalid number") }
        return String(decoding: text, as: UTF8.self)
    }

    private func literal(_ word: StaticString) throws(ArchiveError) {
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard let byte = try bytes.next() else { throw truncated() }
            guard byte == expected else { throw malformed("expected a value") }
        }
    }

    // MARK: - Bytes

    /// The next byte that is not JSON white space, not consumed; nil at the end.
    private func peekSignificant() throws(ArchiveError) -> UInt8? {
        try bytes.skipWhitespace()
    }

    private func expect(_ expected: UInt8, _ reason: String) throws(ArchiveError) {
        guard let byte = try peekSignificant() else { throw truncated() }
        guard byte == expected else { throw malformed(reason) }
        bytes.advance()
    }

    private func malformed(_ reason: String) -> ArchiveError {
        .malformed(file: file, line: bytes.line, reason: reason)
    }

    private func truncated() -> ArchiveError {
        .truncated(file: file, line: bytes.line)
    }
}
