import Foundation
import Testing
import Journal
import TestSupport
@testable import Archive

/// `export --markdown-folder`'s pure parts: the note's rendering, the front matter's values,
/// the splice that keeps the reader's text, and the folder's in-place update on real files.
@Suite struct NotesFolderTests {
    static func book(_ title: String = "Dune: Messiah?", id: String = "01a23663-6b27-7ed9-b1d8-4737eb171a6a") throws -> Book {
        Book(id: try EntityID(validating: id), title: title, authors: ["Frank Herbert"], progress: 10,
             createdAt: timestamp(1_767_225_600_000), updatedAt: timestamp(1_767_225_600_000), deletedAt: nil, version: 1)
    }

    static func quote(_ body: String, book: Book, at milliseconds: Int64, kind: AnnotationKind = .quote, locator: String? = "p. 42",
                      comment: String? = nil) throws -> Annotation {
        Annotation(id: EntityID.generate(at: timestamp(milliseconds)), bookID: book.id, kind: kind, body: body,
                   locator: try locator.map { try Locator($0) }, createdAt: timestamp(milliseconds), updatedAt: timestamp(milliseconds),
                   deletedAt: nil, version: 1, comment: comment)
    }

    static func source(_ book: Book, _ annotations: [Annotation], tags: [String] = []) -> BookNoteSource {
        BookNoteSource(book: book, tags: tags, annotations: annotations, annotationTags: [:])
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - Rendering

    @Test func aBlockIDIsTheStartOfTheRandomPartWhateverElseTheNoteHolds() throws {
        let book = try Self.book()
        let first = try Self.quote("one", book: book, at: 1_767_225_700_000)
        let second = try Self.quote("two", book: book, at: 1_767_225_800_000)
        let expected = "bm-" + ShortID.randomPart(of: first.id).prefix(12)
        #expect(BookNoteRenderer.blockID(first.id, taken: []) == expected)
        let alone = Self.text(BookNoteRenderer.region(Self.source(book, [first])))
        let together = Self.text(BookNoteRenderer.region(Self.source(book, [second, first])))
        #expect(alone.contains("\n^\(expected)\n") && together.contains("\n^\(expected)\n"))
        // Oldest first, whatever order they come in.
        #expect(together.range(of: "> one")!.lowerBound < together.range(of: "> two")!.lowerBound)
        // Two alike in 12 digits: the later one gets all 19.
        #expect(BookNoteRenderer.blockID(first.id, taken: [expected]) == "bm-" + ShortID.randomPart(of: first.id))
    }

    @Test func aQuoteIsABlockquoteANoteACalloutAndNothingOpensAComment() throws {
        let book = try Self.book()
        let quote = try Self.quote("100%% sure\n<!-- hidden? -->\nsecond line", book: book, at: 1_767_225_700_000,
                                   comment: "my comment %% here")
        let note = try Self.quote("my *own* thought", book: book, at: 1_767_225_800_000, kind: .note, locator: "ch. 2")
        let region = Self.text(BookNoteRenderer.region(Self.source(book, [quote, note])))
        #expect(region.hasPrefix(BookNoteRenderer.beginMarker + "\n\n"))
        #expect(region.hasSuffix("\n" + BookNoteRenderer.endMarker + "\n"))
        #expect(region.contains("> 100%&#37; sure\n> &lt;!-- hidden? --&gt;\n") || region.contains("> 100%&#37; sure\n> &lt;!-- hidden? -->\n"))
        #expect(region.contains(">\n> — p. 42\n\n^bm-"))
        #expect(region.contains("my comment %&#37; here"))
        #expect(region.contains("> [!note] ch. 2\n> my *own* thought\n\n^bm-"))
        // Between the markers, no `%%` and no `<!--` but the markers'.
        let inner = region.dropFirst(BookNoteRenderer.beginMarker.count).dropLast(BookNoteRenderer.endMarker.count + 1)
        #expect(!inner.contains("%%") && !inner.contains("<!--"))
    }

    @Test func propertiesAreWhatANotesAppReads() throws {
        var book = try Self.book()
        book.rating = 4.5
        book.edition = Edition(pages: 412)
        let properties = BookNoteRenderer.properties(Self.source(book, [], tags: ["sci-fi", "1984", "#x.y", "Sci-Fi"]))
        let text = properties.map(\.text).joined()
        #expect(text == """
            title: "Dune: Messiah?"
            aliases:
              - "Dune: Messiah?"
            authors:
              - "Frank Herbert"
            rating: 4.5
            tags:
              - "sci-fi"
              - "_1984"
              - "x-y"
            pages: 412
            bmvault-id: 01a23663-6b27-7ed9-b1d8-4737eb171a6a

            """)
    }

    @Test func fileNamesAreSafeEverywhere() {
        #expect(NoteFileName.stem("Dune: Messiah?") == "Dune Messiah")
        #expect(NoteFileName.stem("  ...hidden / path\\name [x] #1 ^2 |a| %%b  ") == "hidden path name x 1 2 a b")
        #expect(NoteFileName.stem("CON") == "CON (book)")
        #expect(NoteFileName.stem("???") == "Untitled book")
        #expect(NoteFileName.stem(String(repeating: "é", count: 300)).utf8.count <= NoteFileName.maximumBytes)
        let taken: Set<String> = ["dune.md", "dune (2).md"]
        #expect(NoteFileName.name(for: "Dune") { taken.contains(NoteFileName.clashKey($0)) } == "Dune (3).md")
    }

    // MARK: - Front matter

    @Test(arguments: [
        ("title: Dune Messiah", ["Dune Messiah"]),
        ("title: \"Dune: \\\"Messiah\\\" \\u00e9\"", ["Dune: \"Messiah\" é"]),
        ("title: 'It''s'", ["It's"]),
        ("title: plain # a comment", ["plain"]),
        ("tags: [a, \"b, c\", 'd']", ["a", "b, c", "d"]),
        ("tags:\n  - a\n  - \"b\"", ["a", "b"]),
        ("tags:\n- a\n- 'b'", ["a", "b"]),
        ("title: |\n  a block\n", ["a block\n"]),
        ("tags: []", []),
        ("rating: ~", []),
        ("title: a long\n  folded title", ["a long folded title"]),
    ])
    func frontMatterValuesReadAsANotesAppWritesThem(entry: String, items: [String]) {
        #expect(FrontMatterValue.items(entry + "\n") == items)
    }

    @Test func yamlThisReaderDoesNotTakeIsNoValue() {
        #expect(FrontMatterValue.items("tags:\n  a: b\n") == nil)
        #expect(FrontMatterValue.items("tags: [[a]]\n") == nil)
        #expect(FrontMatterValue.items("title: *anchor\n") == nil)
        #expect(FrontMatterValue.items("title: a\nother: b\n") == nil)
        #expect(FrontMatterValue.items("title: \"unterminated\n") == nil)
    }

    // MARK: - Splicing

    @Test func aSpliceKeepsEverythingButBmvaultsParts() throws {
        let book = try Self.book()
        let content = BookNoteRenderer.render(Self.source(book, [try Self.quote("new", book: book, at: 1_767_225_700_000)]))
        let existing = """
            ---
            # my comment
            title: Dune Messiah
            cssclass: wide
            rating: 3
            authors: ["Frank Herbert"]
            bmvault-id: 01a23663-6b27-7ed9-b1d8-4737eb171a6a
            ---
            My paragraph above.

            \(BookNoteRenderer.beginMarker)

            > old
            \(BookNoteRenderer.endMarker)

            My paragraph below, no line break at the end
            """
        let spliced = Self.text(NoteDocument(Array(existing.utf8)).splice(properties: content.properties, region: content.region))
        #expect(spliced == """
            ---
            # my comment
            title: "Dune: Messiah?"
            cssclass: wide
            authors: ["Frank Herbert"]
            bmvault-id: 01a23663-6b27-7ed9-b1d8-4737eb171a6a
            aliases:
              - "Dune: Messiah?"
            ---
            My paragraph above.

            \(Self.text(content.region))
            My paragraph below, no line break at the end
            """)
        // A value spelled otherwise (Obsidian's property editor) is the same value: kept as it is.
        #expect(spliced.contains("authors: [\"Frank Herbert\"]\n"))
        // Properties without a value now (the rating) go; the reader's keys stay.
        #expect(!spliced.contains("rating:") && spliced.contains("cssclass: wide\n"))
        // Splicing again changes nothing.
        let again = NoteDocument(Array(spliced.utf8)).splice(properties: content.properties, region: content.region)
        #expect(Self.text(again) == spliced)
    }

    @Test func aFileWithoutBmvaultsPartsGetsThem() throws {
        let book = try Self.book()
        let content = BookNoteRenderer.render(Self.source(book, []))
        let spliced = Self.text(NoteDocument(Array("Only my text".utf8)).splice(properties: content.properties, region: content.region))
        #expect(spliced.hasPrefix("---\ntitle: \"Dune: Messiah?\"\n"))
        #expect(spliced.hasSuffix("---\n\nOnly my text\n\n" + Self.text(content.region)))
        // And taking them out gives the reader's text back.
        let released = Self.text(NoteDocument(Array(spliced.utf8)).splice(properties: [], region: nil))
        #expect(released == "Only my text\n\n")
    }

    @Test func aRegionTheReaderBrokeIsNotIntact() {
        let two = "\(BookNoteRenderer.beginMarker)\n\(BookNoteRenderer.endMarker)\n\(BookNoteRenderer.beginMarker)\n\(BookNoteRenderer.endMarker)\n"
        #expect(!NoteDocument(Array(two.utf8)).regionIntact)
        #expect(!NoteDocument(Array("\(BookNoteRenderer.beginMarker)\nno end\n".utf8)).regionIntact)
        #expect(NoteDocument(Array("\(BookNoteRenderer.beginMarker)\r\n\(BookNoteRenderer.endMarker)\r\n".utf8)).regionIntact)
    }

    @Test func theDiffShowsWhatDiffers() {
        let diff = LineDiff.unified(old: "a\nb\nc\nd\n", new: "a\nB\nc\nd\ne\n", oldName: "x", newName: "y", context: 1)
        #expect(diff == "--- x\n+++ y\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n")
        #expect(LineDiff.unified(old: "same\n", new: "same\n", oldName: "x", newName: "y").isEmpty)
        let far = LineDiff.unified(old: (1...20).map(String.init).joined(separator: "\n"),
                                   new: (1...20).map { $0 == 2 || $0 == 18 ? "x" : String($0) }.joined(separator: "\n"),
                                   oldName: "x", newName: "y", context: 1)
        #expect(far == "--- x\n+++ y\n@@ -1,3 +1,3 @@\n 1\n-2\n+x\n 3\n@@ -17,3 +17,3 @@\n 17\n-18\n+x\n 19\n")
    }

    /// A note is the reader's file: whatever they (or their notes app, or a sync tool) made of
    /// it, reading it and splicing bmvault's parts in ends as bytes, never a trap or a hang,
    /// and a splice of a note with an intact region keeps everything outside the region.
    @Test func aNoteMangledAnyWayIsReadAndSplicedWithoutATrap() throws {
        let book = try Self.book()
        let quote = try Self.quote("a quote\nof two lines", book: book, at: 1_767_225_700_000, comment: "a comment")
        let content = BookNoteRenderer.render(Self.source(book, [quote], tags: ["sci-fi"]))
        let note = Array("My text.\n\n".utf8) + NoteDocument.new(properties: content.properties, region: content.region)
            + Array("\nBelow, with [[links#^bm-123]] and %% a comment %%.\n".utf8)
        let start = SeededMutator.firstSeed(default: 46_000)
        for seed in start..<(start + UInt64(SeededMutator.cases(default: 300))) {
            var mutator = SeededMutator(seed: seed)
            let mangled = mutator.mutate(note)
            let document = NoteDocument(mangled)
            _ = document.canonicalProperties()
            let spliced = document.splice(properties: content.properties, region: content.region)
            if document.regionIntact, let region = document.region {
                #expect(spliced.suffix(mangled.count - region.upperBound).elementsEqual(mangled[region.upperBound...]), "seed \(seed)")
            }
            _ = NoteDocument(spliced).splice(properties: [], region: nil)
        }
    }

    // MARK: - The folder

    /// Runs one export of `sources` (every live book) into `folder`.
    @discardableResult
    static func export(_ sources: [BookNoteSource], into folder: String, options: NotesFolderOptions = NotesFolderOptions(),
                       fingerprint: (BookNoteSource) -> String = { fingerprintOf($0) }) throws -> NotesFolderSummary {
        let export = try NotesFolderExport(directory: folder, options: options, generator: "bmvault test")
        for source in sources where export.survey(source.book.id, fingerprint: fingerprint(source)) {
            export.update(source, fingerprint: fingerprint(source))
        }
        return try export.commit()
    }

    /// A fingerprint that changes with the content, as the Store's does.
    static func fingerprintOf(_ source: BookNoteSource) -> String {
        NotesFolderExport.hash((BookNoteRenderer.region(source) + BookNoteRenderer.canonical(BookNoteRenderer.properties(source)))[...])
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1
    }

    static func modified(_ path: String) throws -> Date {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    static func setModified(_ path: String, secondsAgo: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: path)
    }

    @Test func aFolderIsWrittenThenUpdatedInPlaceAndUnchangedNotesAreNotTouched() throws {
        let directory = try TemporaryDirectory("notes-folder")
        defer { directory.remove() }
        let folder = directory.file("notes/sub")
        let dune = try Self.book()
        let solaris = try Self.book("Solaris", id: "01a23663-6b56-7b38-ae69-92e5f9c01d50")
        let first = try Self.quote("first", book: dune, at: 1_767_225_700_000)
        var summary = try Self.export([Self.source(dune, [first]), Self.source(solaris, [])], into: folder)
        #expect(summary.created == 2 && summary.updated == 0 && summary.problems.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [".bmvault-notes.json", "Dune Messiah.md", "Solaris.md"])
        #expect(Self.mode(folder) == 0o700 && Self.mode(folder + "/Dune Messiah.md") == 0o600
                && Self.mode(folder + "/.bmvault-notes.json") == 0o600)
        for name in ["Dune Messiah.md", "Solaris.md"] { try Self.setModified(folder + "/" + name, secondsAgo: 100) }
        let solarisTime = try Self.modified(folder + "/Solaris.md")
        let duneTime = try Self.modified(folder + "/Dune Messiah.md")

        // The reader writes around the region.
        var dunePath = folder + "/Dune Messiah.md"
        var text = try String(contentsOfFile: dunePath, encoding: .utf8)
        text = text.replacingOccurrences(of: "---\n\n<!--", with: "---\n\nAbove.\n\n<!--") + "\nBelow.\n"
        try text.write(toFile: dunePath, atomically: false, encoding: .utf8)
        try Self.setModified(dunePath, secondsAgo: 50)
        let editedTime = try Self.modified(dunePath)

        // Nothing changed in the journal: nothing is written, not even the state of a note the reader touched outside.
        summary = try Self.export([Self.source(dune, [first]), Self.source(solaris, [])], into: folder)
        #expect(summary.created == 0 && summary.updated == 0 && summary.unchanged == 2 && summary.problems.isEmpty)
        #expect(try Self.modified(dunePath) == editedTime && Self.modified(folder + "/Solaris.md") == solarisTime)

        // A quote added: only its note is written, the reader's paragraphs kept.
        let second = try Self.quote("second", book: dune, at: 1_767_225_800_000)
        summary = try Self.export([Self.source(dune, [first, second]), Self.source(solaris, [])], into: folder)
        #expect(summary.updated == 1 && summary.unchanged == 1)
        text = try String(contentsOfFile: dunePath, encoding: .utf8)
        #expect(text.contains("---\n\nAbove.\n\n<!--") && text.hasSuffix("<!-- bmvault:end -->\n\nBelow.\n"))
        #expect(text.contains("> first") && text.contains("> second"))
        #expect(try Self.modified(dunePath) > duneTime && Self.modified(folder + "/Solaris.md") == solarisTime)

        // A fingerprint that changed though the note did not (a rekey): rendered, not written.
        try Self.setModified(dunePath, secondsAgo: 10)
        let before = try Self.modified(dunePath)
        summary = try Self.export([Self.source(dune, [first, second]), Self.source(solaris, [])], into: folder) { "other " + Self.fingerprintOf($0) }
        #expect(try summary.updated == 0 && summary.unchanged == 2 && Self.modified(dunePath) == before)

        // The reader edits inside the region: reported, kept, until --overwrite-edited.
        text = text.replacingOccurrences(of: "> second", with: "> second, my way")
        try text.write(toFile: dunePath, atomically: false, encoding: .utf8)
        let third = try Self.quote("third", book: dune, at: 1_767_225_900_000)
        summary = try Self.export([Self.source(dune, [first, second, third]), Self.source(solaris, [])], into: folder)
        #expect(summary.problems.map(\.reason) == [.edited] && summary.problems.first?.file == "Dune Messiah.md")
        #expect(try String(contentsOfFile: dunePath, encoding: .utf8) == text)
        summary = try Self.export([Self.source(dune, [first, second, third]), Self.source(solaris, [])], into: folder,
                                  options: NotesFolderOptions(showEdits: true))
        #expect(summary.problems.first?.diff?.contains("-> second, my way\n+> second\n") == true)
        #expect(try String(contentsOfFile: dunePath, encoding: .utf8) == text)
        summary = try Self.export([Self.source(dune, [first, second, third]), Self.source(solaris, [])], into: folder,
                                  options: NotesFolderOptions(overwriteEdited: true))
        #expect(summary.problems.isEmpty && summary.updated == 1)
        text = try String(contentsOfFile: dunePath, encoding: .utf8)
        #expect(!text.contains("my way") && text.contains("> third") && text.contains("Above.") && text.hasSuffix("Below.\n"))

        // The reader renames the note (their notes app updates their links): followed.
        try FileManager.default.moveItem(atPath: dunePath, toPath: folder + "/Dune 2.md")
        dunePath = folder + "/Dune 2.md"
        summary = try Self.export([Self.source(dune, [first, second, third]), Self.source(solaris, [])], into: folder)
        #expect(summary.followed == 1 && summary.created == 0 && !FileManager.default.fileExists(atPath: folder + "/Dune Messiah.md"))
        let state = try NotesFolderState.read(path: folder + "/.bmvault-notes.json")
        #expect(state.notes[dune.id]?.file == "Dune 2.md" && state.notes[dune.id]?.oldFiles == ["Dune Messiah.md"])

        // Books gone from the journal: a note of bmvault's alone is removed, one with the
        // reader's text is given back without bmvault's parts.
        summary = try Self.export([], into: folder)
        #expect(summary.removed == 1 && summary.released == 1)
        #expect(!FileManager.default.fileExists(atPath: folder + "/Solaris.md"))
        #expect(try String(contentsOfFile: dunePath, encoding: .utf8) == "Above.\n\nBelow.\n")
        let emptied = try NotesFolderState.read(path: folder + "/.bmvault-notes.json")
        #expect(emptied.notes.isEmpty)
    }

    @Test func aNoteMovedIntoASubfolderIsFollowedAndANoteWhoseFolderIsGoneIsWrittenAgain() throws {
        let directory = try TemporaryDirectory("notes-folder")
        defer { directory.remove() }
        let folder = directory.file("notes")
        let dune = try Self.book()
        let first = try Self.quote("first", book: dune, at: 1_767_225_700_000)
        try Self.export([Self.source(dune, [first])], into: folder)
        try FileManager.default.createDirectory(atPath: folder + "/Books/Sci-fi", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: folder + "/Dune Messiah.md", toPath: folder + "/Books/Sci-fi/Dune.md")
        let second = try Self.quote("second", book: dune, at: 1_767_225_800_000)
        var summary = try Self.export([Self.source(dune, [first, second])], into: folder)
        #expect(summary.followed == 1 && summary.updated == 1 && summary.created == 0 && summary.problems.isEmpty)
        #expect(try String(contentsOfFile: folder + "/Books/Sci-fi/Dune.md", encoding: .utf8).contains("> second"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/Dune Messiah.md"))
        try FileManager.default.removeItem(atPath: folder + "/Books")
        summary = try Self.export([Self.source(dune, [first, second])], into: folder)
        #expect(summary.created == 1 && summary.problems.isEmpty)
        #expect(try String(contentsOfFile: folder + "/Dune Messiah.md", encoding: .utf8).contains("> second"))
        // A folder on the way replaced by a link: nothing behind it is looked at or written.
        try FileManager.default.createDirectory(atPath: directory.file("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/Shelf", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: folder + "/Dune Messiah.md", toPath: folder + "/Shelf/Dune Messiah.md")
        #expect(try Self.export([Self.source(dune, [first, second])], into: folder).followed == 1)
        try FileManager.default.moveItem(atPath: folder + "/Shelf", toPath: directory.file("elsewhere/Shelf"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/Shelf", withDestinationPath: directory.file("elsewhere/Shelf"))
        let before = try String(contentsOfFile: directory.file("elsewhere/Shelf/Dune Messiah.md"), encoding: .utf8)
        summary = try Self.export([Self.source(dune, [first])], into: folder)
        #expect(summary.problems.map(\.reason) == [.notAFile])
        #expect(try String(contentsOfFile: directory.file("elsewhere/Shelf/Dune Messiah.md"), encoding: .utf8) == before)
    }

    @Test func aFolderThatIsNotAnExportsNeedsIntoExistingAndItsFilesAreNeverReplaced() throws {
        let directory = try TemporaryDirectory("notes-folder")
        defer { directory.remove() }
        let folder = directory.path
        try directory.write("the reader's own Dune", to: "Dune Messiah.md")
        let dune = try Self.book()
        #expect(throws: NotesFolderError.notEmpty) { try Self.export([Self.source(dune, [])], into: folder) }
        let summary = try Self.export([Self.source(dune, [])], into: folder, options: NotesFolderOptions(intoExisting: true))
        #expect(summary.created == 1)
        #expect(try String(contentsOfFile: folder + "/Dune Messiah.md", encoding: .utf8) == "the reader's own Dune")
        #expect(FileManager.default.fileExists(atPath: folder + "/Dune Messiah (2).md"))
    }

    @Test func aLinkWhereANoteWasIsNeitherFollowedNorReplaced() throws {
        let directory = try TemporaryDirectory("notes-folder")
        defer { directory.remove() }
        let folder = directory.file("notes")
        let dune = try Self.book()
        try Self.export([Self.source(dune, [])], into: folder)
        try directory.write("outside", to: "target.md")
        try FileManager.default.removeItem(atPath: folder + "/Dune Messiah.md")
        try FileManager.default.createSymbolicLink(atPath: folder + "/Dune Messiah.md", withDestinationPath: directory.file("target.md"))
        let changed = try Self.quote("new", book: dune, at: 1_767_225_700_000)
        let summary = try Self.export([Self.source(dune, [changed])], into: folder)
        #expect(summary.problems.map(\.reason) == [.notAFile])
        #expect(try String(contentsOfFile: directory.file("target.md"), encoding: .utf8) == "outside")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/Dune Messiah.md") == directory.file("target.md"))
    }

    @Test func aStateFileFromANewerBmvaultOrAnotherExportAtWorkIsRefused() throws {
        let directory = try TemporaryDirectory("notes-folder")
        defer { directory.remove() }
        try directory.write("{\"format\" : 2, \"notes\" : {}}", to: ".bmvault-notes.json")
        #expect(throws: NotesFolderError.newerState(found: 2, supported: 1)) { try Self.export([], into: directory.path) }
        try directory.write("{\"format\" : 1, \"notes\" : {\"x\" : 1}}", to: ".bmvault-notes.json")
        #expect(throws: NotesFolderError.self) { try Self.export([], into: directory.path) }
        try directory.write("{\"format\" : 1, \"notes\" : {}}", to: ".bmvault-notes.json")
        let first = try NotesFolderExport(directory: directory.path, options: NotesFolderOptions(), generator: "test")
        #expect(throws: NotesFolderError.busy) { try NotesFolderExport(directory: directory.path, options: NotesFolderOptions(), generator: "test") }
        _ = try first.commit()
    }

    @Test func theStateFileReadsBackAsWritten() throws {
        let id = try EntityID(validating: "01a23663-6b27-7ed9-b1d8-4737eb171a6a")
        let hashes = NotesFolderState.Hashes(region: "r", properties: "p")
        let state = NotesFolderState(generator: "g", context: "c", notes: [
            id: NotesFolderState.Note(file: "a/Dune \"x\".md", oldFiles: ["Old.md"], journal: "j", written: hashes, previous: hashes,
                                      size: 12, modified: 1_767_225_600_123),
        ])
        let directory = try TemporaryDirectory("notes-state")
        defer { directory.remove() }
        try directory.write(state.jsonText(), to: "state.json")
        #expect(try NotesFolderState.read(path: directory.file("state.json")) == state)
        for path in ["../x.md", "/etc/x.md", "a//b.md", "a/./b.md", "x.txt"] { #expect(!NotesFolderState.isSafeRelativePath(path)) }
    }
}
