public import Journal

/// A book's id and title alone: what naming a book by its title needs, at one decryption
/// per book instead of the three a whole ``Book`` costs (title, authors, and their JSON).
public struct BookTitle: Sendable, Equatable {
    public let id: EntityID
    public let title: String

    public init(id: EntityID, title: String) {
        self.id = id
        self.title = title
    }
}

extension Store {
    /// The titles of the live books, oldest first. A title that does not open is left out
    /// (the book is still reachable by its id, and `book list` reports it).
    public func bookTitles() throws(StoreError) -> [BookTitle] {
        let cipher = try requireCipher()
        var titles: [BookTitle] = []
        try database.forEachRow("SELECT id, title FROM book WHERE deleted_at IS NULL ORDER BY created_at, id") { row in
            let id = row.text(0)
            guard let entityID = try? EntityID(validating: id),
                  let title = try? cipher.open(row.blob(1), table: "book", id: id, field: "title") else { return }
            titles.append(BookTitle(id: entityID, title: title))
        }
        return titles
    }
}
