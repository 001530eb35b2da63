import Foundation
import Testing
import Journal
import Keystore
@testable import VaultKit

/// The journal through the facade: naming books and records, search, show, edit, delete.
@Suite struct VaultJournalTests {
    @Test func bookArgumentsResolveThroughTheVault() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        let dune = try vault.addBook(title: "Dune", authors: ["Frank Herbert"])
        let messiah = try vault.addBook(title: "Dune Messiah", authors: ["Frank Herbert"])
        #expect(try vault.book(named: "dune") == dune)
        #expect(try vault.book(named: "Dune M") == messiah)
        #expect(try vault.book(named: messiah.id.rawValue) == messiah)
        #expect(vaultError { () throws(VaultError) in try vault.book(named: "Du") }
                == .ambiguousBook(candidates: [dune.id.rawValue, messiah.id.rawValue].sorted()))
        #expect(vaultError { () throws(VaultError) in try vault.book(named: "Foundation") } == .bookNotFound)

        let note = try vault.addAnnotation(to: try vault.book(named: "DUNE"), kind: .note, body: "Fear is the mind-killer.", locator: nil)
        #expect(note.bookID == dune.id)
        #expect(try vault.setProgress(of: "dune messiah", to: 25).progress == 25)
        #expect(vaultError { () throws(VaultError) in try vault.setProgress(of: "dune", to: 100.5) } == .invalidInput(.progressOutOfRange))
        #expect(vaultError { () throws(VaultError) in try vault.addAnnotation(to: try vault.book(named: "Du"), kind: .note, body: "x", locator: nil) }
                == .ambiguousBook(candidates: [dune.id.rawValue, messiah.id.rawValue].sorted()))
        #expect(vaultError { () throws(VaultError) in try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .quote, body: "no locator", locator: nil) }
                == .invalidInput(.quoteNeedsLocator))

        var listed: [String] = []
        try vault.forEachAnnotation(ListingRequest(book: "dune", kind: .note)) { result in
            if case .success(let listing) = result { listed.append("\(listing.bookTitle ?? "?"): \(listing.annotation.body)") }
        }
        #expect(listed == ["Dune: Fear is the mind-killer."])
    }

    @Test func searchMatchesBodyLocatorAndTitleIgnoringCaseAndSkipsDeleted() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        _ = try vault.addBook(title: "Dune", authors: [])
        _ = try vault.addBook(title: "The Hobbit", authors: [])
        _ = try vault.addBook(title: "Le Petit Prince", authors: [])
        let spice = try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .note, body: "The SPICE must flow", locator: nil)
        let worm = try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .quote, body: "Shai-Hulud", locator: "Book One, Chapter Seven")
        let breakfast = try vault.addAnnotation(to: try vault.book(named: "The Hobbit"), kind: .note, body: "Second breakfast", locator: "ch. 1")
        let renard = try vault.addAnnotation(to: try vault.book(named: "Le Petit"), kind: .note, body: "Le RENARD à l'ÉCOLE", locator: nil)
        let deleted = try vault.addAnnotation(to: try vault.book(named: "The Hobbit"), kind: .note, body: "spice cake, deleted", locator: nil)
        _ = try vault.delete([deleted.id.rawValue])

        #expect(try vault.searchIDs("spice") == [spice.id])           // body, other case; deleted excluded
        #expect(try vault.searchIDs("sPiCe MUST") == [spice.id])
        #expect(try vault.searchIDs("chapter seven") == [worm.id])    // locator
        #expect(try vault.searchIDs("CH. 1") == [breakfast.id])
        #expect(try vault.searchIDs("hobbit") == [breakfast.id])      // book title
        #expect(try vault.searchIDs("DUNE") == [spice.id, worm.id].sorted())
        #expect(try vault.searchIDs("école") == [renard.id])          // non-ASCII, other case
        #expect(try vault.searchIDs("renard à") == [renard.id])
        #expect(try vault.searchIDs("zeppelin").isEmpty)
        #expect(vaultError { () throws(VaultError) in try vault.search(SearchRequest("   ")) { _ in } } == .invalidInput(.emptyText(field: "query")))

        var titles: [String?] = []
        try vault.search(SearchRequest("breakfast")) { result in if case .success(let listing) = result { titles.append(listing.bookTitle) } }
        #expect(titles == ["The Hobbit"])
    }

    @Test func recordShowsBooksAnnotationsAndSessions() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        let book = try vault.addBook(title: "Dune", authors: ["Frank Herbert"])
        fixture.clock.advance(seconds: 1)
        let note = try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .note, body: "a note", locator: "p. 1")
        let quote = try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .quote, body: "a quote", locator: "p. 2")
        let start = Timestamp(millisecondsSince1970: fixture.clock.now().millisecondsSince1970 - 1_800_000)
        let session = try vault.addSession(to: "Dune", pagesRead: 40, startedAt: start, endedAt: fixture.clock.now()).session

        guard case .book(let details) = try vault.record(book.id.rawValue) else {
            Issue.record("expected a book")
            return
        }
        #expect(details.book == book)
        #expect(details.sessions == [session])
        #expect(countList(details) == [1, 1, 1, 1])

        guard case .annotation(let listing) = try vault.record(String(note.id.rawValue.prefix(30))) else {
            Issue.record("expected an annotation")
            return
        }
        #expect(listing.annotation == note)
        #expect(listing.bookTitle == "Dune")

        guard case .annotation(let quoted) = try vault.record(quote.id.rawValue.uppercased()) else {
            Issue.record("expected an annotation")
            return
        }
        #expect(quoted.annotation == quote)

        guard case .session(let shown) = try vault.record(session.id.rawValue) else {
            Issue.record("expected a session")
            return
        }
        #expect(shown == session)
    }

    @Test func idsNameRecordsOfTheRightKindOnly() throws {
        let fixture = try makeVault()
        try fixture.addUnsyncedRemote()   // so every operation waits in the outbox
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        // A fixed clock: every id made here shares its first 13 characters.
        let book = try vault.addBook(title: "Dune", authors: [])
        let note = try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .note, body: "a note", locator: nil)
        let session = try vault.addSession(to: "Dune", pagesRead: 3, startedAt: fixture.clock.now(), endedAt: fixture.clock.now()).session

        #expect(vaultError { () throws(VaultError) in try vault.editAnnotation(book.id.rawValue, body: "x", locator: nil) }
                == .wrongRecordKind(id: book.id.rawValue, expected: "note or quote", found: "book"))
        #expect(vaultError { () throws(VaultError) in try vault.editAnnotation(session.id.rawValue, body: "x", locator: nil) }
                == .wrongRecordKind(id: session.id.rawValue, expected: "note or quote", found: "session"))
        #expect(vaultError { () throws(VaultError) in try vault.delete([note.id.rawValue], sessionsOnly: true) }
                == .wrongRecordKind(id: note.id.rawValue, expected: "session", found: "annotation"))
        #expect(vaultError { () throws(VaultError) in try vault.editSession(book.id.rawValue, startedAt: nil, endedAt: nil, pagesRead: 4) }
                == .wrongRecordKind(id: book.id.rawValue, expected: "session", found: "book"))

        let shared = String(book.id.rawValue.prefix(8))
        #expect(vaultError { () throws(VaultError) in try vault.record(shared) }
                == .ambiguousID(candidates: [book.id.rawValue, note.id.rawValue, session.id.rawValue].sorted()))
        #expect(vaultError { () throws(VaultError) in try vault.delete([shared]) }
                == .ambiguousID(candidates: [book.id.rawValue, note.id.rawValue, session.id.rawValue].sorted()))
        #expect(vaultError { () throws(VaultError) in try vault.record(String(shared.prefix(3))) } == .malformedID)
        #expect(vaultError { () throws(VaultError) in try vault.record("not-an-id") } == .malformedID)
        let unknown = EntityID.generate(at: Timestamp(millisecondsSince1970: 0)).rawValue
        #expect(vaultError { () throws(VaultError) in try vault.record(unknown) } == .recordNotFound(id: unknown))

        // Nothing was changed by the refusals.
        #expect(try vault.status().outbox[.pending] == 3)
        #expect(try vault.allAnnotations().map { try $0.get().annotation } == [note])
    }

    @Test func editAndDeleteThroughTheVault() throws {
        let fixture = try makeVault()
        try fixture.addUnsyncedRemote()   // so every operation waits in the outbox
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        let book = try vault.addBook(title: "Dune", authors: [])
        let note = try vault.addAnnotation(to: try vault.book(named: "Dune"), kind: .note, body: "first draft", locator: "p. 1")
        fixture.clock.advance(seconds: 5)

        let edited = try vault.editAnnotation(String(note.id.rawValue.prefix(36)), body: "second draft\n\n", locator: nil)
        #expect(edited.body == "second draft")
        #expect(edited.locator?.text == "p. 1")
        #expect(edited.version == 2)
        #expect(edited.updatedAt == fixture.clock.now())
        let moved = try vault.editAnnotation(note.id.rawValue, body: nil, locator: "p. 99")
        #expect(moved.body == "second draft")
        #expect(moved.locator?.text == "p. 99")
        #expect(vaultError { () throws(VaultError) in try vault.editAnnotation(note.id.rawValue, body: "   ", locator: nil) }
                == .invalidInput(.emptyText(field: "body")))

        #expect(vaultError { () throws(VaultError) in try vault.delete([book.id.rawValue]) } == .storage(.bookHasAnnotations(id: book.id.rawValue, count: 1)))
        let reference = try #require(try vault.delete([note.id.rawValue]).first)
        #expect(reference.id == note.id)
        #expect(reference.kind == "note")
        #expect(vaultError { () throws(VaultError) in try vault.record(note.id.rawValue) } == .recordNotFound(id: note.id.rawValue))
        #expect(try vault.allAnnotations().isEmpty)
        #expect(try vault.delete([book.id.rawValue]).map(\.kind) == ["book"])
        #expect(try vault.books().isEmpty)
        #expect(vaultError { () throws(VaultError) in try vault.book(named: "Dune") } == .bookNotFound)
        #expect(try countList(vault.status()) == [0, 0, 0, 0])
        #expect(try vault.status().outbox[.pending] == 6)
    }

    @Test func journalRulesAreCheckedBeforeAnythingIsWritten() throws {
        let fixture = try makeVault()
        try fixture.addUnsyncedRemote()   // so every operation waits in the outbox
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        #expect(vaultError { () throws(VaultError) in try vault.addBook(title: "  ", authors: []) } == .invalidInput(.emptyText(field: "title")))
        #expect(vaultError { () throws(VaultError) in try vault.addBook(title: "Two\nLines", authors: []) }
                == .invalidInput(.controlCharacters(field: "title")))
        _ = try vault.addBook(title: "Dune", authors: [])
        let now = fixture.clock.now()
        #expect(vaultError { () throws(VaultError) in try vault.addSession(to: "Dune", pagesRead: -1, startedAt: now, endedAt: now) }
                == .invalidInput(.pagesOutOfRange))
        #expect(vaultError { () throws(VaultError) in
            try vault.addSession(to: "Dune", pagesRead: 1, startedAt: now, endedAt: Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 1))
        } == .invalidInput(.sessionEndsBeforeStart))
        #expect(try vault.status().outbox[.pending] == 1)
    }

    @Test func errorsNeverCarryContent() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        let canary = "zq-canary-\(UUID().uuidString)"
        _ = try vault.addBook(title: "Dune \(canary)", authors: [])
        _ = try vault.addBook(title: "Dune \(canary) II", authors: [])
        // why not an array of closures: Swift 6.3.1 crashes in IRGen on typed-throws closure literals in an array.
        let errors = [
            vaultError { () throws(VaultError) in try vault.book(named: "dune") },
            vaultError { () throws(VaultError) in try vault.book(named: "zzz \(canary)") },
            vaultError { () throws(VaultError) in try vault.addAnnotation(to: try vault.book(named: "dune"), kind: .note, body: canary, locator: nil) },
            vaultError { () throws(VaultError) in try vault.addBook(title: String(repeating: canary, count: 100), authors: []) },
        ].compactMap { $0 }
        #expect(errors.count == 4)
        for error in errors {
            #expect(!String(describing: error).contains(canary))
            #expect(!String(reflecting: error).contains(canary))
        }
    }
}
