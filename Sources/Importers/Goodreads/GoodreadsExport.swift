/// A Goodreads library export (`goodreads_library_export.csv`): books and their reading
/// status, never quotes. Columns are found by their header names (exports differ: 23 columns
/// now, 31 in 2020), so a column Goodreads adds or drops changes nothing.
public struct GoodreadsExport: Sendable {
    public struct Book: Sendable, Equatable {
        /// Goodreads' id of the book: the natural key (with the date read, for a re-read).
        public let goodreadsID: String
        public let title: String
        public let authors: [String]
        /// ISBN-10 and ISBN-13 as digits (Goodreads writes them as `="014023666X"`).
        public let isbn: String?
        public let isbn13: String?
        /// 1 to 5; nil when not rated (Goodreads writes 0).
        public let rating: Int?
        public let pages: Int?
        public let yearPublished: Int?
        /// `YYYY/MM/DD` as written; nil when empty.
        public let dateRead: String?
        public let dateAdded: String?
        /// `read`, `currently-reading`, `to-read`, or a shelf of the reader's own.
        public let shelf: String
        public let readCount: Int
        /// The shelves of the reader's own the book is on (`Bookshelves` without the reading
        /// shelves), as Goodreads names them.
        public let shelves: [String]
        /// The reader's review (`My Review`), its `<br/>` line breaks as line breaks.
        public let review: String?
        /// What the reader noted for themselves (`Private Notes`).
        public let privateNotes: String?
    }

    /// The shelves every Goodreads library has: a book's reading status, not a shelf of the
    /// reader's own.
    public static let readingShelves: Set<String> = ["read", "currently-reading", "to-read"]

    public let books: [Book]

    /// The header names every export has, without which the file is not Goodreads'.
    static let requiredColumns = ["Book Id", "Title", "Author", "Exclusive Shelf"]

    public static func read(_ bytes: [UInt8]) throws(ImportError) -> GoodreadsExport {
        var books: [Book] = []
        try CSVTable.rows(bytes, required: requiredColumns, format: "a Goodreads library export") { (line, value) throws(ImportError) in
            guard let id = value("Book Id"), let title = value("Title") else {
                throw .malformed(line: line, reason: "a row without its Book Id or Title")
            }
            var authors = value("Author").map { [$0] } ?? []
            authors += (value("Additional Authors") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
            // A quoted cell may hold a line break: refused here, naming its row, as a malformed row is.
            try ImportError.checkLine(title, field: "title", line: line)
            for author in authors { try ImportError.checkLine(author, field: "author", line: line) }
            let rating = value("My Rating").flatMap(Int.init).flatMap { (1...5).contains($0) ? $0 : nil }
            books.append(Book(goodreadsID: id, title: title, authors: authors, isbn: value("ISBN").flatMap(formulaText),
                              isbn13: value("ISBN13").flatMap(formulaText), rating: rating,
                              pages: value("Number of Pages").flatMap(Int.init),
                              yearPublished: value("Year Published").flatMap(Int.init), dateRead: value("Date Read"),
                              dateAdded: value("Date Added"), shelf: value("Exclusive Shelf") ?? "read",
                              readCount: value("Read Count").flatMap(Int.init) ?? 0,
                              shelves: ownShelves(value("Bookshelves")),
                              review: value("My Review").map(withLineBreaks), privateNotes: value("Private Notes").map(withLineBreaks)))
        }
        return GoodreadsExport(books: books)
    }

    /// The shelves of a `Bookshelves` cell that are not reading shelves: most books are on
    /// none, and hold no list.
    static func ownShelves(_ cell: String?) -> [String] {
        guard let cell, cell.utf8.contains(UInt8(ascii: ",")) || !readingShelves.contains(cell) else { return [] }
        return cell.split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter { !$0.isEmpty && !readingShelves.contains($0) }
    }

    /// A review or note as Goodreads writes it, its line breaks as `<br/>` (or `<br>`,
    /// `<br />`): with line breaks. Other markup is the reader's text and stays as it is.
    static func withLineBreaks(_ cell: String) -> String {
        var text = cell
        for tag in ["<br/>", "<br />", "<br>", "<BR/>", "<BR />", "<BR>"] {
            var rest = Substring(text)
            var result = ""
            while let range = rest.firstByteRange(of: tag) {
                result += rest[..<range.lowerBound] + "\n"
                rest = rest[range.upperBound...]
            }
            text = result + rest
        }
        return text
    }

    /// `="014023666X"` (an Excel formula Goodreads writes so the digits stay text): the
    /// digits; nil when it holds none.
    static func formulaText(_ cell: String) -> String? {
        var text = Substring(cell)
        if text.hasPrefix("=") { text = text.dropFirst() }
        text = text.drop { $0 == "\"" }
        while text.last == "\"" { text = text.dropLast() }
        return text.isEmpty ? nil : String(text)
    }
}
