import Foundation
import Testing

/// Issue 20: `import` takes in a Kindle's My Clippings.txt and KOReader's sidecars (a file,
/// or a device's folder), told by their content, through the binary: the counts each real
/// file implies, nothing twice however often it is imported, the book found again, and a
/// dry run that says exactly what the real run then does.
@Suite struct OtherProgramsImportTests {
    static let importers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/importers")
    static let fixtures = importers.appendingPathComponent("kindle")
    static let koreader = importers.appendingPathComponent("koreader")

    /// `import --json`'s numbers: books added; quotes, notes added; already there; merged;
    /// bookmarks; clipping-limit placeholders; without text.
    struct Counts: Equatable, CustomStringConvertible {
        var books = 0, quotes = 0, notes = 0, alreadyThere = 0, merged = 0, bookmarks = 0, placeholders = 0, empty = 0

        init(books: Int = 0, quotes: Int = 0, notes: Int = 0, alreadyThere: Int = 0, merged: Int = 0, bookmarks: Int = 0,
             placeholders: Int = 0, empty: Int = 0) {
            (self.books, self.quotes, self.notes, self.alreadyThere) = (books, quotes, notes, alreadyThere)
            (self.merged, self.bookmarks, self.placeholders, self.empty) = (merged, bookmarks, placeholders, empty)
        }

        init(_ json: Any) throws {
            let document = try #require(json as? [String: Any])
            let added = try #require(document["added"] as? [String: Int])
            self.init(books: added["books"] ?? -1, quotes: added["quotes"] ?? -1, notes: added["notes"] ?? -1,
                      alreadyThere: document["alreadyThere"] as? Int ?? -1, merged: document["merged"] as? Int ?? -1,
                      bookmarks: document["bookmarks"] as? Int ?? -1, placeholders: document["placeholders"] as? Int ?? -1,
                      empty: document["empty"] as? Int ?? -1)
        }

        var description: String { "\(books) books, \(quotes) quotes, \(notes) notes, \(alreadyThere) there, \(merged) merged, \(bookmarks) bookmarks, \(placeholders) placeholders, \(empty) empty" }
    }

    /// What each fixture's README says it holds (Tests/ImportersTests count the clippings one
    /// by one): the records a vault receives from it.
    static let kindleFiles: [(String, Counts)] = [
        ("fyodor__extract_pt-br.txt", Counts(books: 8, quotes: 26, notes: 2, bookmarks: 3)),
        ("fyodor__multiline_notes.txt", Counts(books: 1, quotes: 1)),
        ("fyodor__page_only_and_lowercase.txt", Counts(books: 5, quotes: 5)),
        ("hadynz__dup-location-scenario.txt", Counts(books: 3, quotes: 3)),
        ("hadynz__dup-same-page.txt", Counts(books: 1, quotes: 3, merged: 1)),
        ("hadynz__first-scenario.txt", Counts(books: 2, quotes: 4, notes: 1, merged: 1)),
        ("hadynz__missing-note-scenario.txt", Counts(books: 1, quotes: 1)),
        ("hadynz__no-content-scenario.txt", Counts(books: 1, quotes: 1, bookmarks: 1, empty: 1)),
        ("hadynz__trailing-separator-start.txt", Counts(books: 1, quotes: 2)),
        ("hadynz__unordered-scenario.txt", Counts(books: 1, quotes: 3)),
        ("noted__My Clippings.txt", Counts(books: 1, quotes: 1)),
    ]

    @Test(arguments: kindleFiles)
    func eachKindleFileImportsWhatItHoldsOnceAndADryRunSaysSo(name: String, expected: Counts) throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = Self.fixtures.appendingPathComponent(name).path
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let dry = try vault.json(["import", "--dry-run", "--json", file])
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before, "a dry run changes nothing")
        #expect(try Counts(dry) == expected, "\(name)")
        let real = try vault.json(["import", "--json", file])
        #expect(try Counts(real) == expected, "\(name): the real run does what the dry run said")
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        let counts = try #require(status["counts"] as? [String: Int])
        #expect(counts["books"] == expected.books && counts["quotes"] == expected.quotes && counts["notes"] == expected.notes, "\(status)")
        // Again: nothing added, every record already there; the file's merges and counts the same.
        var again = expected
        (again.books, again.quotes, again.notes, again.alreadyThere) = (0, 0, 0, expected.quotes + expected.notes)
        #expect(try Counts(try vault.json(["import", "--json", file])) == again, "\(name): imported twice")
    }

    @Test func aKindleFileReadsWellAndNotesBecomeTheQuotesComment() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = Self.fixtures.appendingPathComponent("hadynz__first-scenario.txt").path
        let dry = try vault.succeed(["import", "--dry-run", file])
        #expect(dry.stdout == """
            Dry run: nothing was changed. Found Kindle clippings (My Clippings.txt): 2 books.
              Elantris: Tenth Anniversary Author's Definitive Edition — Sanderson, Brandon (new book): 3 quotes to add
              1984 — Orwell, George (new book): 1 quote and 1 note to add
            Would add:             2 books, 4 quotes, 1 note
            Would update:          0 books (progress, rating or status), 0 quotes and notes (a newer comment)
            Already in the vault:  0 quotes and notes
            Would merge:           1 clipping into the quote it repeats (a re-highlight, a note saved twice)
            Counted only:          0 bookmarks (progress hints), 0 clipping-limit placeholders, 0 highlights and notes without text

            """, "\(dry)")
        let real = try vault.succeed(["import", file])
        #expect(real.stdout.hasPrefix("Imported Kindle clippings (My Clippings.txt): 2 books.\n"), "\(real)")
        let quotes = try #require(try vault.json(["list", "--json", "--kind", "quote"]) as? [[String: Any]])
        let newspeak = try #require(quotes.first { ($0["body"] as? String)?.contains("Newspeak") == true })
        // The note typed on the highlight (years later) is its comment; the date is the device's.
        #expect(newspeak["comment"] as? String == "The ABC model - key for growth and happiness")
        #expect(newspeak["locator"] as? String == "p. 41, loc 737-739")
        // The same highlight saved twice, 9 s apart: the later is kept.
        #expect(newspeak["createdAt"] as? String == "2017-09-09T13:27:09.000Z")
        let shown = try vault.succeed(["show", try #require(newspeak["id"] as? String)])
        #expect(shown.stdout.hasSuffix("range of thought?\n\nComment:\nThe ABC model - key for growth and happiness\n"), "\(shown)")
        // --verbose lists what was not added, by where it is, never by its text.
        let again = try vault.succeed(["--verbose", "import", file])
        #expect(again.stdout.contains("Not added from 1984:\n  p. 41, loc 737-739: already in the vault\n"
                                      + "  p. 41, loc 737-739: merged into the quote it repeats\n  loc 1971: already in the vault\n"), "\(again)")
        #expect(!again.stdout.contains("Newspeak") && !again.stdout.contains("Sarene") && !again.stderr.contains("1984"), "\(again)")
        let listed = try vault.succeed(["list", "--book", "1984"])
        #expect(listed.stdout.contains("range of thought?\n    Comment: The ABC model - key for growth and happiness\n"), "\(listed)")
        // Overlapping highlights of different text stay two quotes.
        #expect(quotes.filter { ($0["locator"] as? String)?.contains("loc 48") == true }.count == 2)
    }

    /// Importing a newer My Clippings.txt (the device appends) adds only what is new; a quote
    /// the reader deleted stays deleted; a note typed since on an imported highlight becomes its
    /// comment.
    @Test func aNewerFileAddsOnlyWhatIsNew() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let full = try String(contentsOf: Self.fixtures.appendingPathComponent("hadynz__unordered-scenario.txt"), encoding: .utf8)
        let records = full.components(separatedBy: "==========\n").filter { !$0.isEmpty }
        #expect(records.count == 7)
        let older = vault.root.appendingPathComponent("older.txt"), newer = vault.root.appendingPathComponent("newer.txt")
        // The first five: the highlight at 113-114 without the two notes typed on it later.
        try records.prefix(5).map { $0 + "==========\n" }.joined().write(to: older, atomically: true, encoding: .utf8)
        try full.write(to: newer, atomically: true, encoding: .utf8)
        #expect(try Counts(try vault.json(["import", "--json", older.path])) == Counts(books: 1, quotes: 3))
        let quotes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        let first = try #require(quotes.first { ($0["locator"] as? String) == "loc 89-91" })
        try vault.succeed(["delete", try #require(first["id"] as? String)])
        let second = try #require(try vault.json(["import", "--json", newer.path]) as? [String: Any])
        #expect((second["added"] as? [String: Int]) == ["books": 0, "sessions": 0, "notes": 0, "quotes": 0])
        #expect((second["updated"] as? [String: Int])?["quotes"] == 1, "\(second)")
        let after = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(after.count == 2, "the deleted quote stays deleted")
        #expect(after.first { ($0["locator"] as? String) == "loc 113-114" }?["comment"] as? String == "Hollow 2\n\nHollow 3")
    }

    /// A longer re-highlight of a quote imported before takes its place while the reader has
    /// not changed it; a comment the reader removed is not brought back.
    @Test func aReHighlightReplacesItsShorterVersionAndARemovedCommentStaysRemoved() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let clipping = { (kind: String, at: String, text: String) in
            "Dune (Frank Herbert)\r\n- Your \(kind) at location \(at) | Added on Monday, 11 May 2020 01:09:56\r\n\r\n\(text)\r\n==========\r\n"
        }
        let file = vault.root.appendingPathComponent("My Clippings.txt")
        let short = clipping("Highlight", "10-12", "Fear is the mind-killer.")
        let note = clipping("Note", "12", "the litany")
        try (short + note + clipping("Highlight", "40-41", "The spice must flow.") + clipping("Note", "41", "said often"))
            .write(to: file, atomically: true, encoding: .utf8)
        try vault.succeed(["import", file.path])
        let spice = try #require((try vault.json(["list", "--json"]) as? [[String: Any]])?.first { $0["comment"] as? String == "said often" })
        try vault.succeed(["edit", try #require(spice["id"] as? String), "--comment", ""])
        // The device saved a longer highlight of the same place since.
        let longer = clipping("Highlight", "10-13", "I must not fear. Fear is the mind-killer.")
        try (short + note + clipping("Highlight", "40-41", "The spice must flow.") + clipping("Note", "41", "said often") + longer)
            .write(to: file, atomically: true, encoding: .utf8)
        let again = try #require(try vault.json(["import", "--json", file.path]) as? [String: Any])
        #expect((again["added"] as? [String: Int])?["quotes"] == 0 && (again["updated"] as? [String: Int])?["quotes"] == 1, "\(again)")
        let quotes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(quotes.count == 2)
        #expect(quotes.contains { $0["body"] as? String == "I must not fear. Fear is the mind-killer." && $0["comment"] as? String == "the litany" })
        #expect(quotes.contains { $0["body"] as? String == "The spice must flow." && $0["comment"] is NSNull }, "the removed comment stays removed")
    }

    /// Book matching: a book typed here is found by title and authors (Kindle writes
    /// `Orwell, George`); `book alias` sends another title to it for every later import.
    @Test func theBookIsFoundAgainAndAnAliasCorrectsAMatch() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "1984", "--author", "George Orwell"])
        try vault.succeed(["book", "add", "Elantris", "--author", "Brandon Sanderson"])
        let aliased = try vault.succeed(["book", "alias", "elantris", "Elantris: Tenth Anniversary Author's Definitive Edition"])
        #expect(aliased.stderr.contains("now takes what other programs import under that title"), "\(aliased)")
        let report = try #require(try vault.json(["import", "--json", Self.fixtures.appendingPathComponent("hadynz__first-scenario.txt").path])
                                  as? [String: Any])
        let books = try #require(report["books"] as? [[String: Any]])
        #expect(books.allSatisfy { $0["new"] as? Bool == false }, "\(books)")
        #expect((try vault.json(["book", "list", "--json"]) as? [[String: Any]])?.count == 2)
        #expect(try vault.run(["book", "alias", "no such book", "Dune"]).status != 0)
    }

    /// An import that made a second book: `book merge` makes them one, and every later import
    /// of that title goes to the one kept.
    @Test func bookMergeMakesTwoBooksOneForEveryLaterImport() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Elantris", "--author", "Brandon Sanderson"])
        try vault.succeed(["note", "add", "elantris", "Typed here."])
        try vault.succeed(["session", "add", "elantris", "--pages", "30", "--minutes", "45"])
        let file = Self.fixtures.appendingPathComponent("hadynz__first-scenario.txt").path
        try vault.succeed(["import", file])
        #expect((try vault.json(["book", "list", "--json"]) as? [[String: Any]])?.count == 3, "the long Kindle title made a book of its own")
        try vault.succeed(["session", "add", "tenth anniversary", "--pages", "12", "--minutes", "20"])
        try vault.succeed(["tag", "add", "tenth anniversary", "fantasy"])
        try vault.succeed(["book", "rate", "tenth anniversary", "4"])
        let merged = try vault.succeed(["book", "merge", "tenth anniversary", "elantris"])
        #expect(merged.stderr.contains(": 3 notes and quotes, 1 sessions, 1 tags moved; the first is deleted.\n"), "\(merged)")
        let books = try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]])
        #expect(books.count == 2)
        let elantris = try #require(books.first { $0["title"] as? String == "Elantris" })
        #expect(elantris["rating"] as? Double == 4 && (elantris["tags"] as? [String]) == ["fantasy"])
        #expect((try vault.json(["session", "list", "--book", "elantris", "--json"]) as? [[String: Any]])?.count == 2)
        #expect((try vault.json(["list", "--book", "elantris", "--json"]) as? [[String: Any]])?.count == 4)
        // Again: nothing added, and no third book.
        let again = try #require(try vault.json(["import", "--json", file]) as? [String: Any])
        #expect(try Counts(again) == Counts(alreadyThere: 5, merged: 1))
        #expect((again["books"] as? [[String: Any]])?.allSatisfy { $0["new"] as? Bool == false } == true)
        let same = try vault.run(["book", "merge", "elantris", "Elantris"])
        #expect(same.status == 64 && same.stderr.hasPrefix("Error: both name the same book"), "\(same)")
    }

    /// A KOReader sidecar in either layout gives the same quotes under the same keys: the
    /// second adds nothing. Its progress, status and notes come too.
    @Test(arguments: [false, true])
    func aKOReaderSidecarInEitherLayoutIsTheSameBook(oldFirst: Bool) throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let new = Self.koreader.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua").path
        let old = new + ".old"
        let (first, second) = oldFirst ? (old, new) : (new, old)
        #expect(try Counts(try vault.json(["import", "--json", first])) == Counts(books: 1, quotes: 3, bookmarks: 1))
        #expect(try Counts(try vault.json(["import", "--json", second])) == Counts(alreadyThere: 3, bookmarks: 1))
        let book = try #require((try vault.json(["book", "list", "--json"]) as? [[String: Any]])?.first)
        #expect(book["title"] as? String == "The Prophet" && book["status"] as? String == "reading")
        #expect(abs((book["progress"] as? Double ?? 0) - 19.4) < 0.1, "\(book)")
        let quotes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(quotes.compactMap { $0["comment"] as? String } == ["Sample note"])
        #expect(quotes.contains { $0["locator"] as? String == "p. 14 · On Love" })
    }

    /// KOReader's exporter JSON: the same book and quotes as its sidecar (a highlight read from
    /// both is kept once: same text, place and note).
    @Test func koreadersExporterJSONAddsWhatItsSidecarDidNot() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        #expect(try Counts(try vault.json(["import", "--json", Self.koreader.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua").path]))
                == Counts(books: 1, quotes: 3, bookmarks: 1))
        let quotes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        let love = try #require(quotes.first { ($0["body"] as? String)?.hasPrefix("Love gives") == true })
        let file = vault.root.appendingPathComponent("The Prophet.json")
        let entry = { (text: String, note: String?, page: Int, chapter: String) -> [String: Any] in
            var entry: [String: Any] = ["text": text, "page": page, "chapter": chapter, "time": 1_703_102_460, "sort": "highlight", "drawer": "lighten"]
            if let note { entry["note"] = note }
            return entry
        }
        let document: [String: Any] = ["title": "The Prophet", "author": "Khalil Gibran", "number_of_pages": 96, "created_on": 1_703_106_000,
                                       "entries": [entry(try #require(love["body"] as? String), "Sample note", 14, "On Love"),
                                                   entry("A passage only the export has.", nil, 30, "On Work")]]
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        let report = try #require(try vault.json(["import", "--json", file.path]) as? [String: Any])
        #expect(try Counts(report) == Counts(quotes: 1, alreadyThere: 1), "\(report)")
        #expect((report["format"] as? String) == "koreader" && (report["books"] as? [[String: Any]])?.first?["new"] as? Bool == false)
    }

    /// A device's folder: every book's sidecar, its `.lua.old` backup only where the live file
    /// is missing, links not followed; `--from koreader` names the format.
    @Test func aFolderOfKOReaderSidecars() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let device = vault.root.appendingPathComponent("koreader-device")
        let prophet = device.appendingPathComponent("books/Gibran/The Prophet.sdr")
        let frankenstein = device.appendingPathComponent("books/Frankenstein.sdr")
        for folder in [prophet, frankenstein] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(at: Self.koreader.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua"), to: prophet.appendingPathComponent("metadata.epub.lua"))
        try FileManager.default.copyItem(at: Self.koreader.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua.old"), to: prophet.appendingPathComponent("metadata.epub.lua.old"))
        try FileManager.default.copyItem(at: Self.koreader.appendingPathComponent("noted__pg42324.sdr__metadata.epub.lua.old"), to: frankenstein.appendingPathComponent("metadata.epub.lua.old"))
        try "not a sidecar".write(to: device.appendingPathComponent("books/notes.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: device.appendingPathComponent("loop"), withDestinationURL: device)
        let dry = try vault.succeed(["import", "--dry-run", "--from", "koreader", device.path])
        #expect(dry.stdout.hasPrefix("""
            Dry run: nothing was changed. Found 2 KOReader sidecars: 2 books.
              Frankenstein — Mary Shelley (new book): 4 quotes to add
              The Prophet — Khalil Gibran (new book): 3 quotes to add
            Would add:             2 books, 7 quotes, 0 notes

            """.dropLast()), "\(dry)")
        #expect(try Counts(try vault.json(["import", "--json", device.path])) == Counts(books: 2, quotes: 7, bookmarks: 2))
        #expect(try Counts(try vault.json(["import", "--json", device.path])) == Counts(alreadyThere: 7, bookmarks: 2))
    }

    /// A large file shows a progress line on a terminal, and none to a script.
    @Test func aLargeFileShowsProgressOnATerminalOnly() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = vault.root.appendingPathComponent("My Clippings.txt")
        let clippings = (0..<1_200).map { index in
            "Book \(index % 7) (Some Author)\r\n- Your Highlight on page 1 | location \(index * 10)-\(index * 10 + 2) | Added on Monday, 11 May 2020 01:09:56\r\n\r\nWords \(index).\r\n==========\r\n"
        }
        try clippings.joined().write(to: file, atomically: true, encoding: .utf8)
        let terminal = try Terminal.run(["import", "--dry-run", file.path], answers: [], environment: vault.environment)
        #expect(terminal.status == 0 && terminal.stdout.contains("Importing: 1200 of 1200 highlights and notes\n"), "\(terminal)")
        let piped = try vault.succeed(["import", file.path])
        #expect(piped.stderr.isEmpty && piped.stdout.hasPrefix("Imported Kindle clippings (My Clippings.txt): 7 books.\n"), "\(piped)")
    }

    /// calibre names no book: `--book` does, once added; a removed highlight is counted, never
    /// imported; an export of several calibre books is refused.
    @Test func calibreHighlightsGoToTheBookNamed() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = vault.root.appendingPathComponent("highlights.calibre_highlights")
        try ("\u{FEFF}" + #"{"highlights": [{"highlighted_text": "It was the best of times", "notes": "the opening", "timestamp": "2021-01-05T11:11:11.123Z", "toc_family_titles": ["Chapter I"], "type": "highlight", "uuid": "ybGnregc0FPNrUijNfIHxg"}, {"removed": true, "type": "highlight", "uuid": "gone", "timestamp": "2021-01-06T08:00:00.000Z"}, {"highlighted_text": "A far, far better thing", "spine_name": "chapter45.xhtml", "type": "highlight", "uuid": "Zz9-_q"}], "type": "calibre_highlights", "version": 1}"#)
            .write(to: file, atomically: true, encoding: .utf8)
        let unnamed = try vault.run(["import", file.path])
        #expect(unnamed.status == 64 && unnamed.stderr.hasPrefix("Error: calibre highlights do not say which book they are from: name it with --book BOOK"), "\(unnamed)")
        try vault.succeed(["book", "add", "A Tale of Two Cities", "--author", "Charles Dickens"])
        let report = try vault.json(["import", "--json", "--book", "tale", file.path])
        #expect(try Counts(report) == Counts(quotes: 2))
        #expect((report as? [String: Any])?["removed"] as? Int == 1)
        let quotes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        let opening = try #require(quotes.first { $0["comment"] as? String == "the opening" })
        #expect(opening["locator"] as? String == "Chapter I" && opening["createdAt"] as? String == "2021-01-05T11:11:11.123Z")
        #expect(quotes.contains { $0["locator"] as? String == "chapter45.xhtml" })
        let again = try vault.succeed(["--verbose", "import", "--book", "tale", file.path])
        #expect(again.stdout.contains("Already in the vault:  2 quotes and notes\nCounted only:          1 highlight removed in calibre, 0 bookmarks and empty highlights\n"), "\(again)")
        #expect(again.stdout.contains("  no location: removed in calibre\n"), "\(again)")
        let several = vault.root.appendingPathComponent("annotations.json")
        try #"{"annotations": [{"book_id": 1, "annotation": {"type": "highlight", "uuid": "x", "highlighted_text": "a"}}, {"book_id": 2, "annotation": {"type": "highlight", "uuid": "y", "highlighted_text": "b"}}], "type": "calibre_annotation_collection", "version": 1}"#
            .write(to: several, atomically: true, encoding: .utf8)
        let refused = try vault.run(["import", "--book", "tale", several.path])
        #expect(refused.status == 65 && refused.stderr.hasPrefix("Error: these calibre highlights are from 2 books"), "\(refused)")
        let wrong = try vault.run(["import", "--book", "tale", Self.fixtures.appendingPathComponent("noted__My Clippings.txt").path])
        #expect(wrong.status == 64 && wrong.stderr.hasPrefix("Error: --book is for calibre highlights and jrnl journals"), "\(wrong)")
    }

    /// A Readwise export: its books found or added (Dune matched, Frank Herbert either way),
    /// once.
    @Test func aReadwiseExportGivesItsBooksTheirQuotes() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune", "--author", "Frank Herbert"])
        let file = vault.root.appendingPathComponent("readwise-data.csv")
        try ("Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,Document tags\r\n"
             + "\"Fear is the mind-killer.\",Dune,Frank Herbert,B00B7NPRY8,the litany,yellow,\"favorite, to review\",location,1234,2020-05-11 21:09:56+00:00,\r\n"
             + ",Dune,Frank Herbert,,,,,location,99,,\r\n"
             + "A line from an article,How to Read,,,,,,order,3,,\r\n").write(to: file, atomically: true, encoding: .utf8)
        let report = try #require(try vault.json(["import", "--json", file.path]) as? [String: Any])
        #expect(try Counts(report) == Counts(books: 1, quotes: 2, empty: 1))
        // Its tags come in, made tag-safe (issue 41).
        #expect(report["tagsGiven"] as? Int == 2, "\(report)")
        #expect((try vault.json(["list", "--tag", "to-review", "--json"]) as? [[String: Any]])?.count == 1)
        #expect((report["books"] as? [[String: Any]])?.map { $0["new"] as? Bool } == [false, true])
        let quotes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        let fear = try #require(quotes.first { $0["locator"] as? String == "loc 1234" })
        #expect(fear["comment"] as? String == "the litany" && fear["createdAt"] as? String == "2020-05-11T21:09:56.000Z" && fear["bookTitle"] as? String == "Dune")
        let again = try #require(try vault.json(["import", "--json", file.path]) as? [String: Any])
        #expect(try Counts(again) == Counts(alreadyThere: 2, empty: 1) && again["tagsGiven"] as? Int == 0)
    }

    /// A jrnl journal: its entries become notes, dated, with their tags, in a book called
    /// Journal (or the one `--book` names), once.
    @Test func aJrnlJournalBecomesNotes() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = vault.root.appendingPathComponent("journal.json")
        try #"{"tags": {"@dune": 1}, "entries": [{"title": "Started Dune again.", "body": "The litany still works.", "date": "2024-03-01", "time": "21:05", "tags": ["@dune"], "starred": true}, {"title": "A title alone.", "body": "", "date": "2024-03-02", "time": "07:30", "tags": [], "starred": false}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let first = try #require(try vault.json(["import", "--json", file.path]) as? [String: Any])
        #expect(try Counts(first) == Counts(books: 1, notes: 2))
        #expect((first["books"] as? [[String: Any]])?.first?["title"] as? String == "Journal")
        let notes = try #require(try vault.json(["list", "--json", "--tag", "dune"]) as? [[String: Any]])
        #expect(notes.count == 1 && notes.first?["body"] as? String == "Started Dune again.\nThe litany still works.")
        #expect(notes.first?["createdAt"] as? String == "2024-03-01T21:05:00.000Z" && notes.first?["bookTitle"] as? String == "Journal")
        #expect(try Counts(try vault.json(["import", "--json", file.path])) == Counts(alreadyThere: 2))
        // Into another vault's book of the reader's choosing.
        let other = try TestVault()
        try other.createUnlocked()
        try other.succeed(["book", "add", "Morning pages"])
        #expect(try Counts(try other.json(["import", "--json", "--book", "morning", file.path])) == Counts(notes: 2))
        #expect((try other.json(["book", "list", "--json"]) as? [[String: Any]])?.count == 1)
    }

    /// A Goodreads export: 112 books by shelf, 80 finished of which 41 on the day Goodreads
    /// has (the others on a day not known), once; the same book under two Goodreads ids stays
    /// two books (two editions).
    @Test func aGoodreadsExportGivesBooksTheirShelves() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = Self.importers.appendingPathComponent("goodreads/aaronj1335__goodreads_library_export.csv").path
        let dry = try vault.succeed(["import", "--dry-run", file])
        #expect(dry.stdout.hasPrefix("Dry run: nothing was changed. Found a Goodreads library export: 112 books.\n"), "\(dry)")
        #expect(dry.stdout.hasSuffix("Would add:             112 books, 0 quotes, 0 notes\n"
            + "Would update:          0 books (progress, rating or status), 0 quotes and notes (a newer comment)\n"
            + "Already in the vault:  0 quotes and notes\nWould tag:             15 tags\n"
            + "Counted only:          1 book on shelves of your own (no reading status; the shelf is a tag)\n"), "\(dry)")
        let report = try #require(try vault.json(["import", "--json", file]) as? [String: Any])
        #expect(try Counts(report) == Counts(books: 112))
        #expect(report["tagsGiven"] as? Int == 15, "\(report)")
        // Shelves of the reader's own are the books' tags: 9 kidz, 5 nonfic, 1 did-not-finish.
        #expect((try vault.json(["book", "list", "--tag", "kidz", "--json"]) as? [[String: Any]])?.count == 9)
        #expect((try vault.json(["book", "list", "--tag", "did-not-finish", "--json"]) as? [[String: Any]])?.count == 1)
        let books = try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]])
        #expect(books.count == 112)
        let finished = books.filter { $0["status"] as? String == "finished" }
        #expect(finished.count == 80 && finished.filter { $0["statusSince"] is String }.count == 41)
        #expect(books.filter { $0["status"] as? String == "want-to-read" }.count == 31)
        #expect(books.filter { ($0["title"] as? String)?.lowercased() == "master and man" }.count == 2)
        let unknown = try #require(finished.first { !($0["statusSince"] is String) })
        #expect((unknown["readingLog"] as? [[String: Any]])?.first?["on"] is NSNull, "\(unknown)")
        let shown = try vault.succeed(["show", try #require(unknown["id"] as? String)])
        #expect(shown.stdout.contains("status:   finished (day not known)\n") && shown.stdout.contains("finished: day not known\n"), "\(shown)")
        // Again: nothing new, and no status recorded twice.
        let again = try #require(try vault.json(["import", "--json", file]) as? [String: Any])
        #expect(try Counts(again) == Counts())
        #expect(again["tagsGiven"] as? Int == 0)
        #expect((again["books"] as? [[String: Any]])?.allSatisfy { $0["new"] as? Bool == false && $0["status"] == nil } == true)
        // Stats count a finish by its year only when the day is known.
        let stats = try vault.succeed(["stats"])
        #expect(stats.stdout.contains("finished: 5 in 2018,"), "\(stats)")
        #expect(try vault.run(["import", "--book", "x", file]).status == 64)
    }

    /// Issue 41: a Goodreads review and private notes are the reader's own writing: each a
    /// note on the book (the review dated by Date Read, else Date Added; `<br/>` a line
    /// break), once however often the export comes in; a longer review later replaces a note
    /// not edited here; a shelf with spaces is a tag made tag-safe.
    @Test func aGoodreadsReviewAndPrivateNotesBecomeNotes() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let export = vault.root.appendingPathComponent("goodreads_library_export.csv")
        let header = "Book Id,Title,Author,Date Read,Date Added,Bookshelves,Exclusive Shelf,My Review,Private Notes\n"
        try (header + "1,Dune,Frank Herbert,2024/03/05,2024/01/02,\"read, sci fi\",read,Spice.<br/>Worms.,Lent to Ana\n"
             + "2,Emma,Jane Austen,,2023/07/08,,to-read,,\n")
            .write(to: export, atomically: true, encoding: .utf8)
        let report = try #require(try vault.json(["import", "--json", export.path]) as? [String: Any])
        #expect(try Counts(report) == Counts(books: 2, notes: 2), "\(report)")
        #expect(report["tagsGiven"] as? Int == 1)
        let notes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        let bodies = Set(notes.compactMap { $0["body"] as? String })
        #expect(bodies == ["Spice.\nWorms.", "Lent to Ana"], "\(notes)")
        #expect(notes.allSatisfy { ($0["createdAt"] as? String)?.hasPrefix("2024-03-0") == true }, "dated by Date Read: \(notes)")
        #expect((try vault.json(["book", "list", "--tag", "sci-fi", "--json"]) as? [[String: Any]])?.count == 1)
        // Again: nothing new, both notes already there, no tag given twice.
        let again = try #require(try vault.json(["import", "--json", export.path]) as? [String: Any])
        #expect(try Counts(again) == Counts(alreadyThere: 2) && again["tagsGiven"] as? Int == 0, "\(again)")
        // A later export with a longer review: the note (not edited here) takes it; nothing added.
        try (header + "1,Dune,Frank Herbert,2024/03/05,2024/01/02,read,read,Spice.<br/>Worms.<br/>Sand.,Lent to Ana\n")
            .write(to: export, atomically: true, encoding: .utf8)
        let later = try #require(try vault.json(["import", "--json", export.path]) as? [String: Any])
        #expect(try Counts(later) == Counts(alreadyThere: 1) && (later["updated"] as? [String: Any])?["notes"] as? Int == 1, "\(later)")
        let after = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(after.count == 2 && after.contains { $0["body"] as? String == "Spice.\nWorms.\nSand." }, "\(after)")
    }

    /// A clipping the journal's rules refuse (a text past 1 MiB) is one line, exit 65, and the
    /// file changes nothing; a highlight with neither page nor location still gets a locator.
    @Test func aRecordTheJournalRefusesStopsTheImportWhole() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = vault.root.appendingPathComponent("My Clippings.txt")
        let clipping = { (meta: String, text: String) in "Dune (Frank Herbert)\r\n- Your Highlight \(meta)| Added on Monday, 11 May 2020 01:09:56\r\n\r\n\(text)\r\n==========\r\n" }
        try (clipping("at location 5 ", "Fear is the mind-killer.") + clipping("at location 9 ", String(repeating: "spice ", count: 200_000)))
            .write(to: file, atomically: true, encoding: .utf8)
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let refused = try vault.run(["import", file.path])
        #expect(refused.status == 65 && refused.stderr.split(separator: "\n").count == 1 && !refused.stderr.contains("spice"), "\(refused)")
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before)
        try clipping("", "Nowhere in particular.").write(to: file, atomically: true, encoding: .utf8)
        #expect(try Counts(try vault.json(["import", "--json", file.path])) == Counts(books: 1, quotes: 1))
        #expect((try vault.json(["list", "--json"]) as? [[String: Any]])?.first?["locator"] as? String == "Kindle highlight")
    }

    /// Issue 40 (low): one title with a control character (a Kindle title line) or a line
    /// break (a quoted Goodreads cell) refused the whole import without saying where; it is
    /// named by its line, as every other malformed record is, and nothing is imported.
    @Test func aTitleWithAControlCharacterIsNamedByItsLine() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let clippings = vault.root.appendingPathComponent("My Clippings.txt")
        try ("Dune (Frank Herbert)\r\n- Your Highlight at location 5 | Added on Monday, 11 May 2020 01:09:56\r\n\r\nFear is the mind-killer.\r\n==========\r\n"
             + "Zebra\u{07}canary (Anon)\r\n- Your Highlight at location 9 | Added on Monday, 11 May 2020 01:10:00\r\n\r\nA bell in the title.\r\n==========\r\n")
            .write(to: clippings, atomically: true, encoding: .utf8)
        let kindle = try vault.run(["import", clippings.path])
        #expect(kindle.status == 65, "\(kindle)")
        #expect(kindle.stderr == "Error: line 6 of the file: the title has a control character or a line break; nothing was imported\n", "\(kindle)")

        let export = vault.root.appendingPathComponent("goodreads_library_export.csv")
        try ("Book Id,Title,Author,Exclusive Shelf\n"
             + "1,Dune,Frank Herbert,read\n"
             + "2,\"Zebra\ncanary\",Anon,to-read\n")
            .write(to: export, atomically: true, encoding: .utf8)
        let goodreads = try vault.run(["import", export.path])
        #expect(goodreads.status == 65, "\(goodreads)")
        #expect(goodreads.stderr == "Error: line 3 of the file: the title has a control character or a line break; nothing was imported\n", "\(goodreads)")
        for result in [kindle, goodreads] { #expect(!result.stderr.contains("Zebra") && !result.stdout.contains("Zebra")) }
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before)
    }

    @Test func aFileInNoKnownFormatIsOneLineExit65AndNothingChanges() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = vault.root.appendingPathComponent("notes.csv")
        try "Id;Title\n1;Dune\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try vault.run(["import", file.path])
        #expect(result.status == 65 && result.stderr == "Error: \(file.path) is not a format bmvault can import (it reads a bmvault archive or its journal.json, a Kindle's My Clippings.txt, a KOReader sidecar or a folder of them, KOReader's statistics, a Kobo's database or its drive, calibre highlights, a Readwise export, a jrnl journal or a Goodreads library export); nothing was imported\n",
                "\(result)")
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let broken = vault.root.appendingPathComponent("My Clippings.txt")
        try "Dune (Frank Herbert)\n- Your Highlight at location 5 | Added on Monday\n\nFear is the mind-killer.\n==========\nno metadata\n==========\n"
            .write(to: broken, atomically: true, encoding: .utf8)
        for arguments in [["import", broken.path], ["import", "--dry-run", broken.path]] {
            let malformed = try vault.run(arguments)
            #expect(malformed.status == 65 && malformed.stderr == "Error: line 6 of the file: a clipping without its metadata line (`- Your Highlight ...`); nothing was imported\n",
                    "\(malformed)")
            #expect(!malformed.stderr.contains("mind-killer"))
        }
        // A file forced to a format it is not is that format's error, and changes nothing.
        let forced = try vault.run(["import", "--from", "koreader", broken.path])
        #expect(forced.status == 65 && forced.stderr.split(separator: "\n").count == 1 && !forced.stderr.contains("mind-killer"), "\(forced)")
        #expect(try vault.run(["import", "--from", "pocket", broken.path]).status == 64)
        #expect(try vault.run(["import", "--from", "calibre", "--book", "x", broken.path]).status == 65)
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before)
    }
}
