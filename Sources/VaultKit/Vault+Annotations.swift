import Foundation
public import Journal
import VaultStore

/// What `list` asks for; every condition given must hold.
public struct ListingRequest: Sendable {
    /// A BOOK argument (``Vault/book(named:)``).
    public var book: String?
    public var kind: AnnotationKind?
    /// Created at or after.
    public var createdFrom: Timestamp?
    /// Created before.
    public var createdBefore: Timestamp?
    /// Only this many, the most recently created (most recently changed with ``ListingOrder/updated``).
    public var newest: Int?
    public var order: ListingOrder
    /// Only notes and quotes that show this tag.
    public var tag: String?

    public init(book: String? = nil, kind: AnnotationKind? = nil, createdFrom: Timestamp? = nil, createdBefore: Timestamp? = nil,
                newest: Int? = nil, order: ListingOrder = .bookAdded, tag: String? = nil) {
        self.tag = tag
        self.book = book
        self.kind = kind
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.newest = newest
        self.order = order
    }
}

/// The order of `list`.
public enum ListingOrder: String, Sendable, CaseIterable {
    /// Books in the order they were added, each book's notes oldest first (no `--sort`).
    case bookAdded
    /// Oldest first, all books together.
    case created
    /// Least recently changed first: the latest change is printed last.
    case updated
    /// Books by title, each book's notes oldest first.
    case book
    /// Books by title, each book's notes by locator in natural order, those without last.
    case locator
}

/// What `search` asks for: the query, and conditions that must also hold.
public struct SearchRequest: Sendable {
    public var query: String
    public var book: String?
    public var kind: AnnotationKind?
    /// Created at or after.
    public var createdFrom: Timestamp?
    /// Only notes and quotes that show this tag.
    public var tag: String?

    public init(_ query: String, book: String? = nil, kind: AnnotationKind? = nil, createdFrom: Timestamp? = nil, tag: String? = nil) {
        self.tag = tag
        self.query = query
        self.book = book
        self.kind = kind
        self.createdFrom = createdFrom
    }
}

/// A note or quote with the title of its book, for listings and search results.
public struct AnnotationListing: Sendable {
    public let annotation: Annotation
    /// `nil` when the book's own title cannot be read.
    public let bookTitle: String?
    /// The tags it shows (``Tag/shown(_:)``).
    public var tags: [String] = []
}

extension Vault {
    /// Adds a note or quote to `book` (found with ``book(named:)``), with `tags`, in one
    /// transaction; returns it with its new id. `writtenAt` dates it (`--on`; not in the
    /// future), else it is dated now.
    public func addAnnotation(to book: Book, kind: AnnotationKind, body: String, locator: String?,
                              tags: [String] = [], writtenAt: Timestamp? = nil) throws(VaultError) -> Annotation {
        let store = try unlockedStore()
        let annotation = try journalCall { () throws(JournalError) in
            try Annotation.new(bookID: book.id, kind: kind, body: body, locator: locator.map { text throws(JournalError) in try Locator(text) },
                               at: clock.now(), writtenAt: writtenAt)
        }
        try store.writing { tables throws(StoreError) in try tables.annotations.add(annotation, tags: tags) }
        return annotation
    }

    /// Hands each live note and quote that `request` asks for to `body`, in its order, one
    /// at a time (``ListingOrder/locator``, and ``ListingOrder/book`` with ``ListingRequest/newest``,
    /// hold one book's notes or the newest ones, not the journal). Unreadable records arrive
    /// as failures naming their id.
    public func forEachAnnotation(_ request: ListingRequest,
                                  _ body: (Result<AnnotationListing, UnreadableRecord>) -> Void) throws(VaultError) {
        let store = try unlockedStore()
        let namedBook = try request.book.map { (text) throws(VaultError) in try book(named: text) }
        // One book's notes need one title, already read with the book.
        let titles: [EntityID: String]
        if let namedBook { titles = [namedBook.id: namedBook.title] } else { titles = try bookTitles() }
        let tags = try tagsByRecord(.annotation, inBook: namedBook?.id)
        let filter = AnnotationFilter(bookID: namedBook?.id, kind: request.kind,
                                      createdFrom: request.createdFrom, createdBefore: request.createdBefore,
                                      ids: try request.tag.map { (tag) throws(VaultError) in try records(.annotation, taggedWith: tag) })
        func listing(_ result: Result<Annotation, UnreadableRecord>) -> Result<AnnotationListing, UnreadableRecord> {
            result.map { AnnotationListing(annotation: $0, bookTitle: titles[$0.bookID], tags: tags[$0.id] ?? []) }
        }
        let storeOrder: AnnotationOrder
        switch request.order {
        case .bookAdded: storeOrder = .bookAdded
        case .created: storeOrder = .created
        case .updated: storeOrder = .updated
        case .book, .locator:
            try forEachByTitle(filter, request: request, titles: titles, store: store) { body(listing($0)) }
            return
        }
        try store.reading { tables throws(StoreError) in try tables.annotations.forEach(filter, order: storeOrder, newest: request.newest) { body(listing($0)) } }
    }

    /// Books by title (folded; a book whose title cannot be read last, by id), each book's
    /// notes oldest first, or by locator in natural order (`p. 9` before `p. 10`; none last).
    private func forEachByTitle(_ filter: AnnotationFilter, request: ListingRequest, titles: [EntityID: String], store: Store,
                                _ body: (Result<Annotation, UnreadableRecord>) -> Void) throws(VaultError) {
        let folded = titles.mapValues(TextFolding.fold)
        func inTitleOrder(_ books: [EntityID]) -> [EntityID] {
            books.sorted { first, second in
                switch (folded[first], folded[second]) {
                case let (a?, b?) where a != b: a < b
                case (_?, nil): true
                case (nil, _?): false
                default: first < second
                }
            }
        }
        func emit(_ notes: [Result<Annotation, UnreadableRecord>]) {
            guard request.order == .locator else { return notes.forEach(body) }
            let keyed = notes.enumerated().map { (offset: $0.offset, locator: (try? $0.element.get())?.locator?.text, note: $0.element) }
            let sorted = keyed.sorted { first, second in
                switch (first.locator, second.locator) {
                case let (a?, b?) where a.compare(b, options: [.numeric, .caseInsensitive]) != .orderedSame:
                    a.compare(b, options: [.numeric, .caseInsensitive]) == .orderedAscending
                case (_?, nil): true
                case (nil, _?): false
                default: first.offset < second.offset
                }
            }
            sorted.forEach { body($0.note) }
        }
        if let newest = request.newest {
            // The newest few, held together, then grouped by book.
            var byBook: [EntityID: [Result<Annotation, UnreadableRecord>]] = [:]
            var unreadable: [Result<Annotation, UnreadableRecord>] = []
            try storeCall { () throws(StoreError) in
                try store.read { tables throws(StoreError) in try tables.annotations.forEach(filter, order: .bookAdded, newest: newest) { result in
                    if case .success(let annotation) = result { byBook[annotation.bookID, default: []].append(result) } else { unreadable.append(result) }
                } }
            }
            for book in inTitleOrder(Array(byBook.keys)) { emit(byBook[book] ?? []) }
            unreadable.forEach(body)
            return
        }
        let books = try store.reading { tables throws(StoreError) in try tables.annotations.bookIDs(filter) }
        for book in inTitleOrder(books) {
            var notes: [Result<Annotation, UnreadableRecord>] = []
            var oneBook = filter
            oneBook.bookID = book
            try storeCall { () throws(StoreError) in
                try store.read { tables throws(StoreError) in try tables.annotations.forEach(oneBook) { result in
                    if request.order == .locator { notes.append(result) } else { body(result) }
                } }
            }
            emit(notes)
        }
    }

    /// Notes and quotes that hold every word and phrase of `request`'s query, in their body,
    /// locator, or book's title and authors, compared folded (``SearchQuery``): those that
    /// hold the query's words as one phrase first, then the rest, each in listing order.
    public func search(_ request: SearchRequest, _ body: (Result<AnnotationListing, UnreadableRecord>) -> Void) throws(VaultError) {
        let query = try journalCall { () throws(JournalError) in try SearchQuery(request.query) }
        let matcher = SearchMatcher(query)
        let store = try unlockedStore()
        let namedBook = try request.book.map { (text) throws(VaultError) in try book(named: text) }
        let index = try liveBookTitles()
        var titles: [EntityID: String] = [:]
        var bookTerms: [EntityID: UInt64] = [:]
        var bookHoldsPhrase: Set<EntityID> = []
        for position in 0..<index.count {
            let id = try storeCall { () throws(StoreError) in try index.id(at: position) }
            titles[id] = index.title(at: position)
            let covered = index.withBytes(at: position) { _, title, authors in
                matcher.terms(query.allTerms, foundIn: title) | matcher.terms(query.allTerms, foundIn: authors)
            }
            guard covered != 0 else { continue }
            bookTerms[id] = covered
            if matcher.containsPhrase(index.folded(at: position)) || matcher.containsPhrase(index.foldedAuthors(at: position)) {
                bookHoldsPhrase.insert(id)
            }
        }
        let tags = try tagsByRecord(.annotation, inBook: namedBook?.id)
        let filter = AnnotationFilter(bookID: namedBook?.id, kind: request.kind, createdFrom: request.createdFrom,
                                      ids: try request.tag.map { (tag) throws(VaultError) in try records(.annotation, taggedWith: tag) })
        var later: [Result<AnnotationListing, UnreadableRecord>] = []
        try storeCall { () throws(StoreError) in
            try store.read { tables throws(StoreError) in try tables.annotations.forEach(matching: query, in: filter, bookTerms: bookTerms) { result in
                let listing = result.map { AnnotationListing(annotation: $0, bookTitle: titles[$0.bookID], tags: tags[$0.id] ?? []) }
                guard case .success(let note) = result, !bookHoldsPhrase.contains(note.bookID), !matcher.containsPhrase(note.body),
                      !(note.locator.map { matcher.containsPhrase($0.text) } ?? false) else {
                    return body(listing)
                }
                later.append(listing)
            } }
        }
        later.forEach(body)
    }

    /// Every live book's title by id, decrypted once per process.
    func bookTitles() throws(VaultError) -> [EntityID: String] {
        let titles = try liveBookTitles()
        let all = try storeCall { () throws(StoreError) in try titles.titles() }
        return Dictionary(all.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
    }
}
