import Foundation
import Testing
import Journal
@testable import VaultKit
import VaultStore
import TestSupport

/// How a BOOK argument names a book: full id, exact title, id or title prefix, and then a
/// part of the title or of an author's name, all folded.
@Suite struct BookReferenceTests {
    /// Books made about 100 days apart, so the first four characters of their ids (the top
    /// of the UUIDv7 timestamp) differ and a four-character id prefix names one book.
    static func library(_ titles: [String], authors: [[String]] = []) throws -> [Book] {
        try titles.enumerated().map { index, title in
            try Book.new(title: title, authors: index < authors.count ? authors[index] : [],
                         at: Timestamp(millisecondsSince1970: TestClock.start + Int64(index) * (Int64(1) << 33)))
        }
    }

    static let titles = ["Dune", "Dune Messiah", "Children of Dune", "Él", "ÉCOLE", "The Hobbit"]

    func resolve(_ reference: String, in books: [Book]) -> Result<Book, VaultError> {
        Result { () throws(VaultError) -> Book in
            let index = BookTitleIndex(books.map { BookTitle(id: $0.id, title: $0.title, authors: $0.authors) })
            switch try BookReference.resolve(reference, in: index) {
            case .one(let id):
                guard let book = books.first(where: { $0.id == id }) else { throw .bookNotFound }
                return book
            case .several(let indexes):
                throw .ambiguousBook(candidates: indexes.map { books[$0].id.rawValue }.sorted())
            }
        }
    }

    func title(_ result: Result<Book, VaultError>) -> String? {
        try? result.get().title
    }

    @Test func exactTitleBeatsALongerTitleItPrefixes() throws {
        let books = try Self.library(Self.titles)
        #expect(title(resolve("Dune", in: books)) == "Dune")
        // Order does not matter: the exact title still wins when the longer one comes first.
        #expect(title(resolve("Dune", in: books.reversed())) == "Dune")
        #expect(title(resolve("Dune Messiah", in: books)) == "Dune Messiah")
    }

    @Test func uniqueTitlePrefixNamesTheBook() throws {
        let books = try Self.library(Self.titles)
        #expect(title(resolve("Dune M", in: books)) == "Dune Messiah")
        #expect(title(resolve("Child", in: books)) == "Children of Dune")
        #expect(title(resolve("The Hob", in: books)) == "The Hobbit")
        #expect(title(resolve("  the hobbit  ", in: books)) == "The Hobbit")
    }

    @Test func titlesMatchIgnoringCase() throws {
        let books = try Self.library(Self.titles)
        #expect(title(resolve("dune", in: books)) == "Dune")
        #expect(title(resolve("DUNE", in: books)) == "Dune")
        #expect(title(resolve("dUNE mESSIAH", in: books)) == "Dune Messiah")
        #expect(title(resolve("children OF", in: books)) == "Children of Dune")
    }

    @Test func nonASCIITitlesMatchIgnoringCase() throws {
        let books = try Self.library(Self.titles)
        #expect(title(resolve("Él", in: books)) == "Él")
        #expect(title(resolve("él", in: books)) == "Él")
        #expect(title(resolve("ÉL", in: books)) == "Él")
        #expect(title(resolve("école", in: books)) == "ÉCOLE")
        #expect(title(resolve("éco", in: books)) == "ÉCOLE")
        #expect(title(resolve("ÉCO", in: books)) == "ÉCOLE")
        // Typed decomposed (E + combining acute), as some keyboards and file systems produce.
        #expect(title(resolve("E\u{301}l", in: books)) == "Él")
        #expect(title(resolve("e\u{301}co", in: books)) == "ÉCOLE")

        let both = books.filter { $0.title.hasPrefix("É") }.map(\.id.rawValue).sorted()
        #expect(throws: VaultError.ambiguousBook(candidates: both)) { try resolve("é", in: books).get() }
    }

    @Test func ambiguousPrefixListsEveryCandidate() throws {
        let books = try Self.library(Self.titles)
        let dunes = books.filter { $0.title.hasPrefix("Dune") }.map(\.id.rawValue).sorted()
        #expect(dunes.count == 2)
        #expect(throws: VaultError.ambiguousBook(candidates: dunes)) { try resolve("Du", in: books).get() }
        #expect(throws: VaultError.ambiguousBook(candidates: dunes)) { try resolve("dUn", in: books.reversed()).get() }
    }

    @Test func partOfTheTitleNamesTheBookWhenNoTitleStartsWithIt() throws {
        let books = try Self.library(Self.titles + ["Les Misérables"])
        #expect(title(resolve("messiah", in: books)) == "Dune Messiah")
        #expect(title(resolve("HOBBIT", in: books)) == "The Hobbit")
        #expect(title(resolve("miserables", in: books)) == "Les Misérables")
        #expect(title(resolve("ecole", in: books)) == "ÉCOLE")
        // A prefix decides before any part: "dune m" starts one title and is inside none other.
        #expect(title(resolve("of dune", in: books)) == "Children of Dune")
        // An exact title wins over the titles that contain it.
        #expect(title(resolve("dune", in: books)) == "Dune")
        // Several titles containing it: ambiguous, all of them listed.
        let withO = books.filter { TextFolding.fold($0.title).contains("o") && !TextFolding.fold($0.title).hasPrefix("o") }
        #expect(throws: VaultError.ambiguousBook(candidates: withO.map(\.id.rawValue).sorted())) { try resolve("o", in: books).get() }
    }

    @Test func partOfAnAuthorsNameNamesTheBook() throws {
        let books = try Self.library(["Dune", "Germinal", "Nana"], authors: [["Frank Herbert"], ["Émile Zola"], ["Émile Zola"]])
        #expect(title(resolve("herbert", in: books)) == "Dune")
        #expect(title(resolve("frank h", in: books)) == "Dune")
        let zola = books.filter { $0.authors == ["Émile Zola"] }.map(\.id.rawValue).sorted()
        #expect(throws: VaultError.ambiguousBook(candidates: zola)) { try resolve("emile", in: books).get() }
        // The title comes first: "nana" is a title, though no author holds it.
        #expect(title(resolve("nana", in: books)) == "Nana")
    }

    @Test func twoBooksWithTheSameTitleAreAmbiguous() throws {
        let books = try Self.library(["Dune", "Dune"])
        #expect(throws: VaultError.ambiguousBook(candidates: books.map(\.id.rawValue).sorted())) { try resolve("dune", in: books).get() }
    }

    @Test func unknownOrEmptyIsBookNotFound() throws {
        let books = try Self.library(Self.titles)
        for reference in ["Neuromancer", "", "   ", "Dune Messiah II", "Hobbits"] {
            #expect(throws: VaultError.bookNotFound, "\(reference)") { try resolve(reference, in: books).get() }
        }
        #expect(throws: VaultError.bookNotFound) { try resolve("Dune", in: []).get() }
    }

    @Test func idPrefixOfFourOrMoreCharactersNamesTheBook() throws {
        let books = try Self.library(Self.titles)
        #expect(Set(books.map { $0.id.rawValue.prefix(4) }).count == books.count, "fixture ids must differ in 4 characters")
        for book in books {
            let id = book.id.rawValue
            #expect(try resolve(String(id.prefix(4)), in: books).get() == book)
            #expect(try resolve(String(id.prefix(13)), in: books).get() == book)
            #expect(try resolve(String(id.prefix(6)).uppercased(), in: books).get() == book)
            // Three characters are too few to be taken as an id.
            #expect(throws: VaultError.bookNotFound) { try resolve(String(id.prefix(3)), in: books).get() }
        }
    }

    @Test func fullIDNamesTheBook() throws {
        let books = try Self.library(Self.titles)
        for book in books {
            #expect(try resolve(book.id.rawValue, in: books).get() == book)
            #expect(try resolve(book.id.rawValue.uppercased(), in: books).get() == book)
            #expect(try resolve(" \(book.id.rawValue) ", in: books).get() == book)
        }
    }

    @Test func sharedIDPrefixIsAmbiguous() throws {
        // Made in the same millisecond: the ids share their first 13 characters.
        let now = Timestamp(millisecondsSince1970: TestClock.start)
        let books = [try Book.new(title: "One", authors: [], at: now), try Book.new(title: "Two", authors: [], at: now)]
        let prefix = String(books[0].id.rawValue.prefix(8))
        #expect(throws: VaultError.ambiguousBook(candidates: books.map(\.id.rawValue).sorted())) { try resolve(prefix, in: books).get() }
    }

    /// The byte shortcut says what String comparison says, on titles made to trip it:
    /// combining accents and joiners after the prefix, characters canonically equal to ASCII
    /// (U+037E is ";", U+1FEF is "`"), a title shorter than the argument.
    func compare(_ title: String, _ typed: String) -> BookReference.Verdict {
        Array(title.utf8).withUnsafeBufferPointer { BookReference.compare($0, withPrintableASCII: Array(typed.utf8)) }
    }

    @Test func bytesDecideOnlyWhatCharactersWouldDecide() {
        let titles = ["dune", "dune messiah", "dune\u{301}", "dune\u{301} x", "dune\u{200D}", "a\u{37E}b", "a;b", "a;bc",
                      "\u{1FEF}x", "`x", "\u{212A}elvin", "kelvin", "du", "book 01000 — ordinary"]
        let typed = ["dune", "du", "dune ", "a;b", "a;", "`x", "`", "kelvin", "k", "x", "book 01000"]
        var decided = 0
        for title in titles.map({ $0.lowercased() }) {
            for argument in typed {
                let verdict = compare(title, argument)
                guard verdict != .undecided else { continue }
                decided += 1
                #expect((verdict == .equal) == (title == argument), "\(title) vs \(argument)")
                #expect((verdict != .neither) == title.hasPrefix(argument), "\(title) vs \(argument)")
            }
        }
        #expect(decided > 100)
        // The case it is for: an ASCII prefix of a title with an em dash after it.
        #expect(compare("book 01000 — ordinary", "book 01000") == .prefix)
        #expect(compare("a\u{37E}b", "a;b") == .undecided)
        #expect(compare("dune\u{301}", "dune") == .undecided)
    }
}
