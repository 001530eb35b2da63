import Foundation

/// The YAML front matter of a book's Markdown file, read as the small YAML subset the
/// format uses: `key: value` lines with plain, single- or double-quoted scalars, and
/// `authors` as a block list (`  - "A. Author"`) or `[]`. Unknown keys are kept and ignored,
/// so a note tool's own keys (tags, aliases) do not stop an import.
struct FrontMatter {
    private(set) var scalars: [String: (value: String, line: Int)] = [:]
    private(set) var lists: [String: (values: [String], line: Int)] = [:]

    /// Reads the front matter at the top of `lines` (`---` ... `---`).
    init(lines: [Substring], file: String) throws(ArchiveError) {
        guard lines.first.map({ $0.trimmingTrailingSpaces() == "---" }) == true else {
            throw .malformed(file: file, line: 1, reason: "the file does not start with a front matter (---)")
        }
        var index = 1
        var currentList: String?
        while true {
            guard index < lines.count else { throw .truncated(file: file, line: index) }
            let line = lines[index]
            let number = index + 1
            index += 1
            if line.trimmingTrailingSpaces() == "---" { break }
            if line.allSatisfy({ $0 == " " }) || line.hasPrefix("#") { continue }
            if line.hasPrefix(" ") || line.hasPrefix("-") {
                let item = line.drop { $0 == " " }
                guard let key = currentList, item.hasPrefix("-") else {
                    throw .malformed(file: file, line: number, reason: "an indented line that is not a list item")
                }
                lists[key]?.values.append(try Self.scalar(item.dropFirst().drop { $0 == " " }, file: file, line: number))
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw .malformed(file: file, line: number, reason: "a front matter line without a key")
            }
            let key = String(line[..<colon])
            let rest = line[line.index(after: colon)...].drop { $0 == " " }
            currentList = nil
            if rest.trimmingTrailingSpaces().isEmpty {
                currentList = key
                lists[key] = ([], number)
            } else if rest.trimmingTrailingSpaces() == "[]" {
                lists[key] = ([], number)
            } else {
                scalars[key] = (try Self.scalar(rest, file: file, line: number), number)
            }
        }
    }

    /// A scalar value: `"double quoted"`, `'single quoted'`, or plain (up to a ` #` comment).
    static func scalar(_ text: Substring, file: String, line: Int) throws(ArchiveError) -> String {
        if text.hasPrefix("\"") { return try doubleQuoted(text.dropFirst(), file: file, line: line) }
        if text.hasPrefix("'") {
            var value = ""
            var rest = text.dropFirst()
            while let quote = rest.firstIndex(of: "'") {
                value += rest[..<quote]
                rest = rest[rest.index(after: quote)...]
                if rest.hasPrefix("'") {
                    value += "'"
                    rest = rest.dropFirst()
                } else {
                    return value
                }
            }
            throw .malformed(file: file, line: line, reason: "a quoted value without its closing quote")
        }
        var plain = text
        if let comment = plain.range(of: " #") { plain = plain[..<comment.lowerBound] }
        return String(plain.trimmingTrailingSpaces())
    }

    private static func doubleQuoted(_ text: Substring, file: String, line: Int) throws(ArchiveError) -> String {
        var value = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        func hex(_ count: Int) throws(ArchiveError) -> Unicode.Scalar {
            var digits = ""
            for _ in 0..<count {
                guard let digit = scalars.next() else { break }
                digits.unicodeScalars.append(digit)
            }
            guard digits.count == count, let number = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(number) else {
                throw .malformed(file: file, line: line, reason: "an invalid escape in a quoted value")
            }
            return scalar
        }
        while let scalar = scalars.next() {
            switch scalar {
            case "\"":
                return String(value)
            case "\\":
                guard let escape = scalars.next() else { break }
                switch escape {
                case "\"", "\\", "/", " ": value.append(escape)
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "0": value.append("\u{0}")
                case "x": value.append(try hex(2))
                case "u": value.append(try hex(4))
                case "U": value.append(try hex(8))
                default: throw .malformed(file: file, line: line, reason: "an invalid escape in a quoted value")
                }
            default:
                value.append(scalar)
            }
        }
        throw .malformed(file: file, line: line, reason: "a quoted value without its closing quote")
    }
}

extension Substring {
    func trimmingTrailingSpaces() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return self[startIndex..<end]
    }
}
