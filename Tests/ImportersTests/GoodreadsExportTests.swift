import Testing
@testable import Importers

/// A Goodreads library export, read with libcsv: the real file's counts as its README gives
/// them, and CSV's own rules.
@Suite struct GoodreadsExportTests {
    @Test func theRealExportGivesItsBooksAndShelves() throws {
        let export = try GoodreadsExport.read(try Fixtures.goodreads())
        #expect(export.books.count == 112)
        #expect(export.books.reduce(into: [:]) { $0[$1.shelf, default: 0] += 1 } == ["read": 80, "to-read": 31, "did-not-finish": 1])
        let read = export.books.filter { $0.shelf == "read" }
        #expect(read.filter { $0.dateRead != nil }.count == 41)
        // The README's 79 with Read Count 1 count the did-not-finish book too.
        #expect(export.books.filter { $0.readCount == 1 }.count == 79 && read.contains { $0.readCount == 3 })
        let first = try #require(export.books.first)
        #expect(first.goodreadsID == "257233" && first.title == "Raintree County" && first.authors == ["Ross Lockridge Jr."])
        #expect(first.isbn == "014023666X" && first.isbn13 == "9780140236668" && first.rating == 3 && first.pages == 1088)
        #expect(first.dateRead == "2026/06/23" && first.dateAdded == "2024/06/28")
        #expect(export.books[1].rating == nil, "0 stars is not rated")
        #expect(Set(export.books.map(\.goodreadsID)).count == 112)
        #expect(export.books.flatMap(\.shelves).count == 15)
        #expect(export.books.allSatisfy { $0.review == nil && $0.privateNotes == nil })
    }

    @Test func aReviewsLineBreaksAreLineBreaks() throws {
        let text = "Book Id,Title,Author,Exclusive Shelf,Bookshelves,My Review,Private Notes\n"
            + "1,One,A,read,\"read, kidz , re read\",\"First.<br/><br />Second.<BR>Third <b>bold</b>\",Mine<br>only\n"
        let book = try #require(try GoodreadsExport.read(Array(text.utf8)).books.first)
        #expect(book.review == "First.\n\nSecond.\nThird <b>bold</b>")
        #expect(book.privateNotes == "Mine\nonly")
        #expect(book.shelves == ["kidz", "re read"], "the reading shelves are no shelves of one's own")
    }

    @Test func csvByItsRules() throws {
        let text = "\u{FEFF}Book Id,Title,Author,Additional Authors,Exclusive Shelf,My Review\r\n"
            + "1,\"Title, with a comma\",\"A \"\"quoted\"\" author\",\"B, C\",to-read,\r\n"
            + "2,Two,D,,read,\"a review\non two lines\"\r\n"
        let export = try GoodreadsExport.read(Array(text.utf8))
        #expect(export.books.map(\.title) == ["Title, with a comma", "Two"])
        #expect(export.books[0].authors == ["A \"quoted\" author", "B", "C"])
        #expect(export.books[1].shelf == "read", "a quoted line break stays inside its cell")
        // A title or author the journal does not take is named by its row, as a malformed row is.
        #expect(throws: ImportError.malformed(line: 3, reason: "the title has a control character or a line break")) {
            try GoodreadsExport.read(Array("Book Id,Title,Author,Exclusive Shelf\n1,One,A,read\n2,\"Two\nlines\",B,read\n".utf8))
        }
        #expect(throws: ImportError.malformed(line: 2, reason: "the author has a control character or a line break")) {
            try GoodreadsExport.read(Array("Book Id,Title,Author,Exclusive Shelf\n1,One,\"A\u{1B}[31m\",read\n".utf8))
        }
        #expect(throws: ImportError.self) { try GoodreadsExport.read(Array("Book Id,Title,Author,Exclusive Shelf\n1,\"open,x,read\n".utf8)) }
        #expect(throws: ImportError.malformed(line: 1, reason: "no `Exclusive Shelf` column: not a Goodreads library export")) {
            try GoodreadsExport.read(Array("Book Id,Title,Author\n1,T,A\n".utf8))
        }
        #expect(GoodreadsExport.formulaText("=\"014023666X\"") == "014023666X" && GoodreadsExport.formulaText("=\"\"") == nil)
    }
}
