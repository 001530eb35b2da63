import Foundation
public import Journal
import VaultStore

/// A note or quote with the title of its book, for listings and search results.
public struct AnnotationListing: Sendable {
    public let annotation: Annotation
    /// `nil` when the book's own title cannot be read.
    public let bookTitle: String?
}

extension Vault {
    /// Adds a note or quote to `book` (found with ``book(named:)``); returns it with its new id.
    public func addAnnotation(to book: Book, kind: AnnotationKind, body: String, locator: String?) throws(VaultError) -> Annotation {
        let store = try unlockedStore()
        let annotation = try journalCall { () throws(JournalError) in
            try Annotation.new(bookID: book.id, kind: kind, body: body, locator: locator.map { text throws(JournalError) in try Locator(text) },
                               at: clock.now())
        }
        try storeCall { () throws(StoreError) in try store.addAnnotation(annotation) }
        return annotation
    }

    /// Hands each live note and quote (of one book and/or kind, if given) to `body`, one at
    /// a time. Unreadable records arrive as failures naming their id.
    public func forEachAnnotation(book reference: String?, kind: AnnotationKind?,
                                  _ body: (Result<AnnotationListing, UnreadableRecord>) -> Void) throws(VaultError) {
        let store = try unlockedStore()
        let namedBook = try reference.map { (text) throws(VaultError) in try book(named: text) }
        // One book's notes need one title, already read with the book.
        let titles: [EntityID: String]
        if let namedBook { titles = [namedBook.id: namedBook.title] } else { titles = try bookTitles() }
        try storeCall { () throws(StoreError) in
            try store.forEachAnnotation(AnnotationFilter(bookID: namedBook?.id, kind: kind)) { result in
                body(result.map { AnnotationListing(annotation: $0, bookTitle: titles[$0.bookID]) })
            }
        }
    }

    /// Notes and quotes whose body, locator, or book title contains `query`, ignoring case.
    public func search(_ query: String, _ body: (Result<AnnotationListing, UnreadableRecord>) -> Void) throws(VaultError) {
        let search = try journalCall { () throws(JournalError) in try SearchQuery(query) }
        let store = try unlockedStore()
        let titles = try bookTitles()
        let matchingBooks = Set(titles.filter { search.matches($0.value) }.keys)
        try storeCall { () throws(StoreError) in
            try store.forEachAnnotation(matching: search, orInBooks: matchingBooks) { result in
                body(result.map { AnnotationListing(annotation: $0, bookTitle: titles[$0.bookID]) })
            }
        }
    }

    /// Every live book's title by id, decrypted once per process.
    func bookTitles() throws(VaultError) -> [EntityID: String] {
        let titles = try liveBookTitles()
        let all = try storeCall { () throws(StoreError) in try titles.titles() }
        return Dictionary(all.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
    }
}
