public import Journal
import Telemetry
import VaultStore

/// A book with what the reader did with it, for `show`.
public struct BookDetails: Sendable {
    public let book: Book
    public let sessions: [ReadingSession]
    public let counts: JournalCounts
    public let tags: [String]
}

/// What ``Vault/editBook(named:title:authors:edition:)`` did: the book as it now stands, and
/// which of its fields changed (none: nothing was written).
public struct BookEdit: Sendable {
    public let book: Book
    /// Among `title`, `authors`, `isbn`, `year` and `pages`, in that order.
    public let changedFields: [String]
}

/// Changes to a book's edition as typed: nil keeps a part, `.some(nil)` removes it. Each
/// part given is checked as if new (``Edition/checkedISBN(_:)``...).
public struct EditionEdit: Sendable, Equatable {
    public var isbn: String??
    public var year: Int??
    public var pages: Int??

    public init(isbn: String?? = nil, year: Int?? = nil, pages: Int?? = nil) {
        self.isbn = isbn
        self.year = year
        self.pages = pages
    }

    public var isEmpty: Bool { isbn == nil && year == nil && pages == nil }

    /// `edition` with these changes, each checked.
    func applied(to edition: Edition) throws(JournalError) -> Edition {
        var result = edition
        if let isbn { result.isbn = try isbn.map { (text) throws(JournalError) in try Edition.checkedISBN(text) } }
        if let year { result.year = try year.map { (value) throws(JournalError) in try Edition.checkedYear(value) } }
        if let pages { result.pages = try pages.map { (value) throws(JournalError) in try Edition.checkedPages(value) } }
        return result
    }
}

/// A book a BOOK argument may have meant, offered when it named several.
public struct BookCandidate: Sendable, Equatable {
    public let id: EntityID
    public let title: String
    public let authors: [String]
}

/// A reading session with the title of its book, for `session list`.
public struct SessionListing: Sendable {
    public let session: ReadingSession
    /// `nil` when the book's own title cannot be read.
    public let bookTitle: String?
}

extension Vault {
    /// Adds a book, with what is known of its edition and `tags`, in one transaction;
    /// returns it with its new id.
    public func addBook(title: String, authors: [String], edition: EditionEdit = EditionEdit(),
                        tags: [String] = []) throws(VaultError) -> Book {
        let store = try unlockedStore()
        let book = try journalCall { () throws(JournalError) in
            try Book.new(title: title, authors: authors, edition: try edition.applied(to: .unknown), at: clock.now())
        }
        try store.writing { tables throws(StoreError) in try tables.books.add(book, tags: tags) }
        cachedTitles = nil
        return book
    }

    /// Every live book, oldest first; unreadable ones in place as failures naming their id.
    public func books() throws(VaultError) -> [Result<Book, UnreadableRecord>] {
        let store = try unlockedStore()
        return try store.reading { tables throws(StoreError) in try tables.books.all() }
    }

    /// Every live book (those that show `tag`, if given), oldest first, with its counts, its
    /// latest session and its tags (`book list`); unreadable ones in place as failures naming
    /// their id.
    public func shelf(tag: String? = nil) throws(VaultError) -> [Result<(book: Book, activity: BookActivity, tags: [String]), UnreadableRecord>] {
        let tagged = try tag.map { (tag) throws(VaultError) in try records(.book, taggedWith: tag) }
        let store = try unlockedStore()
        let (books, activity) = try store.reading { tables throws(StoreError) in (try tables.books.all(), try tables.books.activity()) }
        let tags = try tagsByRecord(.book)
        return books.compactMap { result in
            if case .success(let book) = result, let tagged, !tagged.contains(book.id) { return nil }
            return result.map { (book: $0, activity: activity[$0.id] ?? BookActivity(), tags: tags[$0.id] ?? []) }
        }
    }

    /// The book a BOOK argument names (see ``BookReference``).
    public func book(named reference: String) throws(VaultError) -> Book {
        let store = try unlockedStore()
        if let recent = RecentReference(reference) {
            let typed = reference.trimmingCharacters(in: .whitespaces).lowercased()
            let named = try resolve(recent, typed: typed)
            guard named.kind == .book else { throw .wrongRecordKind(id: typed, expected: "book (@last-book)", found: "note or quote") }
            return try store.reading { tables throws(StoreError) in try tables.books.book(named.id) }
        }
        // A full id needs no title at all: one row, whatever the size of the library.
        if let id = try? EntityID(validating: reference.trimmingCharacters(in: .whitespaces)),
           let book = try? store.reading({ tables throws(StoreError) in try tables.books.book(id) }), book.deletedAt == nil {
            log.debug("journal.book.resolved", ["book": .text(book.title), "candidates": 1])
            return book
        }
        let titles = try liveBookTitles()
        let id: EntityID
        switch try BookReference.resolve(reference, in: titles) {
        case .one(let named): id = named
        case .several(let indexes): id = try choose(among: indexes, in: titles)
        }
        let book = try store.reading { tables throws(StoreError) in try tables.books.book(id) }
        log.debug("journal.book.resolved", ["book": .text(book.title), "candidates": .integer(titles.count)])
        return book
    }

    /// The book the reader picks among those a BOOK argument named (``bookChooser``), or
    /// the ambiguity, by ids, when there is no one to ask or they chose none.
    private func choose(among indexes: [Int], in titles: BookTitleIndex) throws(VaultError) -> EntityID {
        var candidates: [BookCandidate] = []
        for index in indexes {
            let id = try storeCall { () throws(StoreError) in try titles.id(at: index) }
            candidates.append(BookCandidate(id: id, title: titles.title(at: index), authors: titles.authors(at: index)))
        }
        if let bookChooser, let chosen = bookChooser(candidates), candidates.contains(where: { $0.id == chosen }) { return chosen }
        throw .ambiguousBook(candidates: candidates.map(\.id.rawValue).sorted())
    }

    /// The live books whose title is `title`, compared folded (without case or accents),
    /// so `book add` can say that one is already there.
    public func books(titled title: String) throws(VaultError) -> [EntityID] {
        let titles = try liveBookTitles()
        let folded = TextFolding.fold(title.trimmingCharacters(in: .whitespaces))
        var found: [EntityID] = []
        for index in 0..<titles.count where titles.folded(at: index) == folded {
            found.append(try storeCall { () throws(StoreError) in try titles.id(at: index) })
        }
        return found
    }

    /// The live books' titles whose folded form starts with `prefix` folded, in library
    /// order, for shell completion; titles with control characters are left out (a shell
    /// would run them as keystrokes).
    public func bookTitles(startingWith prefix: String) throws(VaultError) -> [String] {
        let titles = try liveBookTitles()
        let folded = TextFolding.fold(prefix)
        return (0..<titles.count).filter { titles.folded(at: $0).hasPrefix(folded) }.map { titles.title(at: $0) }
            .filter { !$0.unicodeScalars.contains { $0.properties.generalCategory == .control } }
    }

    /// The live books' titles, decrypted once per process (a command that names a book and
    /// then lists notes with their titles reads them once).
    func liveBookTitles() throws(VaultError) -> BookTitleIndex {
        if let cachedTitles { return cachedTitles }
        let store = try unlockedStore()
        let titles = try storeCall { () throws(StoreError) in try store.bookTitles.index() }
        cachedTitles = titles
        return titles
    }

    /// Corrects a book's title, authors and/or edition (nil keeps the field). Writes nothing,
    /// and says so by an empty ``BookEdit/changedFields``, when all are already as given.
    public func editBook(named reference: String, title: String?, authors: [String]?,
                         edition: EditionEdit = EditionEdit()) throws(VaultError) -> BookEdit {
        let checkedTitle = try title.map { (text) throws(VaultError) in
            try journalCall { () throws(JournalError) in try TextRules.line(text, field: "title") }
        }
        let checkedAuthors = try authors.map { (names) throws(VaultError) in
            try journalCall { () throws(JournalError) in try names.map { (name) throws(JournalError) in try TextRules.line(name, field: "author") } }
        }
        // Checked before the book is looked up, so a wrong value is the error whatever BOOK says.
        _ = try journalCall { () throws(JournalError) in try edition.applied(to: .unknown) }
        let book = try book(named: reference)
        let newEdition = try journalCall { () throws(JournalError) in try edition.applied(to: book.edition) }
        var changed: [String] = []
        if let checkedTitle, checkedTitle != book.title { changed.append("title") }
        if let checkedAuthors, checkedAuthors != book.authors { changed.append("authors") }
        if newEdition.isbn != book.edition.isbn { changed.append("isbn") }
        if newEdition.year != book.edition.year { changed.append("year") }
        if newEdition.pages != book.edition.pages { changed.append("pages") }
        guard !changed.isEmpty else { return BookEdit(book: book, changedFields: []) }
        let metadataChanged = changed.contains("title") || changed.contains("authors")
        let store = try unlockedStore()
        let edited = try storeCall { () throws(StoreError) in
            try store.write { tables throws(StoreError) in try tables.books.edit(book.id, title: metadataChanged ? checkedTitle : nil, authors: metadataChanged ? checkedAuthors : nil,
                               edition: newEdition == book.edition ? nil : newEdition) }
        }
        cachedTitles = nil
        return BookEdit(book: edited, changedFields: changed)
    }

    /// The reading sessions of live books, of one book if `reference` names it, that started
    /// at or after `since`, if given; oldest first.
    public func sessions(book reference: String?, since: Timestamp?) throws(VaultError) -> [SessionListing] {
        let store = try unlockedStore()
        let namedBook = try reference.map { (text) throws(VaultError) in try book(named: text) }
        let titles: [EntityID: String]
        if let namedBook { titles = [namedBook.id: namedBook.title] } else { titles = try bookTitles() }
        let sessions = try store.reading { tables throws(StoreError) in try tables.sessions.live(book: namedBook?.id, startedSince: since) }
        return sessions.map { SessionListing(session: $0, bookTitle: titles[$0.bookID]) }
    }

    /// Sets how far through a book the reader is, 0...100 percent.
    /// `rewind`: an explicit move backwards, which wins over older positions when syncing.
    public func setProgress(of reference: String, to percent: Double, rewind: Bool = false) throws(VaultError) -> Book {
        let checked = try journalCall { () throws(JournalError) in try Book.checkedProgress(percent) }
        let book = try book(named: reference)
        let store = try unlockedStore()
        return try store.writing { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: checked, rewind: rewind) }
    }

    /// Sets how far through a book the reader is as a page of its edition (the page read up
    /// to), which needs the book's number of pages.
    public func setProgress(of reference: String, toPage page: Int, rewind: Bool = false) throws(VaultError) -> Book {
        let book = try book(named: reference)
        let percent = try journalCall { () throws(JournalError) in try book.edition.percent(atPage: page) }
        let store = try unlockedStore()
        return try store.writing { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: percent, rewind: rewind) }
    }

    /// Records that the reader wants to read, started, finished or abandoned a book on day
    /// (or at moment) `on`, which may not be in the future. Every change is kept (a re-read
    /// keeps each finish); the status is the latest.
    public func recordStatus(_ status: ReadingStatus, of reference: String, on: Timestamp) throws(VaultError) -> Book {
        guard on <= clock.now() else { throw .invalidInput(.statusInFuture) }
        let book = try book(named: reference)
        let store = try unlockedStore()
        return try store.writing { tables throws(StoreError) in try tables.books.recordStatus(status, of: book.id, on: on) }
    }

    /// Rates a book, 1 to 5 stars in halves; nil takes the rating away. Writes nothing when
    /// the book already has that rating.
    public func rateBook(named reference: String, stars: Double?) throws(VaultError) -> Book {
        let checked = try stars.map { (value) throws(VaultError) in try journalCall { () throws(JournalError) in try Rating.checked(value) } }
        let book = try book(named: reference)
        guard book.rating != checked else { return book }
        let store = try unlockedStore()
        return try store.writing { tables throws(StoreError) in try tables.books.rate(book.id, stars: checked) }
    }

    /// Makes `sourceTitle` (a title as another program writes it) name the book `reference`
    /// names for every later import. Returns the book, and false when it had that name already.
    public func addBookAlias(_ sourceTitle: String, to reference: String) throws(VaultError) -> (book: Book, added: Bool) {
        let title = try journalCall { () throws(JournalError) in try TextRules.line(sourceTitle, field: "title") }
        let book = try book(named: reference)
        let store = try unlockedStore()
        return (book, try store.writing { tables throws(StoreError) in try tables.bookAliases.add(title: title, to: book.id) })
    }

    /// Merges the book `duplicate` names into the one `kept` names (``BookTable/merge(_:into:)``):
    /// one book, with everything both had. Returns both as they were, and what moved.
    public func mergeBook(_ duplicate: String, into kept: String) throws(VaultError) -> (merged: Book, kept: Book, summary: BookMergeSummary) {
        let from = try book(named: duplicate), into = try book(named: kept)
        guard from.id != into.id else { throw .mergeIntoItself }
        let store = try unlockedStore()
        return (from, into, try store.writing { tables throws(StoreError) in try tables.books.merge(from.id, into: into.id) })
    }

    /// Records a reading session with a book. `toPage`: the page the reader got to, which
    /// moves the book's progress there in the same transaction (needs the book's number of
    /// pages; never backwards: a session does not undo a further position).
    public func addSession(to reference: String, pagesRead: Int, startedAt: Timestamp, endedAt: Timestamp,
                           toPage: Int? = nil) throws(VaultError) -> (session: ReadingSession, book: Book) {
        let book = try book(named: reference)
        let store = try unlockedStore()
        let session = try journalCall { () throws(JournalError) in
            try ReadingSession.new(bookID: book.id, startedAt: startedAt, endedAt: endedAt, pagesRead: pagesRead, at: clock.now())
        }
        let percent = try toPage.map { (page) throws(VaultError) in
            try journalCall { () throws(JournalError) in try book.edition.percent(atPage: page) }
        }
        let after = try store.writing { tables throws(StoreError) in try tables.sessions.add(session, movingProgressTo: percent) }
        return (session, after ?? book)
    }

    /// Corrects a reading session: the fields given replace its own (nil keeps one), and
    /// the result must still be a session the reader could have recorded (not ending before
    /// it starts, nor in the future). `startedAt` as a time of day after the end is the day
    /// before's, as for a new session (the caller resolves that against the end it knows).
    public func editSession(_ id: String, startedAt: Timestamp?, endedAt: Timestamp?, pagesRead: Int?) throws(VaultError) -> ReadingSession {
        let sessionID = try resolveSessionID(id)
        let store = try unlockedStore()
        let now = clock.now()
        return try storeCall { () throws(StoreError) in
            try store.write { tables throws(StoreError) in try tables.sessions.edit(sessionID) { (session) throws(JournalError) in
                try session.edited(startedAt: startedAt, endedAt: endedAt, pagesRead: pagesRead, at: now)
            } }
        }
    }

    /// The live session an ID names (any other kind of record is `wrongRecordKind`).
    public func session(_ id: String) throws(VaultError) -> ReadingSession {
        let sessionID = try resolveSessionID(id)
        let store = try unlockedStore()
        return try store.reading { tables throws(StoreError) in try tables.sessions.session(sessionID) }
    }

    private func resolveSessionID(_ id: String) throws(VaultError) -> EntityID {
        let reference = try resolveID(id)
        guard reference.kind == .session else {
            throw .wrongRecordKind(id: reference.id.rawValue, expected: "session", found: reference.kind.rawValue)
        }
        return reference.id
    }

    func journalCall<Result>(_ body: () throws(JournalError) -> Result) throws(VaultError) -> Result {
        do { return try body() } catch { throw .invalidInput(error) }
    }
}
