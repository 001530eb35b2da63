/// One form for a book's identifier whatever the file calls its scheme: `isbn:9780306406157`,
/// `asin:B000FC1PJI`, `uuid:…`, `doi:…`, `<scheme>:<value>`, or `id:<value>` without one.
enum BookIdentifier {
    /// `value` as the file writes it and the scheme it names (`opf:scheme`, an EPUB 3
    /// refinement, the format's own field), nil when the value is empty. A `urn:isbn:`,
    /// `urn:uuid:`, `isbn:`... prefix names the scheme when the file names none.
    static func make(_ value: String, scheme: String?) -> String? {
        var value = trimmed(value)
        var scheme = scheme.map { trimmed($0).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }.map(canonical)
        let lowercased = value.lowercased()
        if let match = prefixes.first(where: { lowercased.hasPrefix($0.prefix) }),
           scheme == nil || scheme == "uri" || scheme == "urn" || scheme == match.scheme {
            value = trimmed(String(value.dropFirst(match.prefix.count)))
            scheme = match.scheme
        }
        guard !value.isEmpty else { return nil }
        if scheme == nil, let isbn = isbn(value), hasValidCheckDigit(isbn) { return "isbn:" + isbn }
        switch scheme {
        case "isbn": return "isbn:" + (isbn(value) ?? value.filter { $0 != "-" && !$0.isWhitespace }.uppercased())
        case let scheme?: return scheme + ":" + value
        case nil: return "id:" + value
        }
    }

    /// The prefixes a value can carry its scheme in, longest first.
    private static let prefixes: [(prefix: String, scheme: String)] = [
        ("urn:isbn:", "isbn"), ("urn:uuid:", "uuid"), ("urn:doi:", "doi"), ("urn:asin:", "asin"),
        ("isbn:", "isbn"), ("uuid:", "uuid"), ("doi:", "doi"), ("asin:", "asin"),
    ]

    /// The names files give the schemes bmvault knows, as bmvault writes them (calibre's
    /// `MOBI-ASIN` and `AMAZON` are ASINs).
    private static func canonical(_ scheme: String) -> String {
        switch scheme {
        case "isbn-10", "isbn-13", "isbn10", "isbn13": "isbn"
        case "mobi-asin", "amazon", "amazon_asin": "asin"
        default: scheme
        }
    }

    /// The ISBN in `value` without hyphens and spaces, X uppercase, when it has an ISBN's
    /// shape: 13 digits (978 or 979 first), or 9 digits and a digit or X.
    static func isbn(_ value: String) -> String? {
        let compact = value.filter { $0 != "-" && !$0.isWhitespace }.uppercased()
        guard compact.allSatisfy(\.isASCII) else { return nil }
        let digits = Array(compact.utf8)
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        if digits.count == 13, digits.allSatisfy(isDigit), compact.hasPrefix("978") || compact.hasPrefix("979") { return compact }
        if digits.count == 10, digits.dropLast().allSatisfy(isDigit), isDigit(digits[9]) || digits[9] == UInt8(ascii: "X") {
            return compact
        }
        return nil
    }

    /// Whether an ISBN's check digit is right: what tells a bare value that is an ISBN from
    /// any other ten or thirteen digits.
    static func hasValidCheckDigit(_ isbn: String) -> Bool {
        let values = isbn.utf8.map { $0 == UInt8(ascii: "X") ? 10 : Int($0) - Int(UInt8(ascii: "0")) }
        switch values.count {
        case 10: return values.enumerated().reduce(0) { $0 + (10 - $1.offset) * $1.element } % 11 == 0
        case 13: return values.enumerated().reduce(0) { $0 + ($1.offset % 2 == 0 ? 1 : 3) * $1.element } % 10 == 0
        default: return false
        }
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
