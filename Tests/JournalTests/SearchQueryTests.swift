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

    /// Every query position against every text length around the 16-byte vector steps, and
    /// the bytes `| 0x20` must not fold together ("@" and "`", "[" and "{").
    @Test("Matches wherever the query sits, across the 16-byte steps")
    func everyPosition() throws {
        let query = try SearchQuery("Ab@[1")
        for length in 5...40 {
            for position in 0...(length - 5) {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                bytes.replaceSubrange(position..<(position + 5), with: Array("aB@[1".utf8))
                #expect(bytes.withUnsafeBufferPointer { query.matches($0) }, "length \(length), at \(position)")
                bytes[position + 2] = UInt8(ascii: "`")
                #expect(!bytes.withUnsafeBufferPointer { query.matches($0) }, "length \(length), at \(position)")
                bytes[position + 2] = UInt8(ascii: "@")
                bytes[position + 3] = UInt8(ascii: "{")
                #expect(!bytes.withUnsafeBufferPointer { query.matches($0) }, "length \(length), at \(position)")
            }
        }
        #expect(try SearchQuery("[").matches("a{b") == false)
        #expect(try SearchQuery("A").matches(String(repeating: "b", count: 31) + "a"))
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
        #expect(throws: JournalError.emptyText(field: "query")) { try SearchQuery(text) }
    }
}
