public import Journal

/// A book as another program names it, for ``ArchiveImport/book(for:)``.
public struct ImportedBook: Sendable {
    public var title: String
    public var authors: [String]
    /// What the source identifies it by, strongest first: `goodreads:<id>`, `isbn:<digits>`,
    /// `asin:<ASIN>` (Readwise), `koreader:<partial MD5>`.
    public var identifiers: [String]
    /// What the source knows of the edition, given to a book this import adds.
    public var edition: Edition

    public init(title: String, authors: [String], identifiers: [String] = [], edition: Edition = .unknown) {
        self.title = title
        self.authors = authors
        self.identifiers = identifiers
        self.edition = edition
    }
}

/// Records from another program's file (a Kindle's clippings, KOReader's sidecars), taken in
/// by the same import as an archive's: one transaction, the one merge, an outbox operation
/// for every change. Each record carries its import key (``Annotation/importKey``), so a
/// file imported again, here or on any device this vault syncs with, adds nothing twice.
extension ArchiveImport {
    /// The book a record from another program goes to, added when the vault has none: the
    /// book one of the source's identifiers, or its title and authors, already name (an
    /// earlier import: the book may have been renamed here since); else the book its title
    /// alone names (`bmvault book alias`); else a book with the same ISBN; else a live book
    /// with the same title (case and accents aside) whose authors agree (the same words in any
    /// order: Kindle writes `Herbert, Frank`; either side may have none). The identifiers, and
    /// the title with the authors, are then remembered as names of that book (a name of a
    /// deleted book is not followed, and moves to the book found).
    ///
    /// A source with an identifier (Goodreads' Book Id) is matched by title only to a book
    /// the vault had before this import: two rows of one export with two ids are two
    /// editions the reader keeps apart (Goodreads lists both), not one book.
    public func book(for source: ImportedBook) throws(StoreError) -> (id: EntityID, isNew: Bool) {
        let titleAndAuthors = BookAlias.titleAndAuthors(source.title, authors: source.authors)
        let recorded = source.identifiers + [titleAndAuthors]
        // Read and written in place (`self.aliases`): a copy of every alias per row would make
        // an import of n books take n² time (a 20,000-row Goodreads export: minutes).
        try loadAliases()
        let id: EntityID
        let isNew: Bool
        let apart = source.identifiers.isEmpty ? [] : addedBooks
        // A name of a deleted book names no book: a book merged on another device (this one
        // does not have its names) must not come back with the next import.
        func live(_ id: EntityID?) throws(StoreError) -> EntityID? {
            guard let id, try presence(of: id) == .live else { return nil }
            return id
        }
        var known: EntityID?
        for identifier in source.identifiers where known == nil { known = try live(self.aliases?[identifier]) }
        if known == nil, let byTitle = try live(self.aliases?[titleAndAuthors]), !apart.contains(byTitle) { known = byTitle }
        if known == nil { known = try live(self.aliases?[BookAlias.title(source.title)]) }
        if known == nil { known = try liveBook(matching: source, apartFrom: apart) }
        if let known {
            (id, isNew) = (known, false)
        } else {
            let book = try Self.journalCall { () throws(JournalError) in
                try Book.new(title: source.title, authors: source.authors, edition: source.edition, at: now)
            }
            try tables.books.insert(book, outboxState: .pending)
            summary.added.books += 1
            knownBooks?.add(book)
            addedBooks.insert(book.id)
            (id, isNew) = (book.id, true)
        }
        for name in recorded where self.aliases?[name] != id {
            if let holder = self.aliases?[name] {
                guard try live(holder) == nil else { continue }   // another live book's name stays its own
                try tables.bookAliases.remove(name)
            }
            try tables.bookAliases.insert(name, book: id)
            self.aliases?[name] = id
        }
        return (id, isNew)
    }

    /// Adds a note or quote another program's file holds, through the one merge as an
    /// archive's new note is: unless the vault holds a record of its import key, or of one of
    /// `earlierKeys` (a Kindle highlight's shorter versions, which a re-highlight replaced),
    /// imported before, here or on a device this one synced with (a deleted one stays
    /// deleted); or its book holds the same text.
    ///
    /// A record imported before and not changed here since (its first version) takes the
    /// source's longer text (a re-highlight holding it) and comment; one changed since keeps
    /// its text, and takes a comment only when its own is the start of the new one (a note
    /// typed on the highlight later): what the reader wrote, or removed, here stays so.
    public func addImported(_ incoming: Annotation, earlierKeys: [String] = []) throws(StoreError) -> ImportOutcome {
        let key = incoming.importKey ?? ""
        let known = try knownImportKeys()
        if let id = ([key] + earlierKeys).lazy.compactMap({ known[$0] }).first {
            let local: Annotation
            do { local = try tables.annotations.annotation(id) } catch .recordNotFound, .recordUnreadable {
                summary.unchanged += 1
                return .unchanged
            }
            guard local.deletedAt == nil else {
                summary.unchanged += 1
                return .unchanged
            }
            let untouched = local.version == 1
            let body = untouched && incoming.body != local.body && incoming.body.contains(local.body) ? incoming.body : nil
            let comment = incoming.comment.flatMap { comment in
                comment != local.comment && (local.comment.map { comment.hasPrefix($0) } ?? untouched) ? comment : nil
            }
            guard body != nil || comment != nil else {
                summary.unchanged += 1
                return .unchanged
            }
            try tables.annotations.change(id, action: .update) { annotation in
                if let body { annotation.body = body }
                if let comment { annotation.comment = comment }
            }
            count(local.kind, updated: true)
            return .updated
        }
        let decision = try merge.merge(addition: incoming, book: try presence(of: incoming.bookID)) { (text) throws(StoreError) in
            try texts(of: incoming.bookID).contains(Self.digest(text))
        }
        if !key.isEmpty { importKeys?[key] = incoming.id }
        return try apply(decision, to: incoming)
    }

    /// Moves a book's position forward to `percent` (another program read further); never
    /// back, and not for a deleted book. Returns whether it moved.
    @discardableResult
    public func raiseProgress(of book: EntityID, to percent: Double) throws(StoreError) -> Bool {
        guard try presence(of: book) == .live, percent > (try tables.books.progress(of: book)) else { return false }
        try tables.books.change(book, action: .update, parts: .progress(rewind: false)) { $0.progress = percent }
        return true
    }

    /// Rates a live book the reader has not rated here. Returns whether it did.
    @discardableResult
    public func rateIfUnrated(_ book: EntityID, stars: Double) throws(StoreError) -> Bool {
        guard try presence(of: book) == .live, try tables.books.book(book).rating == nil else { return false }
        try tables.books.change(book, action: .update, parts: .rating) { $0.rating = stars }
        return true
    }

    /// Records that a live book reached `status` on `day` (`dayKnown` false: the source does
    /// not say when, and `day` only places it), unless its log has that status already on
    /// that day, or at all when either day is not known: an import records each status once,
    /// however often it runs. Returns whether it did.
    @discardableResult
    public func recordStatus(_ status: ReadingStatus, of book: EntityID, on day: Timestamp, dayKnown: Bool) throws(StoreError) -> Bool {
        guard try presence(of: book) == .live else { return false }
        let probe = ReadingEvent(status: status, on: day, clock: .origin, dayKnown: dayKnown)
        guard !(try tables.books.book(book).readingLog.holds(probe)) else { return false }
        try tables.books.change(book, action: .update, parts: .readingLog) { book, stamp in
            book.readingLog = book.readingLog.adding(ReadingEvent(status: status, on: day, clock: stamp, dayKnown: dayKnown))
        }
        return true
    }

    /// A live book with the source's ISBN, else with its title and agreeing authors; none of
    /// `apart`.
    private func liveBook(matching source: ImportedBook, apartFrom apart: Set<EntityID>) throws(StoreError) -> EntityID? {
        let books = try knownLiveBooks()
        if let isbn = source.edition.isbn, let book = books.withISBN[isbn]?.first(where: { !apart.contains($0.id) }) {
            return book.id
        }
        return books.withTitle[TextFolding.fold(source.title)]?.first {
            !apart.contains($0.id) && Self.authorsAgree($0.authors, source.authors)
        }?.id
    }

    // MARK: - What the vault holds, read once

    private func knownImportKeys() throws(StoreError) -> [String: EntityID] {
        if let importKeys { return importKeys }
        let keys = try store.importKeys()
        importKeys = keys
        return keys
    }

    /// Reads the names other programs give the vault's books into ``aliases``, once.
    private func loadAliases() throws(StoreError) {
        guard aliases == nil else { return }
        var byName: [String: EntityID] = [:]
        for (alias, book) in try tables.bookAliases.all() { byName[alias] = book }
        aliases = byName
    }

    private func knownLiveBooks() throws(StoreError) -> KnownBooks {
        if let knownBooks { return knownBooks }
        var books = KnownBooks()
        for book in try tables.books.all().compactMap({ try? $0.get() }) { books.add(book) }
        knownBooks = books
        return books
    }

    /// Whether two lists of authors name the same people: the words of one (folded) are all
    /// words of the other, in any order; a side with none agrees with anything.
    static func authorsAgree(_ here: [String], _ source: [String]) -> Bool {
        func words(_ authors: [String]) -> Set<Substring> {
            Set(TextFolding.fold(authors.joined(separator: " ")).split { !$0.isLetter && !$0.isNumber })
        }
        let (mine, theirs) = (words(here), words(source))
        return mine.isEmpty || theirs.isEmpty || mine.isSubset(of: theirs) || theirs.isSubset(of: mine)
    }

    private static func journalCall<T>(_ body: () throws(JournalError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw .invalidInput(error) }
    }
}

extension Store {
    /// Every import key the vault holds (live and deleted records alike), with its record.
    /// A key that does not open (damaged) is left out: its record may then be imported again.
    func importKeys() throws(StoreError) -> [String: EntityID] {
        let cipher = try requireCipher()
        var keys: [String: EntityID] = [:]
        try database.forEachRow("SELECT id, import_key FROM annotation WHERE import_key IS NOT NULL") { row in
            guard let id = try? EntityID(validating: row.text(0)),
                  let key = try? cipher.open(row.blob(1), table: "annotation", id: row.text(0), field: "import_key") else { return }
            keys[key] = id
        }
        return keys
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
