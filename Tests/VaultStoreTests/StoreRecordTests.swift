import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto

/// Reading back what was written, tombstones, lookups and counts.
@Suite struct StoreRecordTests {
    @Test func recordsRoundTripExactly() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook("Пётр и «Ἰλιάς» 📚", authors: ["Α. Author", "B. Writer", "C. Third"], clock: fixture.clock)
        fixture.clock.advance(milliseconds: 1)
        let bare = try newBook("No Authors", authors: [], clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(bare) }
        let body = "  Indented line\n\nsecond paragraph — with ünïcödé\tand tabs"
        let note = try newNote(book, body, clock: fixture.clock)
        let quote = try newQuote(book, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(quote) }

        let reopened = try fixture.reopen()
        #expect(try reopened.read { tables throws(StoreError) in try tables.books.book(book.id) } == book)
        #expect(try reopened.read { tables throws(StoreError) in try tables.books.book(bare.id) } == bare)
        #expect(try reopened.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) } == note)
        #expect(try reopened.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) }.body == body)
        #expect(try reopened.read { tables throws(StoreError) in try tables.annotations.annotation(quote.id) } == quote)
        #expect(try reopened.read { tables throws(StoreError) in try tables.books.all() }.map { try $0.get() } == [book, bare])
    }

    @Test func deletedAnnotationIsATombstone() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let kept = try newNote(book, "kept", clock: fixture.clock)
        let doomed = try newQuote(book, "doomed", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(kept) }
        try store.write { tables throws(StoreError) in try tables.annotations.add(doomed) }
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts(of: book.id) } == JournalCounts(books: 1, sessions: 0, notes: 1, quotes: 1))

        fixture.clock.advance(seconds: 5)
        let deleted = try store.write { tables throws(StoreError) in try tables.annotations.delete(doomed.id) }
        #expect(deleted.deletedAt == fixture.clock.now())

        // Still in the table, with deleted_at set.
        #expect(try store.integer("SELECT count(*) FROM annotation") == 2)
        #expect(try store.integer("SELECT deleted_at FROM annotation WHERE id = '\(doomed.id.rawValue)'")
                == fixture.clock.now().millisecondsSince1970)
        // Gone from listings and counts.
        #expect(try store.liveAnnotations().map { try $0.get().id } == [kept.id])
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts() } == JournalCounts(books: 1, sessions: 0, notes: 1, quotes: 0))
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts(of: book.id) } == JournalCounts(books: 1, sessions: 0, notes: 1, quotes: 0))
        #expect(try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: doomed.id.rawValue) }.isEmpty)
        // Still readable by id, and in listings that ask for tombstones.
        let tombstone = try store.read { tables throws(StoreError) in try tables.annotations.annotation(doomed.id) }
        #expect(tombstone.deletedAt == fixture.clock.now())
        #expect(tombstone.body == "doomed")
        #expect(tombstone.version == 2)
        #expect(try store.liveAnnotations(AnnotationFilter(includeDeleted: true)).count == 2)
        // A tombstone cannot be edited or deleted again, and nothing is enqueued for trying.
        let outbox = try store.outboxRows().count
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.delete(doomed.id) } } == .recordNotFound(id: doomed.id.rawValue))
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.edit(doomed.id, body: "back", locator: nil) } }
                == .recordNotFound(id: doomed.id.rawValue))
        #expect(try store.outboxRows().count == outbox)
        #expect(try store.read { tables throws(StoreError) in try tables.annotations.annotation(doomed.id) } == tombstone)
    }

    @Test func deleteBookIsRefusedWhileItHasLiveAnnotations() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let notes = [try newNote(book, "one", clock: fixture.clock), try newNote(book, "two", clock: fixture.clock),
                     try newQuote(book, clock: fixture.clock)]
        for note in notes { try store.write { tables throws(StoreError) in try tables.annotations.add(note) } }
        let session = try newSession(book, clock: fixture.clock)
        try store.write { tables throws(StoreError) in _ = try tables.sessions.add(session) }

        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.delete(book.id) } } == .bookHasAnnotations(id: book.id.rawValue, count: 3))
        try store.write { tables throws(StoreError) in try tables.annotations.delete(notes[0].id) }
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.delete(book.id) } } == .bookHasAnnotations(id: book.id.rawValue, count: 2))
        try store.write { tables throws(StoreError) in try tables.annotations.delete(notes[1].id) }
        try store.write { tables throws(StoreError) in try tables.annotations.delete(notes[2].id) }
        #expect(try store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt == nil)

        fixture.clock.advance(seconds: 1)
        try store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        let tombstone = try store.read { tables throws(StoreError) in try tables.books.book(book.id) }
        #expect(tombstone.deletedAt == fixture.clock.now())
        #expect(tombstone.title == book.title)
        #expect(try store.integer("SELECT count(*) FROM book") == 1)
        #expect(try store.read { tables throws(StoreError) in try tables.books.all() }.isEmpty)
        #expect(try store.read { tables throws(StoreError) in try tables.books.all(includeDeleted: true) }.map { try $0.get().id } == [book.id])
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts() } == JournalCounts(books: 0, sessions: 0, notes: 0, quotes: 0))
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.delete(book.id) } } == .recordNotFound(id: book.id.rawValue))
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 10) } } == .recordNotFound(id: book.id.rawValue))
    }

    @Test func annotationsAndSessionsNeedALiveBook() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let ghost = try newBook("Never Added", clock: fixture.clock)
        let gone = try newBook("Deleted", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(gone) }
        try store.write { tables throws(StoreError) in try tables.books.delete(gone.id) }
        let outbox = try store.outboxRows().count

        for book in [ghost, gone] {
            let note = try newNote(book, clock: fixture.clock)
            #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.add(note) } } == .recordNotFound(id: book.id.rawValue))
            let session = try newSession(book, clock: fixture.clock)
            #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.sessions.add(session) } } == .recordNotFound(id: book.id.rawValue))
        }
        #expect(try store.integer("SELECT count(*) FROM annotation") == 0)
        #expect(try store.integer("SELECT count(*) FROM reading_session") == 0)
        #expect(try store.outboxRows().count == outbox)
    }

    @Test func updatedAtNeverGoesBackWhenTheClockDoes() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        fixture.clock.advance(seconds: -3600) // the system clock was set back an hour
        let edited = try fixture.store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: "later words", locator: nil) }
        #expect(edited.updatedAt == note.updatedAt)
        #expect(edited.version == 2)
        let deleted = try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(note.id) }
        #expect(deleted.deletedAt == note.updatedAt)
        #expect(try fixture.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 5) }.updatedAt == book.updatedAt)
    }

    @Test func unknownIDsAreRecordNotFound() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let unknown = EntityID.generate(at: fixture.clock.now())
        #expect(storeError { () throws(StoreError) in try fixture.store.read { tables throws(StoreError) in try tables.books.book(unknown) } } == .recordNotFound(id: unknown.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(unknown) } } == .recordNotFound(id: unknown.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.read { tables throws(StoreError) in try tables.sessions.session(unknown) } } == .recordNotFound(id: unknown.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(unknown) } } == .recordNotFound(id: unknown.rawValue))
    }

    @Test func countsPerBookAndForTheWholeVault() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let a = try newBook("A", clock: fixture.clock)
        let b = try newBook("B", clock: fixture.clock)
        let empty = try newBook("Empty", clock: fixture.clock)
        for book in [a, b, empty] { try store.write { tables throws(StoreError) in try tables.books.add(book) } }
        let annotations = try (0..<3).map { _ in try newNote(a, clock: fixture.clock) } + [newQuote(a, clock: fixture.clock)]
            + (0..<2).map { _ in try newQuote(b, clock: fixture.clock) }
        for annotation in annotations { try store.write { tables throws(StoreError) in try tables.annotations.add(annotation) } }
        for session in try (0..<4).map({ _ in try newSession(a, clock: fixture.clock) }) + [newSession(b, clock: fixture.clock)] {
            try store.write { tables throws(StoreError) in _ = try tables.sessions.add(session) }
        }

        #expect(try store.read { tables throws(StoreError) in try tables.records.counts(of: a.id) } == JournalCounts(books: 1, sessions: 4, notes: 3, quotes: 1))
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts(of: b.id) } == JournalCounts(books: 1, sessions: 1, notes: 0, quotes: 2))
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts(of: empty.id) } == JournalCounts(books: 1, sessions: 0, notes: 0, quotes: 0))
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts() } == JournalCounts(books: 3, sessions: 5, notes: 3, quotes: 3))
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts(of: EntityID.generate(at: fixture.clock.now())) } == JournalCounts(books: 0, sessions: 0, notes: 0, quotes: 0))
        #expect(try store.read { tables throws(StoreError) in try tables.sessions.live(of: a.id) }.count == 4)

        try store.write { tables throws(StoreError) in try tables.books.delete(empty.id) }
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts() } == JournalCounts(books: 2, sessions: 5, notes: 3, quotes: 3))

        // The whole vault's counts come from book_activity: they follow a deleted note and
        // session, and agree with the records counted one by one.
        try store.write { tables throws(StoreError) in _ = try tables.annotations.delete(annotations[0].id) }
        let sessionID = try #require(try store.read { tables throws(StoreError) in try tables.sessions.live(of: b.id) }.first?.id)
        try store.write { tables throws(StoreError) in try tables.sessions.delete(sessionID) }
        let summed = try store.read { tables throws(StoreError) in try tables.records.counts() }
        #expect(summed == JournalCounts(books: 2, sessions: 4, notes: 2, quotes: 3))
        #expect(summed == (try store.read { tables throws(StoreError) in try RecordTable.counts(in: tables.database) }))
    }

    @Test func listingFiltersAndOrders() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let a = try newBook("A", clock: fixture.clock)
        let b = try newBook("B", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(a) }
        try store.write { tables throws(StoreError) in try tables.books.add(b) }
        var added: [Annotation] = []
        for (book, kind) in [(b, AnnotationKind.note), (a, .quote), (a, .note), (b, .quote), (a, .note)] {
            fixture.clock.advance(seconds: 1)
            let annotation = kind == .note ? try newNote(book, clock: fixture.clock) : try newQuote(book, clock: fixture.clock)
            try store.write { tables throws(StoreError) in try tables.annotations.add(annotation) }
            added.append(annotation)
        }
        let expectedOrder = added.sorted { ($0.bookID.rawValue, $0.createdAt) < ($1.bookID.rawValue, $1.createdAt) }
        #expect(try store.liveAnnotations().map { try $0.get() } == expectedOrder)
        #expect(try store.liveAnnotations(AnnotationFilter(bookID: a.id)).map { try $0.get() } == expectedOrder.filter { $0.bookID == a.id })
        #expect(try store.liveAnnotations(AnnotationFilter(kind: .quote)).map { try $0.get() } == expectedOrder.filter { $0.kind == .quote })
        #expect(try store.liveAnnotations(AnnotationFilter(bookID: b.id, kind: .note)).map { try $0.get() }
                == expectedOrder.filter { $0.bookID == b.id && $0.kind == .note })
    }

    @Test func recordsByIDPrefix() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        // A fixed clock: every id shares its first 13 characters (the timestamp).
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        let session = try newSession(book, clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.sessions.add(session) }
        let deleted = try newNote(book, clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(deleted) }
        try store.write { tables throws(StoreError) in try tables.annotations.delete(deleted.id) }

        let shared = String(book.id.rawValue.prefix(8))
        let all = try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: shared) }
        #expect(Set(all) == [RecordReference(id: book.id, kind: .book), RecordReference(id: note.id, kind: .annotation),
                             RecordReference(id: session.id, kind: .session)])
        #expect(try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: note.id.rawValue) } == [RecordReference(id: note.id, kind: .annotation)])
        #expect(try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: session.id.rawValue) } == [RecordReference(id: session.id, kind: .session)])
        #expect(try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: book.id.rawValue.uppercased()) } == [RecordReference(id: book.id, kind: .book)])
        #expect(try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: deleted.id.rawValue) }.isEmpty)
        let other = shared.first == "f" ? "0000" : "ffff"
        #expect(try store.read { tables throws(StoreError) in try tables.records.matching(idPrefix: other) }.isEmpty)

        // Readable while locked: ids only.
        let locked = try fixture.reopen(attach: false)
        #expect(Set(try locked.read { tables throws(StoreError) in try tables.records.matching(idPrefix: shared) }) == Set(all))
    }

    @Test func sessionsAreReadInStartOrder() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let base = fixture.clock.now().millisecondsSince1970 - 3_600_000
        var sessions: [ReadingSession] = []
        for offset in [3, 1, 2] as [Int64] {
            let start = Timestamp(millisecondsSince1970: base + offset * 60_000)
            let session = try ReadingSession.new(bookID: book.id, startedAt: start,
                                                 endedAt: Timestamp(millisecondsSince1970: start.millisecondsSince1970 + 1000),
                                                 pagesRead: Int(offset), at: fixture.clock.now())
            try fixture.store.write { tables throws(StoreError) in try tables.sessions.add(session) }
            sessions.append(session)
        }
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.sessions.live(of: book.id) } == sessions.sorted { $0.startedAt < $1.startedAt })
    }
}
