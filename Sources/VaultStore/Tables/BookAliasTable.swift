public import Journal

/// `book_alias` (schema v16): the names other programs give a book, each source title and
/// authors it was imported under (``BookAlias``), each identifier a source gave it (`isbn:`,
/// a program's own id, a partial digest of the file), and the titles the reader sent to
/// it (`bmvault book alias`). An import finds a book by them first, so a book renamed here,
/// or matched by hand, stays matched. Each is sealed like a title, bound to its row; they are
/// this device's (they do not sync).
public struct BookAliasTable {
    let tables: Tables
    private var store: Store { tables.store }
    private var database: Database { tables.database }

    /// Every alias with its book (a deleted book's too: a note imported later brings the book
    /// back, as an archive's does). One that does not open (damaged) is left out.
    public func all() throws(StoreError) -> [(alias: String, book: EntityID)] {
        let cipher = try store.requireCipher()
        var aliases: [(alias: String, book: EntityID)] = []
        try database.forEachRow("SELECT id, book_id, alias FROM book_alias ORDER BY created_at, id") { row in
            guard let book = try? EntityID(validating: row.text("book_id")),
                  let alias = try? cipher.open(row.blob("alias"), table: "book_alias", id: row.text("id"), field: "alias") else { return }
            aliases.append((alias, book))
        }
        return aliases
    }

    /// Records `alias` for `book`.
    package func insert(_ alias: String, book: EntityID) throws(StoreError) {
        tables.requireWrite()
        let id = EntityID.generate(at: store.clock.now())
        try database.run("INSERT INTO book_alias (id, book_id, alias, created_at) VALUES (?, ?, ?, ?)",
                         [.text(id.rawValue), .text(book.rawValue),
                          .blob(try store.requireCipher().seal(alias, table: "book_alias", id: id.rawValue, field: "alias")),
                          .integer(store.clock.now().millisecondsSince1970)])
    }

    /// Makes `title` (as another program writes it) name `book` for every later import: the
    /// alias moves from any other book it named. Returns false when `book` had it already.
    @discardableResult
    public func add(title: String, to book: EntityID) throws(StoreError) -> Bool {
        tables.requireWrite()
        let alias = BookAlias.title(title)
        try tables.books.requireLive(book)
        let held = try all().filter { $0.alias == alias }
        if held.contains(where: { $0.book == book }) { return false }
        try remove(alias)
        try insert(alias, book: book)
        return true
    }

    /// Removes `alias` from whichever books have it.
    package func remove(_ alias: String) throws(StoreError) {
        tables.requireWrite()
        let cipher = try store.requireCipher()
        var ids: [String] = []
        try database.forEachRow("SELECT id, alias FROM book_alias") { row in
            if (try? cipher.open(row.blob("alias"), table: "book_alias", id: row.text("id"), field: "alias")) == alias {
                ids.append(row.text("id"))
            }
        }
        for id in ids { try database.run("DELETE FROM book_alias WHERE id = ?", [.text(id)]) }
    }

    /// Makes every alias of `book` name `kept` instead (a book merge).
    func move(from book: EntityID, to kept: EntityID) throws(StoreError) {
        tables.requireWrite()
        try database.run("UPDATE book_alias SET book_id = ? WHERE book_id = ?", [.text(kept.rawValue), .text(book.rawValue)])
    }
}
