import Testing
@testable import Journal

/// A book's edition (issue 21): ISBNs checked by their check digit, the stored text, a page
/// as progress, and the edition merged between devices by its own clock.
@Suite struct EditionTests {
    @Test("An ISBN is 10 or 13 digits whose check digit matches; hyphens and spaces are dropped", arguments: [
        ("978-0-15-602760-1", "9780156027601"), ("0441013597", "0441013597"), ("0-8044-2957-x", "080442957X"),
        ("978 0 306 40615 7", "9780306406157"),
    ])
    func validISBNs(typed: String, stored: String) throws {
        #expect(try Edition.checkedISBN(typed) == stored)
    }

    @Test("Anything else is refused", arguments: ["978-0-15-602760-2", "0441013598", "12345", "", "X441013597",
                                                 "97801560276011", "978015602760X", "044101359Ⅶ", "٠٤٤١٠١٣٥٩٧"])
    func invalidISBNs(typed: String) {
        #expect(throws: JournalError.invalidISBN) { try Edition.checkedISBN(typed) }
    }

    @Test func theTextReadsBackAndRefusesAnythingElse() throws {
        for edition in [Edition.unknown, Edition(isbn: "9780156027601"), Edition(year: -400, pages: 12),
                        Edition(isbn: "080442957X", year: 1961, pages: 100_000)] {
            #expect(try Edition(parsing: edition.text) == edition)
        }
        #expect(Edition(isbn: "9780156027601", year: 1961, pages: 204).text == "isbn=9780156027601;year=1961;pages=204")
        for text in ["isbn", "year=x", "pages=0", "pages=100001", "year=10000", "isbn=1", "year=1;year=2", "color=red", "year=1;"] {
            #expect(throws: JournalError.self, "\(text)") { try Edition(parsing: text) }
        }
    }

    @Test func aPageIsAPercentOfTheEditionsPages() throws {
        let edition = Edition(pages: 317)
        #expect(try edition.percent(atPage: 0) == 0)
        #expect(try edition.percent(atPage: 317) == 100)
        #expect(edition.page(atPercent: try edition.percent(atPage: 120)) == 120)
        #expect(throws: JournalError.pageBeyondEnd(pages: 317)) { try edition.percent(atPage: 318) }
        #expect(throws: JournalError.noPageCount) { try Edition.unknown.percent(atPage: 1) }
        #expect(Edition.unknown.page(atPercent: 50) == nil)
    }

    static func clock(_ wall: Int64, _ device: String) -> HybridTimestamp {
        HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: device)
    }

    static func book(title: String, titledAt: HybridTimestamp, edition: Edition, editedAt: HybridTimestamp, clock: HybridTimestamp) -> BookVersion {
        let book = Book(id: someBookID, title: title, authors: [], progress: 0,
                        createdAt: Timestamp(millisecondsSince1970: 1), updatedAt: Timestamp(millisecondsSince1970: 2),
                        deletedAt: nil, version: 2, edition: edition)
        return BookVersion(book, clock: clock, metadataClock: titledAt,
                           positions: ProgressPolicy.Positions(percent: 0, isRewind: false, clock: .origin), editionClock: editedAt)
    }

    /// A retitle on one device and an edition given on the other both survive, whichever
    /// order they merge in; of two editions the later wins; a version from a device that
    /// does not know editions (none, the origin clock) takes none away.
    @Test func twoDevicesConvergeOnTitleAndEdition() {
        let merge = JournalMerge(conflictCopyID: { id, _ in id })
        let retitled = Self.book(title: "Solaris (1961)", titledAt: Self.clock(50, "a"), edition: .unknown, editedAt: .origin,
                                 clock: Self.clock(50, "a"))
        let edited = Self.book(title: "Solaris", titledAt: Self.clock(10, "a"), edition: Edition(isbn: "9780156027601", pages: 204),
                               editedAt: Self.clock(40, "b"), clock: Self.clock(40, "b"))
        var results: [BookVersion] = []
        for (here, incoming) in [(retitled, edited), (edited, retitled)] {
            guard case .update(let merged) = merge.merge(incoming, into: .book(here, liveAnnotations: 0)) else {
                Issue.record("expected a change"); continue
            }
            results.append(merged)
        }
        #expect(results.count == 2 && results[0] == results[1])
        #expect(results.first?.book.title == "Solaris (1961)" && results.first?.book.edition.pages == 204)

        let later = Self.book(title: "Solaris (1961)", titledAt: Self.clock(50, "a"), edition: Edition(pages: 211),
                              editedAt: Self.clock(60, "c"), clock: Self.clock(60, "c"))
        guard case .update(let corrected) = merge.merge(later, into: .book(results[0], liveAnnotations: 0)) else {
            Issue.record("expected a change"); return
        }
        #expect(corrected.book.edition == Edition(pages: 211), "the later edition, as a whole")

        let unaware = Self.book(title: "Solaris (1961)", titledAt: Self.clock(50, "a"), edition: .unknown, editedAt: .origin,
                                clock: Self.clock(90, "d"))
        guard case .update(let kept) = merge.merge(unaware, into: .book(corrected, liveAnnotations: 0)) else {
            Issue.record("expected the clock to move"); return
        }
        #expect(kept.book.edition == Edition(pages: 211))
    }
}
