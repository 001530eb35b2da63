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
        #expect(try SearchMatcher(SearchQuery(query)).matches(text) == expected)
    }

    @Test("Case and accents are folded on both sides", arguments: [
        ("Ελλάδα", "στην ΕΛΛΆΔΑ σήμερα", true),
        ("ÉTÉ", "un été", true),
        ("ete", "un été", true),
        ("miserables", "Les Misérables", true),
        ("misérables", "les miserables", true),
        // A decomposed accent (e + U+0301) folds like a precomposed one.
        ("cafe", "un cafe\u{301} noir", true),
        ("café", "un cafe\u{301} noir", true),
        ("strasse", "die Straße", true),
        ("zurich", "ZÜRICH", true),
        ("読書", "読み物", false),
        ("lodz", "Łódź", false),
    ])
    func folding(query: String, text: String, expected: Bool) throws {
        #expect(try SearchMatcher(SearchQuery(query)).matches(text) == expected)
    }

    @Test("Several words must all appear, in any order; a quoted phrase as written", arguments: [
        ("spice dune", "Dune: the spice must flow", true),
        ("spice dune", "the spice must flow", false),
        ("\"spice must\"", "the spice must flow", true),
        ("\"must spice\"", "the spice must flow", false),
        ("\"spice   must\" flow", "the SPICE MUST FLOW", true),
        ("\"spice must", "the spice must", true),
        ("\"spice must", "spice and must", false),
    ])
    func words(query: String, text: String, expected: Bool) throws {
        #expect(try SearchMatcher(SearchQuery(query)).matches(text) == expected)
    }

    @Test("Terms found are reported as a mask, so a book's title can cover some of them")
    func termMask() throws {
        let query = try SearchQuery("dune spice arrakis")
        let matcher = SearchMatcher(query)
        #expect(query.allTerms == 0b111)
        #expect(matcher.terms(query.allTerms, foundIn: "Arrakis has spice") == 0b110)
        #expect(matcher.terms(0b001, foundIn: "Arrakis has spice") == 0)
        #expect(matcher.terms(0b100, foundIn: "arrakís") == 0b100)
    }

    @Test("The phrase ranks: the words in order, as typed")
    func phrase() throws {
        let matcher = SearchMatcher(try SearchQuery("spice flow"))
        #expect(matcher.containsPhrase("The Spice  flow") == false)
        #expect(matcher.containsPhrase("the spice flow"))
        #expect(!matcher.containsPhrase("flow of spice"))
        // One term: every result holds it.
        #expect(SearchMatcher(try SearchQuery("spice")).containsPhrase("anything"))
    }

    @Test("Highlights cover whole characters of the original text")
    func highlights() throws {
        let text = "Les Mise\u{301}rables, the misérables"
        let matcher = SearchMatcher(try SearchQuery("miserables les"))
        let shown = matcher.highlights(in: text).map { String(text[$0]) }
        #expect(shown == ["Les", "Mise\u{301}rables", "misérables"])
        #expect(SearchMatcher(try SearchQuery("zz")).highlights(in: text).isEmpty)
    }

    @Test("Refuses more than the maximum number of terms")
    func tooManyTerms() throws {
        let words = (0...SearchQuery.maximumTerms).map { "w\($0)" }
        #expect(throws: JournalError.tooManySearchTerms(limit: SearchQuery.maximumTerms)) { try SearchQuery(words.joined(separator: " ")) }
        #expect(try SearchQuery(words.dropLast().joined(separator: " ")).allTerms == UInt64(UInt32.max))
    }

    /// Every query position against every text length around the 16-byte vector steps, and
    /// the bytes `| 0x20` must not fold together ("@" and "`", "[" and "{").
    @Test("Matches wherever the query sits, across the 16-byte steps")
    func everyPosition() throws {
        let query = SearchMatcher(try SearchQuery("Ab@[1"))
        for length in 5...40 {
            for position in 0...(length - 5) {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                bytes.replaceSubrange(position..<(position + 5), with: Array("aB@[1".utf8))
                #expect(bytes.withUnsafeBufferPointer { query.terms(1, foundIn: $0) == 1 }, "length \(length), at \(position)")
                bytes[position + 2] = UInt8(ascii: "`")
                #expect(!bytes.withUnsafeBufferPointer { query.terms(1, foundIn: $0) == 1 }, "length \(length), at \(position)")
                bytes[position + 2] = UInt8(ascii: "@")
                bytes[position + 3] = UInt8(ascii: "{")
                #expect(!bytes.withUnsafeBufferPointer { query.terms(1, foundIn: $0) == 1 }, "length \(length), at \(position)")
            }
        }
        #expect(try SearchMatcher(SearchQuery("[")).matches("a{b") == false)
        #expect(try SearchMatcher(SearchQuery("A")).matches(String(repeating: "b", count: 31) + "a"))
    }

    @Test("Bytes and text give the same answer")
    func bytesAndText() throws {
        let query = SearchMatcher(try SearchQuery("Dune"))
        let text = "Rereading DUNE, chapter 3"
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { query.terms(1, foundIn: $0) } == 1)
        #expect(query.matches(text))
    }

    @Test("Refuses an empty or blank query", arguments: ["", "   ", "\n\t", "\"\"", "\u{301}"])
    func refusesBlank(text: String) {
        #expect(throws: JournalError.emptyText(field: "query")) { try SearchQuery(text) }
    }
}
