import Testing
import Journal

@Suite("SearchQuery")
struct SearchQueryTests {
    @Test("An ASCII query matches anywhere, ignoring ASCII case", arguments: [
        ("serendipity", "Pure Serendipity.", true),
        ("SERENDIPITY", "pure serendipity", true),
        ("ity", "serendipity", true),
        ("serendipity", "serendipit", false),
        ("serendipity", "serendipitY at the end", true),
        ("sss", "ssxsss", true),
        ("abc", "ab", false),
        ("e", "", false),
        ("cafe", "un CAFE crème", true),
    ])
    func asciiMatching(query: String, text: String, expected: Bool) throws {
        #expect(try SearchQuery(query).matches(text) == expected)
    }

    @Test("A non-ASCII query compares lowercased text")
    func nonASCII() throws {
        #expect(try SearchQuery("Ελλάδα").matches("στην ΕΛΛΆΔΑ σήμερα"))
        #expect(try SearchQuery("ÉTÉ").matches("un été"))
        #expect(try !SearchQuery("読書").matches("読み物"))
    }

    @Test("Bytes and text give the same answer")
    func bytesAndText() throws {
        let query = try SearchQuery("Dune")
        let text = "Rereading DUNE, chapter 3"
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { query.matches($0) })
        #expect(query.matches(text))
    }

    @Test("Refuses an empty or blank query", arguments: ["", "   ", "\n\t"])
    func refusesBlank(text: String) {
        #expect(throws: JournalError.self) { try SearchQuery(text) }
    }
}
