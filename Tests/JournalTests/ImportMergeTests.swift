import Testing
@testable import Journal

/// The one merge's rules for records from another program's file, without storage: which
/// book and which note they are, and what a book or note here takes of them.
@Suite struct ImportMergeTests {
    static let merge = JournalMergeTests.merge

    static func book(_ title: String, authors: [String] = [], progress: Double = 0, rating: Double? = nil,
                     isbn: String? = nil, log: ReadingLog = ReadingLog(events: []), deleted: Bool = false,
                     at wall: Int64 = 1_700_000_000_000) -> Book {
        var book = Book(id: EntityID.generate(at: ms(wall)), title: title, authors: authors, progress: progress, createdAt: ms(1),
                        updatedAt: ms(1), deletedAt: deleted ? ms(2) : nil, version: 1)
        book.rating = rating
        book.edition = Edition(isbn: isbn)
        book.readingLog = log
        return book
    }

    // MARK: - The reading a file records

    @Test func aPositionOnlyMovesForwardAndARatingOnlyFillsAnEmptyOne() {
        let here = Self.book("Dune", progress: 40, rating: 4)
        #expect(Self.merge.merge(imported: ImportedReading(progress: 30, rating: 2), into: here) == .unchanged)
        #expect(Self.merge.merge(imported: ImportedReading(progress: 60, rating: 2), into: here) == .change(ImportedReadingChange(progress: 60)))
        let unrated = Self.book("Dune", progress: 40)
        #expect(Self.merge.merge(imported: ImportedReading(rating: 3), into: unrated) == .change(ImportedReadingChange(rating: 3)))
        // A deleted book takes nothing.
        #expect(Self.merge.merge(imported: ImportedReading(progress: 90, rating: 3), into: Self.book("Gone", deleted: true)) == .unchanged)
    }

    @Test func aStatusIsRecordedOnceWhateverTheDayWhenADayIsNotKnown() {
        let clock = HybridTimestamp(wallMilliseconds: 5, counter: 0, deviceID: "here")
        let finishedMarch = ReadingEvent(status: .finished, on: ms(1_000), clock: clock)
        let here = Self.book("Dune", log: ReadingLog(events: [finishedMarch]))
        // The same status on the same day, or on a day not known: held already.
        #expect(Self.merge.merge(imported: ImportedReading(status: ImportedStatus(.finished, on: ms(1_000), dayKnown: true)), into: here) == .unchanged)
        #expect(Self.merge.merge(imported: ImportedReading(status: ImportedStatus(.finished, on: ms(9_000), dayKnown: false)), into: here) == .unchanged)
        // Another day, known: a second reading.
        let again = ImportedStatus(.finished, on: ms(9_000), dayKnown: true)
        guard case .change(let change) = Self.merge.merge(imported: ImportedReading(status: again), into: here) else {
            Issue.record("expected the status to be recorded"); return
        }
        var book = here
        change.apply(to: &book, at: clock)
        #expect(book.readingLog.events.count == 2 && book.readingLog.events.contains(again.event(at: clock)))
    }

    // MARK: - A note imported again

    @Test func aNoteImportedAgainTakesALongerTextOnlyUntouchedAndACommentThatExtendsIts() {
        var local = JournalMergeTests.note("the spice", at: 10)
        local.comment = "mine"
        var incoming = JournalMergeTests.note("the spice must flow", at: 20)
        incoming.comment = "mine, and more"
        #expect(Self.merge.merge(reimported: incoming, into: local)
                == .change(AnnotationChange(body: "the spice must flow", comment: .some("mine, and more")), isConflict: false, reviveBook: false))
        // Changed here since: the reader's text stays; a comment that extends theirs is taken.
        var edited = local
        edited.version = 2
        #expect(Self.merge.merge(reimported: incoming, into: edited)
                == .change(AnnotationChange(comment: .some("mine, and more")), isConflict: false, reviveBook: false))
        incoming.comment = "another comment"
        #expect(Self.merge.merge(reimported: incoming, into: edited) == .unchanged)
        // A comment removed here after a change stays removed; a deleted note stays deleted.
        edited.comment = nil
        #expect(Self.merge.merge(reimported: incoming, into: edited) == .unchanged)
        #expect(Self.merge.merge(reimported: incoming, into: JournalMergeTests.note("the spice", at: 10, deleted: true)) == .unchanged)
    }

    // MARK: - Which book

    /// The vault as an import sees it, in memory.
    struct Vault: ImportTarget {
        var names: [String: EntityID] = [:]
        var books: [Book] = []
        var added: Set<EntityID> = []
        var keys: [String: EntityID] = [:]
        var sessions: [ReadingSession] = []

        func book(named name: String) -> EntityID? { names[name] }
        func sessions(of book: EntityID) -> [ReadingSession] { sessions.filter { $0.bookID == book } }
        func isLive(_ book: EntityID) -> Bool { books.contains { $0.id == book && $0.deletedAt == nil } }
        func liveBooks(withISBN isbn: String) -> [ImportCandidate] {
            books.filter { $0.deletedAt == nil && $0.edition.isbn == isbn }.map(ImportCandidate.init)
        }
        func liveBooks(withFoldedTitle title: String) -> [ImportCandidate] {
            books.filter { $0.deletedAt == nil && TextFolding.fold($0.title) == title }.map(ImportCandidate.init)
        }
        var booksAddedByThisImport: Set<EntityID> { added }
        func record(withImportKey key: String) -> EntityID? { keys[key] }
    }

    // MARK: - Sessions

    /// A session's natural key is its book and its start: the same start is the session
    /// imported before (extended by a longer one unless edited or deleted here); one that
    /// overlaps it holds the same sitting; anything else is new.
    @Test func anImportedSessionIsFoundByItsStartOrBySessionsOfTheSameSitting() {
        let book = EntityID.generate(at: ms(1)), other = EntityID.generate(at: ms(2))
        func session(_ book: EntityID, _ start: Int64, _ end: Int64, pages: Int, version: Int64 = 1, deleted: Bool = false) -> ReadingSession {
            ReadingSession(id: .generate(at: ms(start)), bookID: book, startedAt: ms(start), endedAt: ms(end), pagesRead: pages,
                           deletedAt: deleted ? ms(end) : nil, version: version)
        }
        let imported = session(book, 1_000_000, 2_000_000, pages: 10)
        var vault = Vault(sessions: [imported, session(other, 5_000_000, 6_000_000, pages: 3)])
        func decide(_ incoming: ReadingSession) -> ImportedSessionDecision { Self.merge.merge(importedSession: incoming, in: vault) }
        #expect(decide(session(book, 1_000_000, 2_000_000, pages: 10)) == .unchanged(imported.id))
        #expect(decide(session(book, 1_000_000, 2_500_000, pages: 12)) == .extend(imported.id, endedAt: ms(2_500_000), pagesRead: 12))
        #expect(decide(session(book, 1_000_000, 1_500_000, pages: 4)) == .unchanged(imported.id), "a shorter copy takes nothing away")
        #expect(decide(session(book, 1_500_000, 3_000_000, pages: 4)) == .unchanged(imported.id), "the same sitting, typed or corrected")
        #expect(decide(session(book, 5_000_000, 6_000_000, pages: 3)) == .add, "another book's session is no match")
        #expect(decide(session(book, 2_000_001, 3_000_000, pages: 3)) == .add)
        vault.sessions[0].version = 2
        #expect(decide(session(book, 1_000_000, 2_500_000, pages: 12)) == .unchanged(imported.id), "the reader's correction wins")
        vault.sessions[0] = session(book, 1_000_000, 2_000_000, pages: 10, deleted: true)
        #expect(decide(session(book, 1_000_000, 2_500_000, pages: 12)) == .unchanged(vault.sessions[0].id), "deleted stays deleted")
    }

    @Test func aBookIsFoundByItsNamesThenItsISBNThenItsTitleWithAgreeingAuthors() {
        let dune = Self.book("Dune", authors: ["Frank Herbert"], isbn: "9780441013593", at: 1)
        let renamed = Self.book("Renamed here", at: 2)
        var vault = Vault(names: ["goodreads:42": renamed.id], books: [dune, renamed])
        #expect(Self.merge.identify(ImportedBook(title: "Whatever", authors: [], identifiers: ["goodreads:42"]), in: vault).book == renamed.id)
        #expect(Self.merge.identify(ImportedBook(title: "Other", authors: [], edition: Edition(isbn: "9780441013593")), in: vault).book == dune.id)
        let byTitle = Self.merge.identify(ImportedBook(title: "DUNE", authors: ["Herbert, Frank"]), in: vault)
        #expect(byTitle.book == dune.id)
        #expect(byTitle.namesToRecord.map(\.name) == [BookAlias.titleAndAuthors("DUNE", authors: ["Herbert, Frank"])])
        #expect(Self.merge.identify(ImportedBook(title: "Dune", authors: ["Someone Else"]), in: vault).book == nil)
        // A book this import added is not taken by title for a source with an id of its own.
        vault.added = [dune.id]
        #expect(Self.merge.identify(ImportedBook(title: "Dune", authors: [], identifiers: ["goodreads:7"]), in: vault).book == nil)
    }

    @Test func aNameOfABookGoneMovesAndOneOfALiveBookStaysItsOwn() {
        let gone = Self.book("Gone", deleted: true, at: 1)
        let other = Self.book("Other", at: 2)
        let vault = Vault(names: ["koreader:abc": gone.id, "isbn:1": other.id], books: [gone, other])
        let identity = Self.merge.identify(ImportedBook(title: "New", authors: [], identifiers: ["koreader:abc", "isbn:1"]), in: vault)
        #expect(identity.book == other.id)   // a live book's identifier names it
        let fresh = Self.merge.identify(ImportedBook(title: "New", authors: [], identifiers: ["koreader:abc"]), in: vault)
        #expect(fresh.book == nil)           // a name of a book gone names no book
        #expect(fresh.namesToRecord.first == BookIdentity.Name(name: "koreader:abc", takenFrom: gone.id))
    }

    @Test func aNoteIsTheRecordItsKeyOrAnEarlierKeyWasImportedAs() {
        let first = EntityID.generate(at: ms(1))
        let vault = Vault(keys: ["kindle:short": first])
        #expect(Self.merge.importedRecord(keyedBy: ["kindle:long", "kindle:short"], in: vault) == first)
        #expect(Self.merge.importedRecord(keyedBy: ["kindle:other", ""], in: vault) == nil)
    }
}
