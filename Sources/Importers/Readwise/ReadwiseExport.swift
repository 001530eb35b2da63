import VaultCrypto

/// A Readwise CSV export (readwise.io → Export → CSV): one row per highlight, with its book.
/// Columns are found by their header names, as for Goodreads: `Highlight`, `Book Title`,
/// `Book Author`, `Amazon Book ID`, `Note`, `Tags`, `Location Type`, `Location`, `Highlighted at`.
public struct ReadwiseExport: Sendable {
    public struct Highlight: Sendable, Equatable {
        public let text: String
        public let title: String
        public let author: String?
        /// Amazon's id of the book (an ASIN), when Readwise has it.
        public let asin: String?
        /// The reader's note on it.
        public let note: String?
        /// `location`, `page`, `order`, `offset`, `time`, ... as Readwise writes it.
        public let locationType: String?
        public let location: String?
        /// `2020-05-11 21:09:56+00:00`, as written; nil when empty.
        public let highlightedAt: String?
        /// (title, author, location type, location, highlighted at; and the text when there is
        /// no date), SHA-256: the same in every export.
        public let naturalKey: String
        /// The CSV row (1 is the header).
        public let row: Int
        /// The highlight's tags (`Tags`, comma-separated), as Readwise names them: they may
        /// hold spaces.
        public let tags: [String]
    }

    public let highlights: [Highlight]
    /// Rows without highlighted text, counted.
    public let empty: Int

    static let requiredColumns = ["Highlight", "Book Title"]

    public static func read(_ bytes: [UInt8]) throws(ImportError) -> ReadwiseExport {
        var highlights: [Highlight] = []
        var empty = 0
        try CSVTable.rows(bytes, required: requiredColumns, format: "a Readwise export") { (line, value) throws(ImportError) in
            guard let title = value("Book Title") else { throw .malformed(line: line, reason: "a row without its Book Title") }
            guard let text = value("Highlight"), !text.allSatisfy(\.isWhitespace) else {
                empty += 1
                return
            }
            let author = value("Book Author"), location = value("Location"), at = value("Highlighted at")
            let material = ["readwise", title, author ?? "", value("Location Type") ?? "", location ?? "", at ?? "", at == nil ? text : ""]
            highlights.append(Highlight(text: text, title: title, author: author, asin: value("Amazon Book ID"), note: value("Note"),
                                        locationType: value("Location Type"), location: location, highlightedAt: at,
                                        naturalKey: SHA256.hex(of: Array(material.joined(separator: "\n").utf8)), row: line,
                                        tags: (value("Tags") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter { !$0.isEmpty }))
        }
        return ReadwiseExport(highlights: highlights, empty: empty)
    }
}

extension ReadwiseExport.Highlight {
    /// Where it is, as the journal shows it: `loc 1234` (a Kindle location), `p. 12`, `#3`
    /// (Readwise's order in an article), the location as written for another type, or
    /// `Readwise highlight` when there is none (every quote has a locator).
    public var locatorText: String {
        guard let location else { return "Readwise highlight" }
        switch locationType?.lowercased() {
        case "location": return "loc " + location
        case "page": return "p. " + location
        case "order": return "#" + location
        default: return location
        }
    }
}
