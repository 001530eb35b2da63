import Testing
import Journal

@Suite("TextRules.body")
struct BodyRuleTests {
    @Test("Leading indentation, inner line breaks and blank lines are kept")
    func keepsShape() throws {
        let poem = "    So much depends\n\tupon\n\n  a red wheel\r\nbarrow"
        #expect(try TextRules.body(poem) == poem)
    }

    @Test("Trailing line breaks, spaces and tabs are dropped", arguments: [
        ("text\n", "text"),
        ("text\n\n\n", "text"),
        ("text \t \n", "text"),
        ("text\r\n", "text"),
        ("text\r\n\r\n", "text"),
        ("  indented \n  ", "  indented"),
        ("line\n  next   ", "line\n  next"),
        ("text\u{2028}", "text"),
    ])
    func dropsTrailing(input: String, expected: String) throws {
        #expect(try TextRules.body(input) == expected)
    }

    @Test("Empty or white-space-only bodies are .emptyText", arguments: [
        "", " ", "\n", "\n\n", "\t \n ", "\r\n", "\u{00A0}", "\u{3000}", " \u{2003}\n",
    ])
    func rejectsEmpty(input: String) {
        #expect(throws: JournalError.emptyText(field: "body")) { try TextRules.body(input) }
    }

    @Test("The field name is carried into the error")
    func fieldName() {
        #expect(throws: JournalError.emptyText(field: "quote")) { try TextRules.body("  \n", field: "quote") }
        #expect(throws: JournalError.textTooLong(field: "note", limit: 1 << 20)) {
            try TextRules.body(String(repeating: "x", count: (1 << 20) + 1), field: "note")
        }
    }

    @Test("Up to 1 MiB of UTF-8 is accepted; one byte more is .textTooLong")
    func sizeLimit() throws {
        #expect(TextRules.maximumBodyBytes == 1_048_576)
        let exact = String(repeating: "a", count: 1 << 20)
        #expect(try TextRules.body(exact).utf8.count == 1 << 20)
        #expect(throws: JournalError.textTooLong(field: "body", limit: 1 << 20)) {
            try TextRules.body(exact + "b")
        }
    }

    @Test("The limit counts UTF-8 bytes, not characters")
    func sizeLimitCountsBytes() throws {
        let exact = String(repeating: "é", count: 1 << 19)   // 2 bytes each
        #expect(try TextRules.body(exact) == exact)
        #expect(throws: JournalError.textTooLong(field: "body", limit: 1 << 20)) {
            try TextRules.body(exact + "a")
        }
        let emoji = String(repeating: "📚", count: (1 << 18) + 1)   // 4 bytes each
        #expect(throws: JournalError.textTooLong(field: "body", limit: 1 << 20)) { try TextRules.body(emoji) }
    }

    @Test("Trailing white space dropped first does not count toward the limit")
    func limitAfterTrimming() throws {
        let exact = String(repeating: "a", count: 1 << 20)
        #expect(try TextRules.body(exact + "\n\n  ") == exact)
    }

    @Test("Non-ASCII text is kept as typed")
    func unicode() throws {
        let text = "  「読書」は楽しい 📚\n— Cien años"
        #expect(try TextRules.body(text) == text)
    }
}

@Suite("TextRules.line")
struct LineRuleTests {
    @Test("Surrounding white space is dropped; inner spaces are kept", arguments: [
        ("Dune", "Dune"),
        ("  Dune  ", "Dune"),
        ("\tDune\n", "Dune"),
        ("\r\n Dune \r\n", "Dune"),
        ("War and  Peace", "War and  Peace"),
        ("\u{00A0}Cien años de soledad\u{3000}", "Cien años de soledad"),
    ])
    func trims(input: String, expected: String) throws {
        #expect(try TextRules.line(input, field: "title") == expected)
    }

    @Test("Empty or white-space-only lines are .emptyText", arguments: ["", " ", "\n", "\t\r\n ", "\u{00A0}"])
    func rejectsEmpty(input: String) {
        #expect(throws: JournalError.emptyText(field: "title")) { try TextRules.line(input, field: "title") }
    }

    @Test("Inner line breaks, tabs and control characters are .controlCharacters", arguments: [
        "Dune\nMessiah", "Dune\r\nMessiah", "Dune\rMessiah", "Dune\tMessiah", "Dune\u{0}", "Dune\u{1B}[31m",
        "Du\u{7F}ne", "Du\u{85}ne", "Du\u{0B}ne", "Du\u{0C}ne", "Du\u{9B}ne",
    ])
    func rejectsControl(input: String) {
        #expect(throws: JournalError.controlCharacters(field: "author")) { try TextRules.line(input, field: "author") }
    }

    @Test("Unicode line and paragraph separators are line breaks too", arguments: ["Dune\u{2028}Messiah", "Dune\u{2029}Messiah"])
    func rejectsUnicodeLineBreaks(input: String) {
        #expect(throws: JournalError.controlCharacters(field: "title")) { try TextRules.line(input, field: "title") }
    }

    @Test("Bidirectional overrides, which can disguise a title, are refused", arguments: ["\u{202E}enuD", "Dune\u{2066}x\u{2069}"])
    func rejectsBidiOverrides(input: String) {
        #expect(throws: JournalError.controlCharacters(field: "title")) { try TextRules.line(input, field: "title") }
    }

    @Test("Right-to-left titles themselves are fine")
    func acceptsRightToLeftText() throws {
        #expect(try TextRules.line("الأيام", field: "title") == "الأيام")
    }

    @Test("Up to 1 KiB of UTF-8 is accepted; one byte more is .textTooLong")
    func sizeLimit() throws {
        #expect(TextRules.maximumLineBytes == 1_024)
        let exact = String(repeating: "a", count: 1_024)
        #expect(try TextRules.line(exact, field: "title") == exact)
        #expect(throws: JournalError.textTooLong(field: "title", limit: 1_024)) {
            try TextRules.line(exact + "a", field: "title")
        }
        let twoByte = String(repeating: "ñ", count: 512)
        #expect(try TextRules.line(twoByte, field: "title") == twoByte)
        #expect(throws: JournalError.textTooLong(field: "title", limit: 1_024)) {
            try TextRules.line(twoByte + "n", field: "title")
        }
    }

    @Test("Surrounding white space does not count toward the limit")
    func limitAfterTrimming() throws {
        let exact = String(repeating: "a", count: 1_024)
        #expect(try TextRules.line("   " + exact + "\n", field: "title") == exact)
    }
}
