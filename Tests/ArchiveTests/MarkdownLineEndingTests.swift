import Testing
import Journal
import TestSupport
@testable import Archive

/// A book's Markdown file edited on another system: lines end in CR LF, or a stray CR is
/// left before the line break. Each line stays a line (a note's lines are gathered as bytes
/// and split on line feeds, not on characters, which would take CR + LF as one).
@Suite struct MarkdownLineEndingTests {
    static let file = """
        ---
        bmvault-archive: 1
        id: 01a2421e-fe9b-7b29-a345-eff3a7cbb156
        title: "Line endings"
        authors: []
        progress: 0
        created: 2026-12-04T17:34:17.243Z
        updated: 2026-12-04T17:34:17.243Z
        version: 1
        ---

        ## Notes and quotes

        <!-- bmvault:quote 01a2421e-fec1-7aa5-89d6-868d2eeb31cc created=2026-12-04T17:34:17.281Z updated=2026-12-04T17:34:17.281Z version=1 -->
        > the first line
        > the second line
        >
        > — p. 12
        <!-- /bmvault:quote -->

        """

    @Test(arguments: [false, true])
    func everyLineStaysALine(strayCarriageReturn: Bool) throws {
        let directory = try TemporaryDirectory("markdown-endings")
        defer { directory.remove() }
        var text = Self.file.replacingOccurrences(of: "\n", with: "\r\n")
        if strayCarriageReturn { text = text.replacingOccurrences(of: "the first line\r\n", with: "the first line\r\r\n") }
        try directory.write(text, to: "book.md")
        let book = try BookMarkdownReader.read(path: directory.file("book.md"), displayName: "book.md")
        let quote = try #require(book.annotations.first)
        #expect(quote.locator?.text == "p. 12")
        #expect(quote.body.hasPrefix("the first line"))
        #expect(quote.body.contains("the second line"))
        #expect(!quote.body.contains(">"), "every line lost its quote marker: \(quote.body.debugDescription)")
    }
}
