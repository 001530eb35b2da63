import Foundation
import Testing
@testable import BookFiles

/// The cleaning every format's fields get, and identifiers in one form.
@Suite struct BookFileMetadataTests {
    @Test func fieldsAreTrimmedCollapsedAndCapped() {
        let metadata = BookFileMetadata(
            title: " \n A\ttitle \u{1B}[31m\u{0}with\u{FEFF} controls\n", creators: ["  ", "One", "\n", " Two  "],
            language: "\t", identifiers: ["id:x", "id:x", " ", "isbn:1"], publisher: String(repeating: "é", count: 5_000),
            date: " 2007 ", hasCover: true
        ).cleaned()
        #expect(metadata.title == "A title [31mwith controls")
        #expect(metadata.creators == ["One", "Two"])
        #expect(metadata.language == nil)
        #expect(metadata.identifiers == ["id:x", "isbn:1"])
        #expect(metadata.publisher == String(repeating: "é", count: BookFileMetadata.Limit.publisher))
        #expect(metadata.date == "2007")
        #expect(metadata.hasCover)
        let long = BookFileMetadata(title: String(repeating: "word ", count: 10_000), creators: Array(repeating: "x", count: 1_000)).cleaned()
        #expect(long.title?.count == BookFileMetadata.Limit.title - 1)
        #expect(long.creators.count == BookFileMetadata.Limit.creators)
    }

    @Test func metadataRoundTripsThroughJSON() throws {
        let metadata = BookFileMetadata(title: "T", creators: ["A"], identifiers: ["isbn:9780306406157"], hasCover: true)
        #expect(try JSONDecoder().decode(BookFileMetadata.self, from: JSONEncoder().encode(metadata)) == metadata)
        #expect(try JSONDecoder().decode(BookFileFormat.self, from: Data("\"azw3\"".utf8)) == .azw3)
    }

    @Test(arguments: [
        ("978-0-306-40615-7", "ISBN", "isbn:9780306406157"),
        ("urn:isbn:0-306-40615-x", nil, "isbn:030640615X"),
        ("ISBN: 0 306 40615 2", nil, "isbn:0306406152"),
        ("9780306406157", nil, "isbn:9780306406157"),
        ("9780306406158", nil, "id:9780306406158"),
        ("1234567890", nil, "id:1234567890"),
        ("urn:uuid:abc", nil, "uuid:abc"),
        ("urn:uuid:abc", "uuid", "uuid:abc"),
        ("urn:uuid:abc", "URI", "uuid:abc"),
        ("urn:uuid:abc", "calibre", "calibre:urn:uuid:abc"),
        ("doi:10.1000/182", nil, "doi:10.1000/182"),
        ("B000FC1PJI", "AMAZON", "asin:B000FC1PJI"),
        ("x", " Goodreads ", "goodreads:x"),
        ("  ", "ISBN", nil),
        ("isbn:", nil, nil),
    ] as [(String, String?, String?)])
    func identifiersHaveOneForm(_ value: String, _ scheme: String?, _ expected: String?) {
        #expect(BookIdentifier.make(value, scheme: scheme) == expected)
    }
}
