public import Journal

/// What taking in a book from another program's file did (``ArchiveImport/book(for:reading:)``).
public struct ImportedBookOutcome: Sendable, Equatable {
    public let id: EntityID
    /// The vault did not have the book: this import added it.
    public let isNew: Bool
    /// The position, rating or status the book took from the file (a new book: with it).
    public let reading: ImportedReadingChange?
}

/// Records from another program's file, taken in by the same import as an archive's: one
/// transaction, every decision made by the one merge (``JournalMerge``'s import rules), an
/// outbox operation for every change. Each record carries its import key
/// (``Annotation/importKey``), so a file imported again, here or on any device this vault
/// syncs with, adds nothing twice.
extension ArchiveImport {
    /// The book a record from another program goes to (``BookIdentityPolicy``), added when
    /// the vault has none; the source's names are then remembered as names of that book.
    public func book(for source: ImportedBook) throws(StoreError) -> (id: EntityID, isNew: Bool) {
        let outcome = try book(for: source, reading: .none)
        return (outcome.id, outcome.isNew)
    }

    /// ``book(for:)``, and what of the file's `reading` the book takes
    /// (``JournalMerge/merge(imported:into:)``), in the same change: a book this import
    /// adds is added with it.
    public func book(for source: ImportedBook, reading: ImportedReading) throws(StoreError) -> ImportedBookOutcome {
        let lookups = ImportLookups(importer: self)
        let identity = try merge.identify(source, in: lookups)
        let outcome: ImportedBookOutcome
        if let known = identity.book {
            var taken: ImportedReadingChange?
            if reading != .none, case .change(let change) = merge.merge(imported: reading, into: try tables.books.book(known)) {
                try tables.books.change(known, action: .update, parts: Self.parts(of: change)) { book, clock in change.apply(to: &book, at: clock) }
                taken = change
            }
            outcome = ImportedBookOutcome(id: known, isNew: false, reading: taken)
        } else {
            let book = try Self.journalCall { () throws(JournalError) in
                try Book.new(title: source.title, authors: source.authors, edition: source.edition, at: now)
            }
            let decision = reading == .none ? .unchanged : merge.merge(imported: reading, into: book)
            let taken: ImportedReadingChange? = if case .change(let change) = decision { change } else { nil }
            try tables.books.insert(book, outboxState: .pending) { book, clock in taken?.apply(to: &book, at: clock) }
            summary.added.books += 1
            knownBooks?.add(book)
            addedBooks.insert(book.id)
            bookPresence[book.id] = .live
            outcome = ImportedBookOutcome(id: book.id, isNew: true, reading: taken)
        }
        for name in identity.namesToRecord {
            if name.takenFrom != nil { try tables.bookAliases.remove(name.name) }
            try tables.bookAliases.insert(name.name, book: outcome.id)
            aliases?[name.name] = outcome.id
        }
        return outcome
    }

    /// Adds a note or quote another program's file holds, through the one merge as an
    /// archive's new note is: unless the vault holds the record it was imported as before
    /// (``ImportKeyPolicy``: by its import key or one of `earlierKeys`, a Kindle
    /// highlight's shorter versions), which then takes what the file extends of it
    /// (``ReimportedTextPolicy``); or its book holds the same text.
    public func addImported(_ incoming: Annotation, earlierKeys: [String] = []) throws(StoreError) -> ImportOutcome {
        let key = incoming.importKey ?? ""
        if let id = try merge.importedRecord(keyedBy: [key] + earlierKeys, in: ImportLookups(importer: self)) {
            let local: Annotation
            do { local = try tables.annotations.annotation(id) } catch .recordNotFound, .recordUnreadable {
                // Purged, or damaged here: what it was cannot be told, so nothing is taken.
                summary.unchanged += 1
                return .unchanged
            }
            return try apply(merge.merge(reimported: incoming, into: local), to: local)
        }
        let decision = try merge.merge(addition: incoming, book: try presence(of: incoming.bookID)) { (text) throws(StoreError) in
            try texts(of: incoming.bookID).contains(Self.digest(text))
        }
        if !key.isEmpty { importKeys?[key] = incoming.id }
        return try apply(decision, to: incoming)
    }

    private static func parts(of change: ImportedReadingChange) -> BookTable.BookParts {
        var parts = change.progress == nil ? BookTable.BookParts.readingLog : .progress(rewind: false)
        parts.rating = change.rating != nil
        return parts
    }

    private static func journalCall<T>(_ body: () throws(JournalError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw .invalidInput(error) }
    }
}

/// What an import reads of the vault to find a book or a note again (``ImportTarget``), each
/// read once per import and kept up to date by it: the names other programs give the
/// vault's books, its live books by ISBN and folded title, its import keys.
private struct ImportLookups: ImportTarget {
    unowned let importer: ArchiveImport

    func book(named name: String) throws(StoreError) -> EntityID? {
        if importer.aliases == nil {
            // Read and written in place: a copy of every alias per row would make an import
            // of n books take n² time (a 20,000-row export: minutes).
            var byName: [String: EntityID] = [:]
            for (alias, book) in try importer.tables.bookAliases.all() { byName[alias] = book }
            importer.aliases = byName
        }
        return importer.aliases?[name]
    }

    func isLive(_ book: EntityID) throws(StoreError) -> Bool {
        try importer.presence(of: book) == .live
    }

    func liveBooks(withISBN isbn: String) throws(StoreError) -> [Book] {
        try knownLiveBooks().withISBN[isbn] ?? []
    }

    func liveBooks(withFoldedTitle title: String) throws(StoreError) -> [Book] {
        try knownLiveBooks().withTitle[title] ?? []
    }

    var booksAddedByThisImport: Set<EntityID> { importer.addedBooks }

    func record(withImportKey key: String) throws(StoreError) -> EntityID? {
        if importer.importKeys == nil { importer.importKeys = try importer.tables.annotations.importKeys() }
        return importer.importKeys?[key]
    }

    /// The live books, read once. One whose title or authors do not open cannot be matched
    /// by them: it is found only by a name recorded for it.
    private func knownLiveBooks() throws(StoreError) -> KnownBooks {
        if let known = importer.knownBooks { return known }
        var books = KnownBooks()
        for case .success(let book) in try importer.tables.books.all() { books.add(book) }
        importer.knownBooks = books
        return books
    }
}

/// The live books an import from another program can match a source to, by ISBN and by
/// folded title, each in the order they were read or added (the first that fits is taken):
/// one lookup per source instead of a fold of every title, so a 20,000-row export is matched
/// in linear time.
struct KnownBooks {
    private(set) var withISBN: [String: [Book]] = [:]
    private(set) var withTitle: [String: [Book]] = [:]

    mutating func add(_ book: Book) {
        if let isbn = book.edition.isbn { withISBN[isbn, default: []].append(book) }
        withTitle[TextFolding.fold(book.title), default: []].append(book)
    }
}
