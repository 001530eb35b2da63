import Testing
import Journal
@testable import Archive

/// The escaping of format version 1: what Markdown would take as formatting is neutralised,
/// and reading back gives the exact text.
@Suite struct MarkdownTextTests {
    @Test(arguments: SampleJournal.tricky)
    func bodiesRoundTripExactly(_ text: String) throws {
        let body = try TextRules.body(text)
        let lines = bodyLines(body)
        #expect(MarkdownText.body(lines) == body)
        #expect(!lines[0].isEmpty && !lines[lines.count - 1].isEmpty)
    }

    @Test func markdownSignificantStartsOfLinesAreEscaped() {
        let cases: [(String, String)] = [
            ("# h", "\\# h"), ("> q", "\\> q"), ("---", "\\---"), ("- l", "\\- l"), ("+ l", "\\+ l"), ("=== x", "\\=\\== x"),
            ("1. l", "1\\. l"), ("12) l", "12\\) l"), ("1 apple", "1 apple"), ("  two", "&#32; two"), ("\tt", "&#9;t"),
            ("end ", "end&#32;"), ("— locator?", "&#8212; locator?"), ("a — b", "a — b"), ("<!-- c -->", "\\<!-- c -->"),
        ]
        for (line, escaped) in cases {
            #expect(MarkdownText.escapeLine(line, atLineStart: true) == escaped, "\(line)")
            #expect(MarkdownText.unescape(Substring(escaped)) == line, "\(escaped)")
        }
    }

    @Test func inlineFormattingAndBackslashesAreEscaped() {
        let cases: [(String, String)] = [
            ("`c` *e* _u_ [l](x) <b> $x$ a|b ~s~", "\\`c\\` \\*e\\* \\_u\\_ \\[l](x) \\<b> \\$x\\$ a\\|b \\~s\\~"),
            ("a\\b", "a\\b"), ("a\\*", "a\\\\\\*"), ("end\\", "end\\\\"), ("AT&T &amp; &#32; & x", "AT\\&T \\&amp; \\&\\#32; & x"),
            ("%%c%% ==h==", "\\%%c\\%% \\==h\\=="), ("C# and #tag", "C\\# and \\#tag"), ("100% sure", "100% sure"),
        ]
        for (line, escaped) in cases {
            #expect(MarkdownText.escapeLine(line, atLineStart: false) == escaped, "\(line)")
            #expect(MarkdownText.unescape(Substring(escaped)) == line, "\(escaped)")
        }
    }

    @Test func controlCharactersAndSeparatorsBecomeReferences() {
        let line = "a\u{1B}b\u{7F}c\u{85}d\u{2028}e\u{2029}f\u{FEFF}g\rh\u{0}i"
        let escaped = MarkdownText.escapeLine(line, atLineStart: true)
        #expect(escaped == "a&#27;b&#127;c&#133;d&#8232;e&#8233;f&#65279;g&#13;h&#0;i")
        #expect(MarkdownText.unescape(Substring(escaped)) == line)
    }

    @Test func whatAReaderTypesReadsAsTheyMeantIt() {
        #expect(MarkdownText.unescape("Tom &amp; Jerry &lt;3 &nbsp;&#x41;&#66;") == "Tom & Jerry <3 \u{A0}AB")
        #expect(MarkdownText.unescape("*kept* as typed \\q &unknown; &#;") == "*kept* as typed \\q &unknown; &#;")
    }

    /// Random text of the characters that matter most, at random: every body reads back.
    @Test func randomTextRoundTrips() throws {
        let alphabet = Array("ab #>-+=1.)`*_[]<&%$|~\\— \t\n\r\u{1B}\u{2028}é👩🏽‍💻مر;x9")
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 1...40, using: &generator)
            let text = String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
            guard let body = try? TextRules.body(text) else { continue }
            let lines = bodyLines(body)
            #expect(MarkdownText.body(lines) == body, "\(Array(body.unicodeScalars))")
            #expect(lines.allSatisfy { !$0.contains("\n") })
            checked += 1
        }
        #expect(checked > 1000)
    }

    @Test func yamlStringsEscapeQuotesAndBackslashes() {
        #expect(MarkdownText.yamlString("A \"Quoted\" C:\\dir") == "\"A \\\"Quoted\\\" C:\\\\dir\"")
        #expect(MarkdownText.yamlString("Война 📚 שלום") == "\"Война 📚 שלום\"")
        #expect(MarkdownText.yamlString("bom\u{FEFF}") == "\"bom\\uFEFF\"")
    }

    /// The lines of `body` as format 1 wrote them (bmvault 0.1 to 0.14): each line escaped,
    /// the line breaks before the first line with text as `&#10;`.
    private func bodyLines(_ body: String) -> [Substring] {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let leadingBreaks = lines.prefix { $0.isEmpty }.count
        return lines.dropFirst(leadingBreaks).enumerated().map { index, line in
            Substring((index == 0 ? String(repeating: "&#10;", count: leadingBreaks) : "") + MarkdownText.escapeLine(String(line), atLineStart: true))
        }
    }
}
