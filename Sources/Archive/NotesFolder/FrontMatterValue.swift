/// The value of one front-matter entry as a list of strings, read from the YAML forms a
/// notes app writes for a text, a number, a date or a list of them: a plain, `"double"` or
/// `'single'` quoted scalar (over several lines too), a `[flow, list]`, or `- item` lines.
/// Enough to tell whether a property the reader's notes app rewrote (Obsidian's property
/// editor spells values its own way) still has the value bmvault wrote; anything else (a
/// block scalar, a mapping, an anchor) reads as nil, which counts as an edit.
enum FrontMatterValue {
    /// The items of the entry whose text (its lines) is `entry`, for `key`; a scalar is one
    /// item; no value (`key:`, `~`, `null`, `[]`) is none.
    static func items(_ entry: String, key: String) -> [String]? {
        var lines = entry.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingLineEnd }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first, let colon = first.firstIndex(of: ":") else { return nil }
        let inline = String(first[first.index(after: colon)...]).trimmingCharacters(" \t")
        let rest = lines.dropFirst().map { $0.trimmingCharacters(" \t") }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        if inline.isEmpty || inline.hasPrefix("#") {
            var items: [String] = []
            for line in rest {
                guard line == "-" || line.hasPrefix("- ") else { return nil }
                guard let item = scalar(String(line.dropFirst()).trimmingCharacters(" \t")) else { return nil }
                if let item { items.append(item) }
            }
            return items
        }
        if inline.hasPrefix("[") {
            let joined = ([inline] + rest).joined(separator: " ")
            return flowList(joined)
        }
        // A scalar over several lines: YAML folds its line breaks into spaces.
        let joined = ([inline] + rest).joined(separator: " ")
        guard let value = scalar(joined) else { return nil }
        return value.map { [$0] } ?? []
    }

    /// One scalar: nil when it is not one this reader takes, `.some(nil)` for no value.
    static func scalar(_ text: String) -> String?? {
        if text.isEmpty { return .some(nil) }
        if text.hasPrefix("\"") { return doubleQuoted(text).map { .some($0) } }
        if text.hasPrefix("'") {
            var value = ""
            var index = text.index(after: text.startIndex)
            while index < text.endIndex {
                let character = text[index]
                if character == "'" {
                    let next = text.index(after: index)
                    if next < text.endIndex, text[next] == "'" {
                        value.append("'")
                        index = text.index(after: next)
                        continue
                    }
                    return isEnd(text[next...]) ? .some(value) : nil
                }
                value.append(character)
                index = text.index(after: index)
            }
            return nil
        }
        guard let first = text.first, !"|>&*!%@`{[".contains(first) else { return nil }
        var plain = text
        // ` #` starts a comment.
        if let hash = plain.indices.first(where: { plain[$0] == "#" && $0 > plain.startIndex && plain[plain.index(before: $0)] == " " }) {
            plain = String(plain[..<hash])
        }
        plain = plain.trimmingCharacters(" \t")
        if ["~", "null", "Null", "NULL"].contains(plain) { return .some(nil) }
        return .some(plain)
    }

    private static func isEnd(_ rest: Substring) -> Bool {
        let trimmed = String(rest).trimmingCharacters(" \t")
        return trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(",") || trimmed.hasPrefix("]")
    }

    private static func doubleQuoted(_ text: String) -> String? {
        var value = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 1
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\"" {
                return isEnd(Substring(String(String.UnicodeScalarView(scalars[(index + 1)...])))) ? String(value) : nil
            }
            if scalar == "\\" {
                guard index + 1 < scalars.count else { return nil }
                let escape = scalars[index + 1]
                index += 2
                let simple: [Unicode.Scalar: Unicode.Scalar] = [
                    "\\": "\\", "\"": "\"", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\u{0}", "a": "\u{7}", "b": "\u{8}",
                    "e": "\u{1B}", "f": "\u{C}", "v": "\u{B}", " ": " ", "N": "\u{85}", "_": "\u{A0}", "L": "\u{2028}", "P": "\u{2029}",
                ]
                if let replacement = simple[escape] {
                    value.append(replacement)
                    continue
                }
                let digits = escape == "x" ? 2 : escape == "u" ? 4 : escape == "U" ? 8 : 0
                guard digits > 0, index + digits <= scalars.count,
                      let number = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + digits)])), radix: 16),
                      let decoded = Unicode.Scalar(number) else { return nil }
                value.append(decoded)
                index += digits
                continue
            }
            value.append(scalar)
            index += 1
        }
        return nil
    }

    /// `[a, "b, c", 'd']`.
    private static func flowList(_ text: String) -> [String]? {
        var inner = Substring(text.trimmingCharacters(" \t"))
        guard inner.hasPrefix("["), inner.hasSuffix("]") else { return nil }
        inner = inner.dropFirst().dropLast()
        var items: [String] = []
        var current = ""
        var quote: Character?
        var previous: Character?
        for character in inner {
            if let open = quote {
                current.append(character)
                if character == open && !(open == "\"" && previous == "\\") { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
                current.append(character)
            } else if character == "," {
                items.append(current)
                current = ""
            } else if "[]{}".contains(character) {
                return nil
            } else {
                current.append(character)
            }
            previous = character
        }
        guard quote == nil else { return nil }
        if !current.trimmingCharacters(" \t").isEmpty || !items.isEmpty { items.append(current) }
        var values: [String] = []
        for item in items {
            guard let value = scalar(item.trimmingCharacters(" \t")) else { return nil }
            if let value { values.append(value) }
        }
        return values
    }
}

extension String {
    func trimmingCharacters(_ set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
