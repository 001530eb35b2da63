import Foundation
public import Journal
import VaultStore

/// Any record `show` can display.
public enum JournalRecord: Sendable {
    case book(BookDetails)
    case annotation(AnnotationListing)
    case session(ReadingSession)
}

extension Vault {
    /// The record an ID argument names: a full id or a unique prefix of at least four characters.
    public func record(_ id: String) throws(VaultError) -> JournalRecord {
        let reference = try resolveID(id)
        let store = try unlockedStore()
        switch reference.kind {
        case .annotation:
            let annotation = try store.reading { tables throws(StoreError) in try tables.annotations.annotation(reference.id) }
            let title = try? store.reading { tables throws(StoreError) in try tables.books.book(annotation.bookID).title }
            return .annotation(AnnotationListing(annotation: annotation, bookTitle: title,
                                                 tags: try store.reading { tables throws(StoreError) in try tables.tags.shown(on: annotation.id) }))
        case .book:
            let counts = try store.reading { tables throws(StoreError) in try tables.records.counts(of: reference.id) }
            return .book(try storeCall { () throws(StoreError) in
                try store.read { tables throws(StoreError) in
                    BookDetails(book: try tables.books.book(reference.id), sessions: try tables.sessions.live(of: reference.id),
                                counts: counts, tags: try tables.tags.shown(on: reference.id))
                }
            })
        case .session:
            let sessions = try store.reading { tables throws(StoreError) in try tables.sessions.session(reference.id) }
            return .session(sessions)
        }
    }

    /// Replaces a note's or quote's body, locator, kind, comment and/or the time it was
    /// written (`writtenAt`, not in the future). `nil` leaves a field as it is; an empty
    /// locator or comment removes it. A quote needs a locator: removing a quote's, or making
    /// a note without one a quote, is refused.
    public func editAnnotation(_ id: String, body: String?, locator: String?, kind: AnnotationKind? = nil,
                               comment: String? = nil, writtenAt: Timestamp? = nil) throws(VaultError) -> Annotation {
        if let writtenAt, writtenAt > clock.now() { throw .invalidInput(.noteInFuture) }
        let reference = try resolveAnnotationID(id)
        let checkedBody = try body.map { (text) throws(VaultError) in
            try journalCall { () throws(JournalError) in try TextRules.body(text) }
        }
        // An empty locator removes the one recorded; a quote keeps its own.
        let checkedLocator = try locator.map { (text) throws(VaultError) -> Locator? in
            if text.isEmpty { return nil }
            return try journalCall { () throws(JournalError) in try Locator(text) }
        }
        let checkedComment = try comment.map { (text) throws(VaultError) -> String? in
            if text.isEmpty { return nil }
            return try journalCall { () throws(JournalError) in try TextRules.body(text, field: "comment") }
        }
        let store = try unlockedStore()
        let current = try store.reading { tables throws(StoreError) in try tables.annotations.annotation(reference.id) }
        if (kind ?? current.kind) == .quote, (checkedLocator ?? current.locator) == nil {
            throw .invalidInput(.quoteNeedsLocator)
        }
        return try store.writing { tables throws(StoreError) in try tables.annotations.edit(reference.id, body: checkedBody, locator: checkedLocator, kind: kind, comment: checkedComment,
                                                                                      createdAt: writtenAt) }
    }

    /// Moves notes and quotes to the book `reference` names, all or none: every id must name
    /// a live note or quote. Returns those that moved (one already there does not).
    public func move(_ ids: [String], to reference: String) throws(VaultError) -> [Annotation] {
        var notes: [EntityID] = []
        for id in ids {
            let note = try resolveAnnotationID(id).id
            if !notes.contains(note) { notes.append(note) }
        }
        let book = try book(named: reference)
        let store = try unlockedStore()
        return try store.writing { tables throws(StoreError) in try tables.annotations.move(notes, to: book.id) }
    }

    /// The live note or quote an ID names (any other kind of record is `wrongRecordKind`).
    private func resolveAnnotationID(_ id: String) throws(VaultError) -> RecordReference {
        let reference = try resolveID(id)
        guard reference.kind == .annotation else {
            throw .wrongRecordKind(id: reference.id.rawValue, expected: "note or quote", found: reference.kind.rawValue)
        }
        return reference
    }

    /// Tombstones notes, quotes, sessions and (empty) books, all or none: every id is
    /// resolved and checked, and every record deleted in one transaction, so one bad id
    /// deletes nothing. Says what each was, in the order given. With `sessionsOnly`, every id
    /// must name a session (`session delete`).
    ///
    /// `withNotes`: a book named goes with its live notes and quotes, once `confirm` (given
    /// each such book and how many notes and quotes it has) says yes (`declined`, and
    /// nothing deleted, when it says no).
    public func delete(_ ids: [String], sessionsOnly: Bool = false, withNotes: Bool = false,
                       confirm: ([(book: Book, counts: JournalCounts)]) -> Bool = { _ in true }) throws(VaultError) -> [(kind: String, id: EntityID)] {
        var references: [RecordReference] = []
        for id in ids {
            let reference = try resolveID(id)
            if sessionsOnly, reference.kind != .session {
                throw .wrongRecordKind(id: reference.id.rawValue, expected: "session", found: reference.kind.rawValue)
            }
            if !references.contains(reference) { references.append(reference) }
        }
        let store = try unlockedStore()
        if withNotes {
            var withContent: [(book: Book, counts: JournalCounts)] = []
            for reference in references where reference.kind == .book {
                let counts = try store.reading { tables throws(StoreError) in try tables.records.counts(of: reference.id) }
                guard counts.notes + counts.quotes > 0 else { continue }
                withContent.append((try store.reading { tables throws(StoreError) in try tables.books.book(reference.id) }, counts))
                let notes = try store.reading { tables throws(StoreError) in try tables.annotations.liveIDs(of: reference.id) }
                for note in notes where !references.contains(where: { $0.id == note }) {
                    references.insert(RecordReference(id: note, kind: .annotation), at: 0)
                }
            }
            guard withContent.isEmpty || confirm(withContent) else { throw .declined }
        }
        let deleted = try store.writing { tables throws(StoreError) in try tables.trash.delete(references) }
        if references.contains(where: { $0.kind == .book }) { cachedTitles = nil }
        return deleted
    }

    /// The live record (a deleted one, with `deleted`) an ID argument names: a full id, a
    /// short id (``ShortID``), a unique prefix of the full id, or a ``RecentReference``.
    /// A short id is tried before a prefix, since it is what listings show.
    func resolveID(_ text: String, deleted: Bool = false) throws(VaultError) -> RecordReference {
        let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let recent = RecentReference(typed), !deleted { return try resolve(recent, typed: typed) }
        guard typed.count >= BookReference.minimumPrefix, EntityID.isPossiblePrefix(typed) else { throw .malformedID }
        let store = try unlockedStore()
        if ShortID.isPossible(typed) {
            let named = try store.reading { tables throws(StoreError) in try tables.records.matching(shortID: typed, deleted: deleted) }
            if named.count == 1 { return named[0] }
            if named.count > 1 { throw .ambiguousID(candidates: named.map(\.id.rawValue).sorted()) }
        }
        let matches = try store.reading { tables throws(StoreError) in try tables.records.matching(idPrefix: typed, deleted: deleted) }
        if let exact = matches.first(where: { $0.id.rawValue == typed }) { return exact }
        switch matches.count {
        case 0: throw .recordNotFound(id: typed)
        case 1: return matches[0]
        default: throw .ambiguousID(candidates: matches.map(\.id.rawValue).sorted())
        }
    }

    /// The record `@last`, `@last~N` or `@last-book` names.
    func resolve(_ recent: RecentReference, typed: String) throws(VaultError) -> RecordReference {
        let store = try unlockedStore()
        let skipping: Int
        switch recent {
        case .entry(let count): skipping = count
        case .bookOfLatestEntry: skipping = 0
        }
        guard let entry = try store.reading({ tables throws(StoreError) in try tables.records.recentAnnotation(skipping: skipping) }) else {
            throw .noRecentEntry(reference: typed)
        }
        switch recent {
        case .entry: return RecordReference(id: entry.id, kind: .annotation)
        case .bookOfLatestEntry: return RecordReference(id: entry.bookID, kind: .book)
        }
    }

    /// How a message names one record: its short id, or its full id when it has none.
    public func shortID(_ id: EntityID) -> String {
        (try? recordNames())?.shortID(id) ?? id.rawValue
    }

    /// How this command shows ids to a person (``ShortID``); full ids stay in `--json`.
    public func recordNames() throws(VaultError) -> RecordNames {
        RecordNames(store: try unlockedStore())
    }
}
