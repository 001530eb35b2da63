public import Journal
public import VaultStore

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
        let outcome = try lookup.book(for: source, reading: reading)
        if outcome.isNew { summary.added.books += 1 }
        return outcome
    }

    /// Adds a note or quote another program's file holds, through the one merge as an
    /// archive's new note is: unless the vault holds the record it was imported as before
    /// (``ImportKeyPolicy``: by its import key or one of `earlierKeys`, a Kindle
    /// highlight's shorter versions), which then takes what the file extends of it
    /// (``ReimportedTextPolicy``); or its book holds the same text.
    public func addImported(_ incoming: Annotation, earlierKeys: [String] = []) throws(StoreError) -> ImportOutcome {
        let key = incoming.importKey ?? ""
        if let id = try merge.importedRecord(keyedBy: [key] + earlierKeys, in: lookup) {
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
        if !key.isEmpty { lookup.note(importKey: key, of: incoming.id) }
        return try apply(decision, to: incoming)
    }

    /// Records a reading session another program's file holds (KOReader's statistics),
    /// through the one merge (``ImportedSessionPolicy``): unless its book has it already (the
    /// same start: imported before, then extended if the file's is longer and the reader has
    /// not changed it; or a session of the same sitting). Its book must be live here (found
    /// or added by ``book(for:reading:)``), and it must not end after the import's time.
    public func addImported(_ incoming: ReadingSession) throws(StoreError) -> ImportOutcome {
        switch try merge.merge(importedSession: incoming, in: lookup) {
        case .add:
            try tables.sessions.insert(incoming, outboxState: .pending)
            lookup.note(session: incoming)
            summary.added.sessions += 1
            return .added
        case .unchanged:
            summary.unchanged += 1
            return .unchanged
        case .extend(let id, let endedAt, let pagesRead):
            let changed = try tables.sessions.edit(id) { (session) throws(JournalError) in
                try session.edited(startedAt: nil, endedAt: endedAt, pagesRead: pagesRead, at: now)
            }
            lookup.note(session: changed)
            summary.updated.sessions += 1
            return .updated
        }
    }
}
