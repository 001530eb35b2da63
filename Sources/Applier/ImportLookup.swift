public import Journal
import SyncWire
public import VaultStore

/// What an import from another program (or `file add`, for the book a file's metadata
/// names) reads of the vault to find a book or a note again (``ImportTarget``), each read
/// once per transaction and kept up to date as it adds: the names other programs give the
/// vault's books, its live books by ISBN and folded title, its import keys, each book's
/// presence. And the application of what ``JournalMerge`` decides for a book.
public final class ImportLookup: ImportTarget {
    let tables: Tables
    let now: Timestamp
    let merge = JournalMerge.vault
    /// Read and written in place: a copy of every alias per row would make an import of n
    /// books take n² time (a 20,000-row export: minutes).
    private var aliases: [String: EntityID]?
    private var knownBooks: KnownBooks?
    private var importKeys: [String: EntityID]?
    private var presences: [EntityID: RecordPresence] = [:]
    private var added = Set<EntityID>()
    /// Each book's sessions, read when an imported session of it is first met.
    private var sessionsOfBook: [EntityID: [ReadingSession]] = [:]

    /// Lookups inside the write transaction whose `tables` these are; `now` dates a book added.
    public init(tables: Tables, now: Timestamp) {
        self.tables = tables
        self.now = now
    }

    // MARK: - Applying

    /// The book `source` is (``BookIdentityPolicy``), added when the vault has none, and
    /// what of the file's `reading` it takes (``JournalMerge/merge(imported:into:)``) in the
    /// same change: a book added is added with it. The source's names are then remembered
    /// as names of that book.
    public func book(for source: ImportedBook, reading: ImportedReading = .none) throws(StoreError) -> ImportedBookOutcome {
        let identity = try merge.identify(source, in: self)
        let outcome: ImportedBookOutcome
        if let known = identity.book {
            var taken: ImportedReadingChange?
            if reading != .none, case .change(let change) = merge.merge(imported: reading, into: try tables.books.book(known)) {
                try tables.books.change(known, action: .update, parts: Self.parts(of: change)) { book, clock in change.apply(to: &book, at: clock) }
                taken = change
            }
            outcome = ImportedBookOutcome(id: known, isNew: false, reading: taken)
        } else {
            let book: Book
            do { book = try Book.new(title: source.title, authors: source.authors, edition: source.edition, at: now) } catch {
                throw .invalidInput(error)
            }
            let decision = reading == .none ? .unchanged : merge.merge(imported: reading, into: book)
            let taken: ImportedReadingChange? = if case .change(let change) = decision { change } else { nil }
            try tables.books.insert(book, outboxState: .pending) { book, clock in taken?.apply(to: &book, at: clock) }
            knownBooks?.add(book)
            added.insert(book.id)
            presences[book.id] = .live
            outcome = ImportedBookOutcome(id: book.id, isNew: true, reading: taken)
        }
        for name in identity.namesToRecord {
            if name.takenFrom != nil { try tables.bookAliases.remove(name.name) }
            try tables.bookAliases.insert(name.name, book: outcome.id)
            aliases?[name.name] = outcome.id
        }
        return outcome
    }

    private static func parts(of change: ImportedReadingChange) -> BookTable.BookParts {
        var parts = change.progress == nil ? BookTable.BookParts.readingLog : .progress(rewind: false)
        parts.rating = change.rating != nil
        return parts
    }

    // MARK: - What the vault holds

    /// A book's presence, as this transaction has left it so far.
    func presence(of book: EntityID) throws(StoreError) -> RecordPresence {
        if let known = presences[book] { return known }
        let presence = try tables.books.presence(book)
        presences[book] = presence
        return presence
    }

    /// Records that `book` is now `presence` (nil: read it again when next asked).
    func note(_ presence: RecordPresence?, of book: EntityID) {
        presences[book] = presence
    }

    /// Records that a note this transaction added holds `key`.
    func note(importKey key: String, of record: EntityID) {
        importKeys?[key] = record
    }

    public func book(named name: String) throws(StoreError) -> EntityID? {
        if aliases == nil {
            var byName: [String: EntityID] = [:]
            for (alias, book) in try tables.bookAliases.all() { byName[alias] = book }
            aliases = byName
        }
        return aliases?[name]
    }

    public func isLive(_ book: EntityID) throws(StoreError) -> Bool {
        try presence(of: book) == .live
    }

    public func liveBooks(withISBN isbn: String) throws(StoreError) -> [ImportCandidate] {
        try knownLiveBooks().withISBN[isbn] ?? []
    }

    public func liveBooks(withFoldedTitle title: String) throws(StoreError) -> [ImportCandidate] {
        try knownLiveBooks().withTitle[title] ?? []
    }

    public var booksAddedByThisImport: Set<EntityID> { added }

    public func record(withImportKey key: String) throws(StoreError) -> EntityID? {
        if importKeys == nil { importKeys = try tables.annotations.importKeys() }
        return importKeys?[key]
    }

    public func sessions(of book: EntityID) throws(StoreError) -> [ReadingSession] {
        if let known = sessionsOfBook[book] { return known }
        let read = added.contains(book) ? [] : try tables.sessions.all(of: book)
        sessionsOfBook[book] = read
        return read
    }

    /// Records a session this transaction added or changed.
    func note(session: ReadingSession) {
        var sessions = sessionsOfBook[session.bookID] ?? []
        if let index = sessions.firstIndex(where: { $0.id == session.id }) { sessions[index] = session } else { sessions.append(session) }
        sessionsOfBook[session.bookID] = sessions
    }

    /// The live books, read once. One whose title or authors do not open cannot be matched
    /// by them: it is found only by a name recorded for it.
    private func knownLiveBooks() throws(StoreError) -> KnownBooks {
        if let knownBooks { return knownBooks }
        var books = KnownBooks()
        for case .success(let book) in try tables.books.all() { books.add(book) }
        knownBooks = books
        return books
    }
}

/// The live books an import from another program can match a source to, by ISBN and by
/// folded title, each in the order they were read or added (the first that fits is taken):
/// one lookup per source instead of a fold of every title, so a 20,000-row export is matched
/// in linear time.
struct KnownBooks {
    private(set) var withISBN: [String: [ImportCandidate]] = [:]
    private(set) var withTitle: [String: [ImportCandidate]] = [:]

    mutating func add(_ book: Book) {
        let candidate = ImportCandidate(book)
        if let isbn = book.edition.isbn { withISBN[isbn, default: []].append(candidate) }
        withTitle[TextFolding.fold(book.title), default: []].append(candidate)
    }
}

// Not Sendable: its caches belong to the one transaction, on the thread that runs it.
@available(*, unavailable)
extension ImportLookup: Sendable {}
