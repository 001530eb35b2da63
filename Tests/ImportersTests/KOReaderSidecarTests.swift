import Foundation
import Testing
@testable import Importers

/// KOReader's sidecars, from the real files in ../shared/fixtures/importers/koreader: both
/// layouts, read as data (never run).
@Suite struct KOReaderSidecarTests {
    /// The same book in the 2024 layout (with the old tables still there) and in the old
    /// layout alone: the same highlights, notes and keys, each counted once.
    @Test func bothLayoutsOfOneBookGiveTheSameItems() throws {
        let new = try KOReaderSidecar.read(try Fixtures.koreader("noted__the_prophet.sdr__metadata.epub.lua"))
        let old = try KOReaderSidecar.read(try Fixtures.koreader("noted__the_prophet.sdr__metadata.epub.lua.old"))
        #expect(new.highlights.count == 3 && new.bookmarks == 1, "\(new.highlights.count) \(new.bookmarks)")
        #expect(new.highlights.map(\.naturalKey) == old.highlights.map(\.naturalKey))
        #expect(new.highlights.map(\.text) == old.highlights.map(\.text))
        #expect(new.highlights.map(\.note) == old.highlights.map(\.note) && new.highlights.compactMap(\.note) == ["Sample note"])
        #expect(old.bookmarks == 1)
        #expect(new.title == "The Prophet" && new.status == "reading" && new.partialMD5 == "2107aa7e6601b1c5459134e763c87d5b")
        #expect(new.highlights[1].text == "Love gives naught but itself and takes naught but from itself.\nLove possesses not nor would it be possessed;\nFor love is sufficient unto love.")
        #expect(abs((new.percentFinished ?? 0) - 19.417475728155) < 0.0001)
    }

    /// Found by `Scripts/fuzz` (issue 40): a page number no page has (1e300, an infinity)
    /// trapped in `Int(_:)`, in both layouts. It is read as no page; the highlight is kept.
    @Test func aPageNumberBeyondAnyPageIsNoPageNotATrap() throws {
        for page in ["1e300", "-1e300", "1e999", "-1e999", "12.7"] {
            let new = #"return { ["annotations"] = { [1] = { ["pos0"] = "a", ["pos1"] = "b", ["text"] = "t", ["pageno"] = \#(page) } } }"#
            let old = #"return { ["highlight"] = { [\#(page)] = { [1] = { ["pos0"] = "a", ["text"] = "t" } } } }"#
            for code in [new, old] {
                let highlights = try KOReaderSidecar.read(Array(code.utf8)).highlights
                #expect(highlights.map(\.text) == ["t"], "\(code)")
                #expect(highlights.first?.pageNumber == (page == "12.7" ? 12 : nil), "\(code)")
            }
        }
    }

    @Test func theOtherFixtures() throws {
        let alice = try KOReaderSidecar.read(try Fixtures.koreader("harmtemolder__alice.sdr__metadata.epub.lua"))
        #expect(alice.title == "Alice's Adventures in Wonderland" && alice.authors == ["Lewis Carroll"] && alice.partialMD5 != nil)
        #expect(alice.highlights.count == 2 && alice.bookmarks == 1)
        // The reader edited KOReader's own text of the bookmark into a note: it is kept.
        #expect(alice.highlights.compactMap(\.note) == ["Higlight with note: Page 48 “You!” said the Caterpillar contemptuously. “Who are you?” @ 2020-11-16 18:51:04"])
        let seneca = try KOReaderSidecar.read(try Fixtures.koreader("noted__dialogues_seneca.sdr__metadata.epub.lua"))
        #expect(seneca.title == "Dialogues" && seneca.authors == ["Seneca"] && seneca.highlights.isEmpty && seneca.bookmarks == 0)
        let frankenstein = try KOReaderSidecar.read(try Fixtures.koreader("noted__pg42324.sdr__metadata.epub.lua"))
        let frankensteinOld = try KOReaderSidecar.read(try Fixtures.koreader("noted__pg42324.sdr__metadata.epub.lua.old"))
        #expect(!frankenstein.highlights.isEmpty && frankenstein.highlights.map(\.naturalKey) == frankensteinOld.highlights.map(\.naturalKey))
        #expect(frankenstein.highlights.contains { $0.note == "Sample note without highlight" })
    }

    @Test func luaIsReadAsDataOnly() throws {
        let value = try LuaLiteralReader.read(Array("""
            -- a comment
            --[[ a long
            comment ]]
            return { ["a"] = "x\\ny\\"\\65\\x42\\
            z", b = 1.5e2, [3] = true, { nested = {} }, 'single', [[long
            string]], -7, 0x10, nil, }
            """.utf8))
        #expect(value["a"]?.string == "x\ny\"AB\nz" && value["b"]?.number == 150)
        #expect(value.fields.map(\.key) == [.string("a"), .string("b"), .number(3), .number(1), .number(2), .number(3), .number(4), .number(5), .number(6)])
        #expect(value.fields[5].value == .string("long\nstring") && value.fields[6].value == .number(-7) && value.fields[7].value == .number(16))
        for code in ["return os.execute('rm -rf /')", "return { a = f() }", "return { a = 1 + 2 }", "x = 1", "return { a = \"open",
                     "return {", "return { [{}] = 1 }", "return " + String(repeating: "{", count: 100) + String(repeating: "}", count: 100)] {
            #expect(throws: (any Error).self, "\(code)") { try LuaLiteralReader.read(Array(code.utf8)) }
        }
    }
}
