import Testing
import Journal

private let now = ms(1_700_000_000_123)

@Suite("Book")
struct BookRulesTests {
    @Test("A new book starts at version 1, progress 0, created == updated, not deleted")
    func newBook() throws {
        let book = try Book.new(title: "  The Dispossessed ", authors: [" Ursula K. Le Guin\n"], at: now)
        #expect(book.title == "The Dispossessed")
        #expect(book.authors == ["Ursula K. Le Guin"])
        #expect(book.progress == 0)
        #expect(book.version == 1)
        #expect(book.createdAt == now)
        #expect(book.updatedAt == now)
        #expect(book.deletedAt == nil)
        #expect(embeddedMilliseconds(book.id) == now.millisecondsSince1970)
    }

    @Test("Two new books get different ids")
    func distinctIDs() throws {
        #expect(try Book.new(title: "A", authors: [], at: now).id != Book.new(title: "A", authors: [], at: now).id)
    }

    @Test("Authors are optional, and several keep their order")
    func authors() throws {
        #expect(try Book.new(title: "Beowulf", authors: [], at: now).authors == [])
        let book = try Book.new(title: "Good Omens", authors: ["Terry Pratchett", " Neil Gaiman "], at: now)
        #expect(book.authors == ["Terry Pratchett", "Neil Gaiman"])
    }

    @Test("Every author is checked as a one-line value")
    func authorsValidated() {
        #expect(throws: JournalError.emptyText(field: "author")) {
            try Book.new(title: "T", authors: ["Fine", "  "], at: now)
        }
        #expect(throws: JournalError.controlCharacters(field: "author")) {
            try Book.new(title: "T", authors: ["One\nTwo"], at: now)
        }
        #expect(throws: JournalError.textTooLong(field: "author", limit: 1_024)) {
            try Book.new(title: "T", authors: [String(repeating: "a", count: 1_025)], at: now)
        }
    }

    @Test("The title is checked as a one-line value")
    func titleValidated() {
        #expect(throws: JournalError.emptyText(field: "title")) { try Book.new(title: " \n", authors: ["A"], at: now) }
        #expect(throws: JournalError.controlCharacters(field: "title")) { try Book.new(title: "A\tB", authors: [], at: now) }
        #expect(throws: JournalError.textTooLong(field: "title", limit: 1_024)) {
            try Book.new(title: String(repeating: "t", count: 1_025), authors: [], at: now)
        }
    }

    @Test("Progress from 0 to 100 is accepted as given", arguments: [0.0, -0.0, 0.5, 42, 99.99, 100])
    func validProgress(percent: Double) throws {
        #expect(try Book.checkedProgress(percent) == percent)
    }

    @Test("Progress outside 0...100, NaN and infinities are .progressOutOfRange", arguments: [
        -1, -0.000_1, 100.000_1, 100.5, 101, Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude,
    ])
    func invalidProgress(percent: Double) {
        #expect(throws: JournalError.progressOutOfRange) { try Book.checkedProgress(percent) }
    }
}

@Suite("ReadingSession")
struct ReadingSessionRulesTests {
    @Test("A valid session keeps its fields and gets an id for now")
    func newSession() throws {
        let session = try ReadingSession.new(bookID: someBookID, startedAt: ms(1_000), endedAt: ms(61_000),
                                             pagesRead: 12, at: now)
        #expect(session.bookID == someBookID)
        #expect(session.startedAt == ms(1_000))
        #expect(session.endedAt == ms(61_000))
        #expect(session.pagesRead == 12)
        #expect(embeddedMilliseconds(session.id) == now.millisecondsSince1970)
        #expect(session.id != someBookID)
    }

    @Test("A session may end the moment it starts")
    func zeroLength() throws {
        #expect(try ReadingSession.new(bookID: someBookID, startedAt: ms(5), endedAt: ms(5), pagesRead: 0, at: now).pagesRead == 0)
    }

    @Test("A session ending before it starts is .sessionEndsBeforeStart")
    func endsBeforeStart() {
        #expect(throws: JournalError.sessionEndsBeforeStart) {
            try ReadingSession.new(bookID: someBookID, startedAt: ms(1_000), endedAt: ms(999), pagesRead: 1, at: now)
        }
    }

    @Test("A session ending after the present moment is .sessionInFuture; one ending now is not")
    func endsInFuture() throws {
        #expect(throws: JournalError.sessionInFuture) {
            try ReadingSession.new(bookID: someBookID, startedAt: now, endedAt: ms(now.millisecondsSince1970 + 1), pagesRead: 1, at: now)
        }
        #expect(try ReadingSession.new(bookID: someBookID, startedAt: now, endedAt: now, pagesRead: 1, at: now).endedAt == now)
    }

    @Test("Pages 0 and 100,000 are accepted", arguments: [0, 1, 100_000])
    func validPages(pages: Int) throws {
        #expect(ReadingSession.maximumPages == 100_000)
        #expect(try ReadingSession.new(bookID: someBookID, startedAt: ms(0), endedAt: ms(1), pagesRead: pages, at: now).pagesRead == pages)
    }

    @Test("Pages below 0 or above 100,000 are .pagesOutOfRange", arguments: [-1, 100_001, Int.min, Int.max])
    func invalidPages(pages: Int) {
        #expect(throws: JournalError.pagesOutOfRange) {
            try ReadingSession.new(bookID: someBookID, startedAt: ms(0), endedAt: ms(1), pagesRead: pages, at: now)
        }
    }
}

@Suite("Annotation and Locator")
struct AnnotationRulesTests {
    @Test("A quote without a locator is .quoteNeedsLocator")
    func quoteNeedsLocator() {
        #expect(throws: JournalError.quoteNeedsLocator) {
            try Annotation.new(bookID: someBookID, kind: .quote, body: "It was a pleasure to burn.", locator: nil, at: now)
        }
    }

    @Test("A note without a locator is fine, and starts at version 1, not deleted")
    func noteWithoutLocator() throws {
        let note = try Annotation.new(bookID: someBookID, kind: .note, body: "Loved the opening.\n", locator: nil, at: now)
        #expect(note.kind == .note)
        #expect(note.body == "Loved the opening.")
        #expect(note.locator == nil)
        #expect(note.bookID == someBookID)
        #expect(note.version == 1)
        #expect(note.createdAt == now)
        #expect(note.updatedAt == now)
        #expect(note.deletedAt == nil)
        #expect(embeddedMilliseconds(note.id) == now.millisecondsSince1970)
    }

    @Test("A quote with a locator keeps both")
    func quoteWithLocator() throws {
        let quote = try Annotation.new(bookID: someBookID, kind: .quote, body: "  It was a pleasure to burn.",
                                       locator: Locator(" p. 1 "), at: now)
        #expect(quote.kind == .quote)
        #expect(quote.locator?.text == "p. 1")
        #expect(quote.body == "  It was a pleasure to burn.")
        #expect(quote.version == 1)
        #expect(quote.createdAt == quote.updatedAt)
        #expect(quote.deletedAt == nil)
    }

    @Test("The body is checked under the kind's name", arguments: AnnotationKind.allCases)
    func bodyValidated(kind: AnnotationKind) throws {
        let locator = try Locator("ch. 3")
        #expect(throws: JournalError.emptyText(field: kind.rawValue)) {
            try Annotation.new(bookID: someBookID, kind: kind, body: " \n\t", locator: locator, at: now)
        }
        #expect(throws: JournalError.textTooLong(field: kind.rawValue, limit: 1 << 20)) {
            try Annotation.new(bookID: someBookID, kind: kind, body: String(repeating: "q", count: (1 << 20) + 1),
                               locator: locator, at: now)
        }
    }

    @Test("Annotation kinds are stored as note and quote")
    func kindNames() {
        #expect(AnnotationKind.allCases.map(\.rawValue) == ["note", "quote"])
        #expect(AnnotationKind(rawValue: "quote") == .quote)
        #expect(AnnotationKind(rawValue: "Quote") == nil)
    }

    @Test("A locator is one trimmed line", arguments: [("p. 42", "p. 42"), ("  loc 1234\n", "loc 1234"),
                                                      ("epubcfi(/6/4[chap01ref]!/4/2/1:3)", "epubcfi(/6/4[chap01ref]!/4/2/1:3)")])
    func locator(input: String, expected: String) throws {
        let locator = try Locator(input)
        #expect(locator.text == expected)
        #expect(locator.description == expected)
    }

    @Test("A locator follows the one-line rules under the name locator")
    func locatorRules() {
        #expect(throws: JournalError.emptyText(field: "locator")) { try Locator("  ") }
        #expect(throws: JournalError.controlCharacters(field: "locator")) { try Locator("p. 1\np. 2") }
        #expect(throws: JournalError.textTooLong(field: "locator", limit: 1_024)) { try Locator(String(repeating: "9", count: 1_025)) }
    }
}

@Suite("UnreadableRecord")
struct UnreadableRecordTests {
    @Test("An unreadable record names its id and field")
    func fields() {
        let record = UnreadableRecord(id: "0193f2a1", field: "title")
        #expect(record.id == "0193f2a1")
        #expect(record.field == "title")
        #expect(record == UnreadableRecord(id: "0193f2a1", field: "title"))
        #expect(record != UnreadableRecord(id: "0193f2a1", field: "authors"))
        #expect(record != UnreadableRecord(id: "0193f2a2", field: "title"))
    }
}
