/// A value of a Lua table literal, as KOReader writes its sidecar files (`return { ... }`).
///
/// why not liblua: loading a chunk with it means running it, and a sidecar is a file from a
/// device, which could hold any code. This reads the literal subset as data only: strings
/// (all of Lua's escapes, long brackets), numbers, booleans, nil and nested tables with
/// `[key] =`, `name =` or positional fields; anything else (a call, an operator, a name as
/// a value) is an error, never evaluated.
public enum LuaValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    /// Fields in file order; keys are strings or numbers (positional fields are numbered 1, 2, ...).
    case table([(key: LuaKey, value: LuaValue)])

    public static func == (lhs: LuaValue, rhs: LuaValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        case let (.table(a), .table(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    public subscript(key: String) -> LuaValue? {
        guard case .table(let fields) = self else { return nil }
        return fields.first { $0.key == .string(key) }?.value
    }

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    public var fields: [(key: LuaKey, value: LuaValue)] { if case .table(let fields) = self { fields } else { [] } }
}

public enum LuaKey: Sendable, Hashable {
    case string(String)
    case number(Double)
}

/// Reads `return <value>` (after any comments) from a sidecar's bytes.
enum LuaLiteralReader {
    /// Deeper nesting than any sidecar has is refused rather than recursed into.
    static let deepestNesting = 64

    static func read(_ bytes: [UInt8]) throws(ImportError) -> LuaValue {
        var reader = Cursor(bytes: bytes)
        try reader.skipSpaceAndComments()
        guard reader.consumeWord("return") else { throw reader.error("the file does not begin with `return {`") }
        let value = try reader.value(depth: 0)
        try reader.skipSpaceAndComments()
        guard reader.atEnd else { throw reader.error("something after the table") }
        return value
    }

    private struct Cursor {
        let bytes: [UInt8]
        var index = 0
        var line = 1

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func error(_ reason: String) -> ImportError { .malformed(line: line, reason: reason) }

        mutating func advance() {
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }

        mutating func skipSpaceAndComments() throws(ImportError) {
            while let byte = current {
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                    advance()
                } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                    index += 2
                    if let level = longBracketLevel() {
                        _ = try longBracket(level: level)
                    } else {
                        while let next = current, next != 0x0A { advance() }
                    }
                } else {
                    return
                }
            }
        }

        mutating func consumeWord(_ word: String) -> Bool {
            let utf8 = Array(word.utf8)
            guard index + utf8.count <= bytes.count, Array(bytes[index..<(index + utf8.count)]) == utf8 else { return false }
            if index + utf8.count < bytes.count, isNameByte(bytes[index + utf8.count]) { return false }
            index += utf8.count
            return true
        }

        mutating func value(depth: Int) throws(ImportError) -> LuaValue {
            try skipSpaceAndComments()
            guard let byte = current else { throw error("the file ends inside a value (was it cut short?)") }
            switch byte {
            case UInt8(ascii: "{"):
                guard depth < LuaLiteralReader.deepestNesting else { throw error("tables nested deeper than \(LuaLiteralReader.deepestNesting)") }
                return try table(depth: depth + 1)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return .string(try quotedString())
            case UInt8(ascii: "["):
                guard let level = longBracketLevel() else { throw error("a `[` where a value belongs") }
                return .string(try longBracket(level: level))
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            default:
                if consumeWord("true") { return .bool(true) }
                if consumeWord("false") { return .bool(false) }
                if consumeWord("nil") { return .null }
                throw error("not a value a sidecar holds (code is never run)")
            }
        }

        mutating func table(depth: Int) throws(ImportError) -> LuaValue {
            advance()   // {
            var fields: [(key: LuaKey, value: LuaValue)] = []
            var position = 1.0
            while true {
                try skipSpaceAndComments()
                guard let byte = current else { throw error("the file ends inside a table (was it cut short?)") }
                if byte == UInt8(ascii: "}") {
                    advance()
                    return .table(fields)
                }
                let key: LuaKey
                if byte == UInt8(ascii: "["), longBracketLevel() == nil {
                    advance()
                    switch try value(depth: depth) {
                    case .string(let text): key = .string(text)
                    case .number(let number): key = .number(number)
                    default: throw error("a table key that is neither a string nor a number")
                    }
                    try skipSpaceAndComments()
                    guard current == UInt8(ascii: "]") else { throw error("a `]` expected") }
                    advance()
                    try expectEquals()
                } else if isNameStart(byte), let name = nameFollowedByEquals() {
                    key = .string(name)
                } else {
                    key = .number(position)
                    position += 1
                }
                fields.append((key, try value(depth: depth)))
                try skipSpaceAndComments()
                if current == UInt8(ascii: ",") || current == UInt8(ascii: ";") { advance() }
            }
        }

        mutating func expectEquals() throws(ImportError) {
            try skipSpaceAndComments()
            guard current == UInt8(ascii: "=") else { throw error("a `=` expected") }
            advance()
        }

        /// `name =`: the name, past the `=`; nil (and nothing consumed) when not followed by `=`.
        mutating func nameFollowedByEquals() -> String? {
            let start = index
            while let byte = current, isNameByte(byte) { index += 1 }
            let name = String(decoding: bytes[start..<index], as: UTF8.self)
            var probe = index
            while probe < bytes.count, bytes[probe] == 0x20 || bytes[probe] == 0x09 { probe += 1 }
            guard probe < bytes.count, bytes[probe] == UInt8(ascii: "="), probe + 1 >= bytes.count || bytes[probe + 1] != UInt8(ascii: "=") else {
                index = start
                return nil
            }
            index = probe + 1
            return name
        }

        mutating func number() throws(ImportError) -> Double {
            let start = index
            while let byte = current, isNameByte(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                index += 1
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if let value = Double(text) { return value }
            let negative = text.hasPrefix("-")
            let digits = negative ? text.dropFirst() : Substring(text)
            if digits.lowercased().hasPrefix("0x"), let value = Int64(digits.dropFirst(2), radix: 16) { return Double(negative ? -value : value) }
            throw error("not a number")
        }

        mutating func quotedString() throws(ImportError) -> String {
            let quote = bytes[index]
            advance()
            var out: [UInt8] = []
            while true {
                guard let byte = current else { throw error("the file ends inside a string (was it cut short?)") }
                if byte == quote {
                    advance()
                    guard let text = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
                    return text
                }
                // Lua wants `\` before a line break in a quoted string; a real sidecar has one
                // without (a calibre-written keyword list), read as the line break it is.
                advance()
                guard byte == UInt8(ascii: "\\") else {
                    out.append(byte)
                    continue
                }
                guard let escaped = current else { throw error("the file ends inside a string (was it cut short?)") }
                advance()
                switch escaped {
                case UInt8(ascii: "n"), 0x0A: out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "a"): out.append(0x07)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "v"): out.append(0x0B)
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): out.append(escaped)
                case UInt8(ascii: "z"):
                    while let next = current, next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D { advance() }
                case UInt8(ascii: "x"):
                    guard index + 1 < bytes.count, let value = UInt8(String(decoding: bytes[index...(index + 1)], as: UTF8.self), radix: 16) else {
                        throw error("a malformed `\\x` escape")
                    }
                    out.append(value)
                    index += 2
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    var value = Int(escaped - UInt8(ascii: "0"))
                    for _ in 0..<2 {
                        guard let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { break }
                        value = value * 10 + Int(digit - UInt8(ascii: "0"))
                        advance()
                    }
                    guard value < 256 else { throw error("a decimal escape past 255") }
                    out.append(UInt8(value))
                default:
                    throw error("an unknown escape in a string")
                }
            }
        }

        /// `[[`, `[=[`, ...: the level (the number of `=`), or nil when not a long bracket.
        func longBracketLevel() -> Int? {
            guard current == UInt8(ascii: "[") else { return nil }
            var probe = index + 1
            var level = 0
            while probe < bytes.count, bytes[probe] == UInt8(ascii: "=") { level += 1; probe += 1 }
            return probe < bytes.count && bytes[probe] == UInt8(ascii: "[") ? level : nil
        }

        /// The text of a long bracket at `index`, its first line break dropped (as Lua does).
        mutating func longBracket(level: Int) throws(ImportError) -> String {
            index += level + 2
            if current == 0x0D { advance() }
            if current == 0x0A { advance() }
            let close = [UInt8(ascii: "]")] + Array(repeating: UInt8(ascii: "="), count: level) + [UInt8(ascii: "]")]
            let start = index
            while index + close.count <= bytes.count {
                if bytes[index] == close[0], Array(bytes[index..<(index + close.count)]) == close {
                    guard let text = String(validating: bytes[start..<index], as: UTF8.self) else { throw .invalidUTF8 }
                    index += close.count
                    return text
                }
                advance()
            }
            throw error("the file ends inside a long string or comment (was it cut short?)")
        }

        func isNameStart(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "_") || (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        func isNameByte(_ byte: UInt8) -> Bool { isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}
