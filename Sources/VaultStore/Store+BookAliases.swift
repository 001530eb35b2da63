public import Journal

/// The names other programs give a book (schema v16, `book_alias`): each source title and
/// authors it was imported under, each identifier a source gave it (`isbn:`, `goodreads:`,
/// `asin:`, `koreader:` and a partial MD5), and the titles the reader sent to it (`bmvault book
/// alias`). An import finds a book by them first, so a book renamed here, or matched by hand,
/// stays matched. Each is sealed like a title, bound to its row; they are this device's (they
/// do not sync).
extension Store {
    /// The alias a title gives (`book alias`): `title:` and its words, folded (case, accents,
    /// punctuation and spacing aside), so that every spelling of one title finds one book.
    public static func titleAlias(_ title: String) -> String {
        "title:" + words(title).joined(separator: " ")
    }

    /// The alias an import records: the title's and the authors' words (the authors' in any
    /// order: Kindle writes `Herbert, Frank`), so a book of the same title by someone else
    /// is not taken for it.
    public static func titleAndAuthorsAlias(_ title: String, authors: [String]) -> String {
        titleAlias(title) + " by:" + words(authors.joined(separator: " ")).sorted().joined(separator: " ")
    }

    private static func words(_ text: String) -> [Substring] {
        TextFolding.fold(text).split { !$0.isLetter && !$0.isNumber }
    }

    /// Every alias with its book (a deleted book's too: a note imported later brings the book
    /// back, as an archive's does). One that does not open (damaged) is left out.
    func bookAliases() throws(StoreError) -> [(alias: String, book: EntityID)] {
        let cipher = try requireCipher()
        var aliases: [(alias: String, book: EntityID)] = []
        try database.forEachRow("SELECT id, book_id, alias FROM book_alias ORDER BY created_at, id") { row in
            guard let book = try? EntityID(validating: row.text(1)),
                  let alias = try? cipher.open(row.blob(2), table: "book_alias", id: row.text(0), field: "alias") else { return }
            aliases.append((alias, book))
        }
        return aliases
    }

    /// Records `alias` for `book`. Inside a write transaction.
    func insertBookAlias(_ alias: String, book: EntityID) throws(StoreError) {
        let id = EntityID.generate(at: clock.now())
        try database.run("INSERT INTO book_alias (id, book_id, alias, created_at) VALUES (?, ?, ?, ?)",
                         [.text(id.rawValue), .text(book.rawValue),
                          .blob(try requireCipher().seal(alias, table: "book_alias", id: id.rawValue, field: "alias")),
                          .integer(clock.now().millisecondsSince1970)])
    }

    /// Makes `title` (as another program writes it) name `book` for every later import: the
    /// alias moves from any other book it named. Returns false when `book` had it already.
    @discardableResult
    public func addBookAlias(_ title: String, to book: EntityID) throws(StoreError) -> Bool {
        let alias = Self.titleAlias(title)
        return try database.writeTransaction { () throws(StoreError) -> Bool in
            try requireLiveBook(book)
            let held = try bookAliases().filter { $0.alias == alias }
            if held.contains(where: { $0.book == book }) { return false }
            try removeBookAlias(alias)
            try insertBookAlias(alias, book: book)
            return true
        }
    }

    /// Removes `alias` from whichever books have it. Inside a write transaction.
    func removeBookAlias(_ alias: String) throws(StoreError) {
        let cipher = try requireCipher()
        var ids: [String] = []
        try database.forEachRow("SELECT id, alias FROM book_alias") { row in
            if (try? cipher.open(row.blob(1), table: "book_alias", id: row.text(0), field: "alias")) == alias { ids.append(row.text(0)) }
        }
        for id in ids { try database.run("DELETE FROM book_alias WHERE id = ?", [.text(id)]) }
    }
}
