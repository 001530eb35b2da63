public import Journal
import Telemetry
import VaultCrypto

/// A book's id, title and authors alone: what naming a book needs, kept in one sealed
/// cache instead of two sealed fields per book.
public struct BookTitle: Sendable, Equatable {
    public let id: EntityID
    public let title: String
    public let authors: [String]
    /// The title folded (``TextFolding``), as a BOOK argument or a search is compared with it.
    public let folded: String
    /// The authors folded, one per line.
    public let foldedAuthors: String

    public init(id: EntityID, title: String, authors: [String] = []) {
        self.init(id: id, title: title, authors: authors, folded: TextFolding.fold(title),
                  foldedAuthors: TextFolding.fold(authors.joined(separator: "\n")))
    }

    init(id: EntityID, title: String, authors: [String], folded: String, foldedAuthors: String) {
        self.id = id
        self.title = title
        self.authors = authors
        self.folded = folded
        self.foldedAuthors = foldedAuthors
    }
}

/// The titles and authors of the live books, kept in `book_title_cache`: one sealed field,
/// whatever the number of books, so naming books does not open two fields per book. Not a
/// table of ``Tables``: a read that finds the cache empty rebuilds it in a write transaction
/// of its own.
public struct BookTitleCache {
    let store: Store
    private var database: Database { store.database }

    /// The titles of the live books, oldest first, as values (see ``index()``).
    public func all() throws(StoreError) -> [BookTitle] {
        try index().titles()
    }

    /// The titles and authors of the live books, oldest first, read in place. A book whose
    /// title or authors do not open is left out (it is still reachable by its id, and `book
    /// list` reports it).
    ///
    /// Read from `book_title_cache` (one sealed field, whatever the number of books) when
    /// it is there. Migration 0004's triggers empty the cache on every change to a book, and
    /// this rebuilds it from the books, under the write lock so no book can change between
    /// the reading and the writing. A cache that cannot be used or written is only slower:
    /// the titles are then read from the books.
    public func index() throws(StoreError) -> BookTitleIndex {
        let cipher = try store.requireCipher()
        if let cached = try cachedBookTitles(cipher) { return cached }
        // Inside a transaction (an export's snapshot) nothing may be written.
        if !database.isInTransaction {
            do {
                if let rebuilt = try rebuildBookTitleCache(cipher) { return BookTitleIndex(rebuilt) }
            } catch {
                // A full disk or a read-only vault: answer from the books this time.
                log.notice("store.titleCache.notWritten")
            }
        }
        return BookTitleIndex(try scanBookTitles(cipher))
    }

    /// The cached titles; nil when there is no cache or it does not open (written under a
    /// key this vault no longer has, or damaged): it is then rebuilt.
    private func cachedBookTitles(_ cipher: RecordCipher) throws(StoreError) -> BookTitleIndex? {
        var sealed: [UInt8]?
        try database.forEachRow("SELECT titles FROM book_title_cache WHERE id = 1") { row in sealed = row.blob("titles") }
        guard let sealed,
              var plain = try? cipher.sealer.open(sealed, table: "book_title_cache", recordID: "1", field: "titles") else { return nil }
        do {
            return try BookTitleIndex(plaintext: plain)
        } catch {
            wipe(&plain)
            return nil
        }
    }

    /// Reads every title and writes the cache, in one transaction; nil, at once, when
    /// another process holds the write lock (a listing does not wait for an import).
    private func rebuildBookTitleCache(_ cipher: RecordCipher) throws(StoreError) -> [BookTitle]? {
        try database.writeTransactionWithoutWaiting { () throws(StoreError) -> [BookTitle] in
            let titles = try scanBookTitles(cipher)
            let sealed: [UInt8]
            do throws(CryptoError) {
                sealed = try cipher.sealer.seal(BookTitleCacheFormat.encode(titles), table: "book_title_cache", recordID: "1", field: "titles")
            } catch {
                throw .crypto(error)
            }
            try database.run("INSERT OR REPLACE INTO book_title_cache (id, titles, built_at) VALUES (1, ?1, ?2)",
                             [.blob(sealed), .integer(store.clock.now().millisecondsSince1970)])
            return titles
        }
    }

    private func scanBookTitles(_ cipher: RecordCipher) throws(StoreError) -> [BookTitle] {
        var titles: [BookTitle] = []
        try database.forEachRow("SELECT \(TitleColumn.list) FROM book WHERE deleted_at IS NULL ORDER BY created_at, id") { row in
            let id = row.text(TitleColumn.id)
            guard let entityID = try? EntityID(validating: id),
                  let title = try? cipher.open(row.blob(TitleColumn.title), table: "book", id: id, field: "title"),
                  let authors = try? BookTable.authors(fromJSON: cipher.open(row.blob(TitleColumn.authors), table: "book", id: id, field: "authors")) else { return }
            titles.append(BookTitle(id: entityID, title: title, authors: authors))
        }
        return titles
    }

    /// The columns of `book` a title scan reads, every live book's.
    private enum TitleColumn: Int32, TableColumns {
        case id, title, authors
        var name: String { "\(self)" }
    }
}
