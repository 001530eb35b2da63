import Foundation
import Testing
import Journal
@testable import VaultKit

/// Finding things (issue 21): search by several words, phrases, folded text, title and
/// author, with filters and ranking; list filters and orders; an ambiguous BOOK offered as
/// a choice.
@Suite struct VaultFindingTests {
    /// Two books by different authors, notes made a day apart (the clock moves between them).
    struct Library {
        let fixture: VaultFixture
        let notes: [String: Annotation]
        var vault: Vault { fixture.vault }
    }

    func library() throws -> Library {
        let fixture = try makeVault()
        let vault = fixture.vault
        _ = try vault.addBook(title: "Les Misérables", authors: ["Victor Hugo"])
        fixture.clock.advance(seconds: 1)
        _ = try vault.addBook(title: "Dune", authors: ["Frank Herbert"])
        var notes: [String: Annotation] = [:]
        for (name, book, kind, body, locator) in [
            ("bishop", "les mis", AnnotationKind.note, "The bishop gives the candlesticks", "p. 120"),
            ("bridge", "les mis", .quote, "Javert on the bridge, the Seine below", "p. 9"),
            ("spice", "dune", .quote, "The spice must flow", "ch. 2"),
            ("flow", "dune", .note, "Flow of the spice trade, the must of empire", nil),
            ("naive", "dune", .note, "A naïve reading of Arrakis", "p. 10"),
        ] {
            fixture.clock.advance(seconds: 86_400)
            notes[name] = try vault.addAnnotation(to: try vault.book(named: book), kind: kind, body: body, locator: locator)
        }
        return Library(fixture: fixture, notes: notes)
    }

    func searched(_ vault: Vault, _ request: SearchRequest) throws -> [EntityID] {
        var ids: [EntityID] = []
        try vault.search(request) { if case .success(let listing) = $0 { ids.append(listing.annotation.id) } }
        return ids
    }

    func listed(_ vault: Vault, _ request: ListingRequest) throws -> [EntityID] {
        var ids: [EntityID] = []
        try vault.forEachAnnotation(request) { if case .success(let listing) = $0 { ids.append(listing.annotation.id) } }
        return ids
    }

    @Test func everyWordMustAppearInTheNoteItsLocatorOrItsBook() throws {
        let library = try library()
        defer { library.fixture.directory.remove() }
        let notes = library.notes, vault = library.vault
        #expect(try searched(vault, SearchRequest("spice flow")).sorted() == [notes["spice"]!.id, notes["flow"]!.id].sorted())
        // "herbert" is in the author, "arrakis" in the note.
        #expect(try searched(vault, SearchRequest("herbert arrakis")) == [notes["naive"]!.id])
        // "miserables" (folded) in the title, "p. 9" in the locator.
        #expect(try searched(vault, SearchRequest("miserables \"p. 9\"")) == [notes["bridge"]!.id])
        #expect(try searched(vault, SearchRequest("NAIVE")) == [notes["naive"]!.id])
        #expect(try searched(vault, SearchRequest("hugo")).sorted() == [notes["bishop"]!.id, notes["bridge"]!.id].sorted())
        #expect(try searched(vault, SearchRequest("spice zeppelin")).isEmpty)
    }

    @Test func theQueryAsAPhraseRanksFirst() throws {
        let library = try library()
        defer { library.fixture.directory.remove() }
        let notes = library.notes
        // Both hold "the" and "must"; only "Flow of the spice trade, the must of empire",
        // listed after "The spice must flow", holds them as one phrase: it comes first.
        #expect(try searched(library.vault, SearchRequest("the must")) == [notes["flow"]!.id, notes["spice"]!.id])
        #expect(try searched(library.vault, SearchRequest("spice must")) == [notes["spice"]!.id, notes["flow"]!.id])
        // A quoted phrase finds only the notes holding it.
        #expect(try searched(library.vault, SearchRequest("\"spice must\"")) == [notes["spice"]!.id])
    }

    @Test func searchFiltersByBookKindAndTime() throws {
        let library = try library()
        defer { library.fixture.directory.remove() }
        let notes = library.notes, vault = library.vault
        #expect(try searched(vault, SearchRequest("the", book: "dune")).sorted() == [notes["spice"]!.id, notes["flow"]!.id].sorted())
        #expect(try searched(vault, SearchRequest("the", kind: .quote)).sorted() == [notes["bridge"]!.id, notes["spice"]!.id].sorted())
        #expect(try searched(vault, SearchRequest("the", createdFrom: notes["spice"]!.createdAt)).sorted()
                == [notes["spice"]!.id, notes["flow"]!.id].sorted())
        #expect(vaultError { () throws(VaultError) in try vault.search(SearchRequest("the", book: "neuromancer")) { _ in } } == .bookNotFound)
    }

    @Test func listFiltersByTimeAndKeepsTheNewest() throws {
        let library = try library()
        defer { library.fixture.directory.remove() }
        let notes = library.notes, vault = library.vault
        let order = ["bishop", "bridge", "spice", "flow", "naive"].map { notes[$0]!.id }
        #expect(try listed(vault, ListingRequest(order: .created)) == order)
        #expect(try listed(vault, ListingRequest(createdFrom: notes["spice"]!.createdAt, order: .created)) == Array(order[2...]))
        #expect(try listed(vault, ListingRequest(createdBefore: notes["spice"]!.createdAt, order: .created)) == Array(order[..<2]))
        #expect(try listed(vault, ListingRequest(newest: 2, order: .created)) == Array(order[3...]))
        // The newest three (all in Dune), in the order asked for.
        #expect(try listed(vault, ListingRequest(newest: 3, order: .book)) == [order[2], order[3], order[4]])
        #expect(try listed(vault, ListingRequest(kind: .quote, newest: 1)) == [order[2]])
    }

    @Test func listOrders() throws {
        let library = try library()
        defer { library.fixture.directory.remove() }
        let notes = library.notes, vault = library.vault
        let ids = { (names: [String]) in names.map { notes[$0]!.id } }
        // Books in the order added (Les Misérables first), then by title (Dune first).
        #expect(try listed(vault, ListingRequest()) == ids(["bishop", "bridge", "spice", "flow", "naive"]))
        #expect(try listed(vault, ListingRequest(order: .book)) == ids(["spice", "flow", "naive", "bishop", "bridge"]))
        // By locator in natural order: "p. 9" before "p. 120"; a note without one last.
        #expect(try listed(vault, ListingRequest(order: .locator)) == ids(["spice", "naive", "flow", "bridge", "bishop"]))
        // Changed last, listed last.
        library.fixture.clock.advance(seconds: 60)
        _ = try vault.editAnnotation(notes["bishop"]!.id.rawValue, body: "The bishop gives the silver", locator: nil)
        #expect(try listed(vault, ListingRequest(order: .updated)).last == notes["bishop"]!.id)
        #expect(try listed(vault, ListingRequest(newest: 1, order: .updated)) == [notes["bishop"]!.id])
    }

    @Test func anAmbiguousBookIsAskedAboutWhenSomeoneCanAnswer() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let vault = fixture.vault
        let dune = try vault.addBook(title: "Dune", authors: ["Frank Herbert"])
        fixture.clock.advance(seconds: 1)
        let messiah = try vault.addBook(title: "Dune Messiah", authors: ["Frank Herbert"])
        var offered: [BookCandidate] = []
        vault.bookChooser = { candidates in
            offered = candidates
            return candidates.last?.id
        }
        #expect(try vault.book(named: "herbert") == messiah)
        #expect(offered == [BookCandidate(id: dune.id, title: "Dune", authors: ["Frank Herbert"]),
                            BookCandidate(id: messiah.id, title: "Dune Messiah", authors: ["Frank Herbert"])])
        // Answering none (or an id not offered) leaves the ambiguity, by ids.
        vault.bookChooser = { _ in nil }
        #expect(vaultError { () throws(VaultError) in try vault.book(named: "herbert") }
                == .ambiguousBook(candidates: [dune.id.rawValue, messiah.id.rawValue].sorted()))
        vault.bookChooser = { _ in EntityID.generate(at: fixture.clock.now()) }
        #expect(vaultError { () throws(VaultError) in try vault.book(named: "herbert") }
                == .ambiguousBook(candidates: [dune.id.rawValue, messiah.id.rawValue].sorted()))
        // A retitled author is found by the new name at once (the title cache was emptied).
        _ = try vault.editBook(named: "Dune Messiah", title: nil, authors: ["F. Herbert"])
        vault.bookChooser = nil
        #expect(try vault.book(named: "f. herb").id == messiah.id)
    }
}
