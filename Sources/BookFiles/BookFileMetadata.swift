/// What a book file says about the book. Every string is cleaned the same way, whatever the
/// format (see ``cleaned()``): trimmed, runs of white space one space, control characters
/// gone, cut at a length no real book needs, so a hostile file cannot fill the journal.
public struct BookFileMetadata: Sendable, Equatable, Codable {
    /// nil when the file names none (or only white space).
    public var title: String?
    /// In document order, empty ones dropped.
    public var creators: [String]
    public var language: String?
    /// `isbn:<digits, X uppercase, no hyphens>`, `asin:`, `uuid:`, `doi:`, else
    /// `<scheme lowercased>:<value>`, or `id:<value>` without a scheme; de-duplicated, in
    /// document order.
    public var identifiers: [String]
    public var publisher: String?
    /// As the file writes it (`2007-03-01`, a PDF's `D:20070301...`).
    public var date: String?
    /// Whether the file names a cover image (always false for a PDF: its first page is no
    /// separate image).
    public var hasCover: Bool

    public init(title: String? = nil, creators: [String] = [], language: String? = nil, identifiers: [String] = [],
                publisher: String? = nil, date: String? = nil, hasCover: Bool = false) {
        self.title = title
        self.creators = creators
        self.language = language
        self.identifiers = identifiers
        self.publisher = publisher
        self.date = date
        self.hasCover = hasCover
    }

    /// The longest each field is kept, in characters, and how many creators and identifiers.
    enum Limit {
        static let title = 1_000
        static let creator = 500
        static let creators = 100
        static let language = 64
        static let identifier = 256
        static let identifiers = 64
        static let publisher = 500
        static let date = 64
    }

    /// The metadata with every field cleaned and capped, and identifiers de-duplicated. The
    /// readers fill fields as the file has them and the inspector cleans once.
    func cleaned() -> BookFileMetadata {
        var identifiers: [String] = []
        for identifier in self.identifiers.compactMap({ Self.clean($0, limit: Limit.identifier) })
        where !identifiers.contains(identifier) && identifiers.count < Limit.identifiers {
            identifiers.append(identifier)
        }
        return BookFileMetadata(
            title: title.flatMap { Self.clean($0, limit: Limit.title) },
            creators: Array(creators.compactMap { Self.clean($0, limit: Limit.creator) }.prefix(Limit.creators)),
            language: language.flatMap { Self.clean($0, limit: Limit.language) },
            identifiers: identifiers,
            publisher: publisher.flatMap { Self.clean($0, limit: Limit.publisher) },
            date: date.flatMap { Self.clean($0, limit: Limit.date) },
            hasCover: hasCover)
    }

    /// `text` trimmed, each run of white space (line breaks too) one space, control and
    /// byte-order-mark characters dropped, cut to `limit` characters; nil when nothing is left.
    static func clean(_ text: String, limit: Int) -> String? {
        var scalars = String.UnicodeScalarView()
        var kept = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = kept > 0
                continue
            }
            if scalar.properties.generalCategory == .control || scalar == "\u{FEFF}" { continue }
            if pendingSpace { scalars.append(" ") }
            pendingSpace = false
            scalars.append(scalar)
            kept += 1
            // How many scalars `limit` characters take is not known until they are counted;
            // a generous bound keeps a huge field from being copied whole first.
            if kept > limit * 16 { break }
        }
        var cleaned = String(scalars)
        if cleaned.count > limit { cleaned = String(cleaned.prefix(limit)) }
        while cleaned.last?.isWhitespace == true { cleaned.removeLast() }
        return cleaned.isEmpty ? nil : cleaned
    }
}
