import Testing
import Journal
@testable import Archive

/// Format 2's text of notes and quotes: the reader's Markdown as written, references only
/// where an editor or the archive's layout would change the text, and always read back exactly.
@Suite struct MarkdownBodyTests {
    @Test func theReadersMarkdownIsWrittenAsItIs() throws {
        let body = "I *loved* this, see [the map](https://example.org/map).\n\n- one\n- two\n\n#idea > not a quote\n# A heading\n`code` AT&T &amp; 1. list"
        #expect(MarkdownBody.encoding(of: body) == .plain)
        #expect(written(body, quoted: false) == body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        #expect(written("line\n\nafter a blank", quoted: true) == ["> line", ">", "> after a blank"])
        #expect(readBack(written(body, quoted: false), quoted: false, encoding: .plain) == body)
    }

    @Test func whatAnEditorOrTheLayoutWouldChangeIsWrittenWithReferences() {
        let cases: [(String, [String])] = [
            ("trailing space \nnext", ["trailing space&#32;", "next"]),
            ("tab at end\t", ["tab at end&#9;"]),
            ("\n\nleading breaks", ["&#10;&#10;leading breaks"]),
            ("a\n   \nb", ["a", "  &#32;", "b"]),
            ("CR\rESC\u{1B}LS\u{2028}BOM\u{FEFF}C1\u{85}", ["CR&#13;ESC&#27;LS&#8232;BOM&#65279;C1&#133;"]),
            ("<!-- bmvault:note 00000000-0000-7000-8000-000000000000 -->", ["&lt;!-- bmvault:note 00000000-0000-7000-8000-000000000000 -->"]),
            ("text <!-- hidden? --> AT&T", ["text &lt;!-- hidden? --> AT&amp;T"]),
            ("said so\n— the last line", ["said so", "&#8212; the last line"]),
        ]
        for (body, lines) in cases {
            #expect(MarkdownBody.encoding(of: body) == .references, "\(body)")
            #expect(written(body, quoted: false) == lines, "\(body)")
            #expect(readBack(lines, quoted: false, encoding: .references) == body, "\(body)")
        }
        // An em dash inside a line, or on a line that is not the last, needs nothing.
        #expect(MarkdownBody.encoding(of: "a — b\n— not last\nend") == .plain)
        #expect(MarkdownBody.encoding(of: "x <!- not a comment <b>bold</b>") == .plain)
    }

    @Test(arguments: SampleJournal.tricky, [false, true])
    func trickyBodiesReadBackExactly(_ text: String, quoted: Bool) throws {
        let body = try TextRules.body(text)
        let encoding = MarkdownBody.encoding(of: body)
        let lines = written(body, quoted: quoted)
        #expect(readBack(lines, quoted: quoted, encoding: encoding) == body)
        checkTheLayoutHolds(lines, quoted: quoted)
    }

    /// Random text of the characters that matter most: every body reads back, in either
    /// encoding its content calls for, and leaves the layout the reader depends on intact.
    @Test func randomTextRoundTrips() throws {
        let alphabet = Array("ab #>-+=1.)`*_[]<!&%$|~\\— \t\n\r\u{1B}\u{2028}é👩🏽‍💻مر;x9")
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        var plain = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 1...40, using: &generator)
            let text = String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
            guard let body = try? TextRules.body(text) else { continue }
            let quoted = Bool.random(using: &generator)
            let encoding = MarkdownBody.encoding(of: body)
            let lines = written(body, quoted: quoted)
            #expect(readBack(lines, quoted: quoted, encoding: encoding) == body, "\(Array(body.unicodeScalars))")
            checkTheLayoutHolds(lines, quoted: quoted)
            checked += 1
            if encoding == .plain { plain += 1 }
        }
        #expect(checked > 1000 && plain > 100)
    }

    /// What ``BookMarkdownReader`` relies on: no blank first or last line (it trims those), no
    /// last line that reads as a locator, no marker, no space or tab an editor would strip.
    private func checkTheLayoutHolds(_ lines: [String], quoted: Bool) {
        let content = quoted ? lines.map(strippingQuote) : lines
        #expect(!(content.first ?? "").allSatisfy { $0 == " " || $0 == "\t" })
        #expect(!(content.last ?? "").allSatisfy { $0 == " " || $0 == "\t" })
        #expect(!(content.last ?? "").hasPrefix("— "))
        #expect(!lines.contains { $0.contains("<!--") || $0.hasSuffix(" ") || $0.hasSuffix("\t") || $0.contains("\r") })
    }

    private func written(_ body: String, quoted: Bool) -> [String] {
        var out: [UInt8] = []
        MarkdownBody.append(body, encoding: MarkdownBody.encoding(of: body), quoted: quoted, to: &out)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        return text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func readBack(_ lines: [String], quoted: Bool, encoding: MarkdownBody.Encoding) -> String {
        MarkdownBody.text((quoted ? lines.map(strippingQuote) : lines).map { Substring($0) }, encoding: encoding)
    }

    private func strippingQuote(_ line: String) -> String {
        line.hasPrefix("> ") ? String(line.dropFirst(2)) : line.hasPrefix(">") ? String(line.dropFirst()) : line
    }
}
