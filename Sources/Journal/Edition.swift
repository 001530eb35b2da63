/// Which edition of a book the reader holds: its ISBN, year of publication and number of
/// pages, each optional. Sealed at rest as one field (an ISBN names a book as surely as its
/// title); the number of pages lets progress be given as a page (``percent(atPage:)``).
public struct Edition: Hashable, Sendable {
    /// ISBN-13 or ISBN-10, digits only (and a final `X` for an ISBN-10), check digit verified.
    public var isbn: String?
    /// Year of publication; negative before the common era.
    public var year: Int?
    /// Number of pages, what a page given as progress is counted against.
    public var pages: Int?

    public static let years: ClosedRange<Int> = -5_000...9_999
    public static let pageCounts: ClosedRange<Int> = 1...ReadingSession.maximumPages

    public init(isbn: String? = nil, year: Int? = nil, pages: Int? = nil) {
        self.isbn = isbn
        self.year = year
        self.pages = pages
    }

    /// No ISBN, year or pages: what every book had before bmvault 0.11.
    public static let unknown = Edition()

    public var isEmpty: Bool { self == .unknown }

    /// `text` typed by the reader as an ISBN: hyphens and spaces dropped, an ISBN-10 or
    /// ISBN-13 whose check digit matches.
    public static func checkedISBN(_ text: String) throws(JournalError) -> String {
        // By bytes: an ISBN is ASCII digits (not other scripts' digits or numerals) and a
        // final `X`, hyphens and spaces aside; any other byte makes the text no ISBN.
        var characters = text.utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
        if characters.last == UInt8(ascii: "x") { characters[characters.count - 1] = UInt8(ascii: "X") }
        let digits = characters.compactMap { (48...57).contains($0) ? Int($0 - 48) : nil }
        switch characters.count {
        case 13 where digits.count == 13:
            let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset.isMultiple(of: 2) ? 1 : 3) }
            guard sum.isMultiple(of: 10) else { throw .invalidISBN }
        case 10 where digits.count == 10 || (digits.count == 9 && characters.last == UInt8(ascii: "X")):
            let values = digits.count == 10 ? digits : digits + [10]
            let sum = values.enumerated().reduce(0) { $0 + $1.element * (10 - $1.offset) }
            guard sum.isMultiple(of: 11) else { throw .invalidISBN }
        default:
            throw .invalidISBN
        }
        return String(decoding: characters, as: UTF8.self)
    }

    public static func checkedYear(_ year: Int) throws(JournalError) -> Int {
        guard years.contains(year) else { throw .yearOutOfRange }
        return year
    }

    public static func checkedPages(_ pages: Int) throws(JournalError) -> Int {
        guard pageCounts.contains(pages) else { throw .pageCountOutOfRange }
        return pages
    }

    /// The percent that page `page` of this edition is (the page read up to, so the last
    /// page is 100%). Needs the number of pages.
    public func percent(atPage page: Int) throws(JournalError) -> Double {
        guard let pages else { throw .noPageCount }
        guard (0...pages).contains(page) else { throw .pageBeyondEnd(pages: pages) }
        return Double(page) * 100 / Double(pages)
    }

    /// The page a percent of this edition reaches, nil without a number of pages.
    public func page(atPercent percent: Double) -> Int? {
        pages.map { Int((percent * Double($0) / 100).rounded()) }
    }

    /// The stored and sent form: `isbn=…;year=…;pages=…`, each part only when known, in
    /// that order (empty for ``unknown``).
    public var text: String {
        var parts: [String] = []
        if let isbn { parts.append("isbn=\(isbn)") }
        if let year { parts.append("year=\(year)") }
        if let pages { parts.append("pages=\(pages)") }
        return parts.joined(separator: ";")
    }

    /// An edition in ``text``'s form, each part checked as if typed.
    public init(parsing text: String) throws(JournalError) {
        self.init()
        guard !text.isEmpty else { return }
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { throw .invalidEdition }
            switch pair[0] {
            case "isbn" where isbn == nil: isbn = try Self.checkedISBN(pair[1])
            case "year" where year == nil:
                guard let value = Int(pair[1]) else { throw .invalidEdition }
                year = try Self.checkedYear(value)
            case "pages" where pages == nil:
                guard let value = Int(pair[1]) else { throw .invalidEdition }
                pages = try Self.checkedPages(value)
            default: throw .invalidEdition
            }
        }
    }
}
