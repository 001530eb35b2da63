import Foundation
import Testing
import Journal
import VaultCrypto
@testable import Archive
import TestSupport

/// Writing an archive and reading it back: every record exactly, deterministically, in
/// private files, and every way an archive can be damaged refused with a file and line.
@Suite struct ArchiveRoundTripTests {
    private func exported(includesDeleted: Bool = true) throws -> (SampleJournal, TemporaryDirectory, String) {
        let journal = try SampleJournal.make()
        let directory = try TemporaryDirectory()
        let destination = directory.file("archive")
        _ = try journal.export(to: destination, includesDeleted: includesDeleted)
        return (journal, directory, destination)
    }

    private func markdownFile(in archive: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: archive + "/books").sorted()
        return archive + "/books/" + (try #require(names.first))
    }

    @Test func everyRecordReadsBackExactly() throws {
        let (journal, directory, archive) = try exported()
        defer { directory.remove() }
        let read = try records(of: archive)
        #expect(read.books == journal.books)
        #expect(read.sessions == journal.sessions)
        let notes = journal.annotations.filter { $0.kind == .note }, quotes = journal.annotations.filter { $0.kind == .quote }
        #expect(read.annotations == notes + quotes)
        #expect(read.additions.isEmpty)
        #expect(read.first?.1 == ArchiveRecordOrigin(file: "journal.json", line: 8))
        // journal.json alone reads the same.
        #expect(try records(of: archive + "/journal.json").annotations == notes + quotes)
    }

    /// A session an import recorded keeps where it came from: `"source"` in journal.json
    /// (optional, absent for a typed one), `(koreader)` and `source=koreader` in the Markdown,
    /// read back from either; a source that is not one lowercase word names its line.
    @Test func aSessionsSourceReadsBackFromJournalAndMarkdown() throws {
        var journal = try SampleJournal.make()
        let book = try #require(journal.books.first { $0.deletedAt == nil })
        journal.sessions.append(ReadingSession(id: try EntityID(validating: "01a23663-6c60-7fad-b36b-6eb4f8f251a9"), bookID: book.id,
                                               startedAt: timestamp(1_767_310_000_000), endedAt: timestamp(1_767_311_200_000),
                                               pagesRead: 1, source: "koreader"))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let archive = directory.file("archive")
        _ = try journal.export(to: archive)
        #expect(try records(of: archive).sessions == journal.sessions)
        let json = try String(contentsOfFile: archive + "/journal.json", encoding: .utf8)
        #expect(json.components(separatedBy: "\"source\"").count == 2, "only the imported session has a source")
        #expect(json.contains("\"pagesRead\" : 1,\n      \"source\" : \"koreader\",\n      \"startedAt\""))
        let markdown = try String(contentsOfFile: try markdownFile(in: archive), encoding: .utf8)
        #expect(markdown.contains(" 1 page (koreader) <!-- bmvault:session 01a23663-6c60-7fad-b36b-6eb4f8f251a9 "))
        #expect(markdown.contains(" pages=1 source=koreader -->"))
        #expect(!markdown.contains("pages=12 source"))

        let broken = json.replacingOccurrences(of: #""source" : "koreader""#, with: #""source" : "KOReader""#)
        try broken.write(toFile: archive + "/journal.json", atomically: true, encoding: .utf8)
        guard case .invalidField(_, _, let record, let field, _) = archiveError({ _ = try records(of: archive + "/journal.json") }) else {
            Issue.record("a malformed source was taken"); return
        }
        #expect(record == "01a23663-6c60-7fad-b36b-6eb4f8f251a9" && field == "source")

        try FileManager.default.removeItem(atPath: archive + "/journal.json")
        #expect(try records(of: archive).sessions == journal.sessions)
    }

    /// A status change recorded without its day (bmvault 0.16, an import) keeps saying so:
    /// `"dayKnown" : false` in journal.json; the Markdown shows the status without a day.
    @Test func aStatusWithoutItsDayReadsBackWithoutIt() throws {
        var journal = try SampleJournal.make()
        let clock = HybridTimestamp(wallMilliseconds: 1_767_225_600_500, counter: 0, deviceID: "device")
        journal.books[0].readingLog = ReadingLog(events: [
            ReadingEvent(status: .wantToRead, on: timestamp(1_767_225_600_000), clock: clock),
            ReadingEvent(status: .finished, on: timestamp(1_767_312_000_000), clock: clock, dayKnown: false),
        ])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.file("archive")
        _ = try journal.export(to: destination)
        let text = try String(contentsOfFile: destination + "/journal.json", encoding: .utf8)
        #expect(text.contains(#""dayKnown" : false, "on" : "2026-01-02T00:00:00.000Z", "status" : "finished""#))
        #expect(try records(of: destination).books == journal.books)
        let markdown = try String(contentsOfFile: try markdownFile(in: destination), encoding: .utf8)
        #expect(markdown.contains("% read · finished\n"), "the status, no day")
    }

    @Test func twoExportsDifferOnlyInExportedAt() throws {
        let journal = try SampleJournal.make()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try journal.export(to: directory.file("one"), at: 1_767_400_000_000)
        _ = try journal.export(to: directory.file("two"), at: 1_767_400_999_999)
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.file("one")).sorted()
        #expect(files == (try FileManager.default.subpathsOfDirectory(atPath: directory.file("two")).sorted()))
        for file in files where file != "books" {
            let one = try String(contentsOfFile: directory.file("one/" + file), encoding: .utf8)
            let two = try String(contentsOfFile: directory.file("two/" + file), encoding: .utf8)
            if file == "manifest.json" {
                let differing = zip(one.split(separator: "\n"), two.split(separator: "\n")).filter { $0 != $1 }
                #expect(differing.count == 1 && differing[0].0.contains("\"exportedAt\""), "\(differing)")
            } else {
                #expect(one == two, "\(file)")
            }
        }
    }

    /// bmvault export writes notes and quotes in one pass, in book order, with the Markdown
    /// files in between, and the books' files in id order: the quotes are kept aside until
    /// the notes section closes, and the archive is byte for byte the one written section by
    /// section, book file by book file in journal order.
    @Test func oneInterleavedPassWritesTheSameArchive() throws {
        var journal = try SampleJournal.make()
        // A second book, created later but with a smaller id, whose title and random part give
        // the same file name.
        let twinID = try EntityID(validating: "01a23663-0000-" + journal.books[0].id.rawValue.dropFirst(14))
        let twin = Book(id: twinID, title: journal.books[0].title, authors: [],
                        progress: 0, createdAt: timestamp(1_767_225_600_500), updatedAt: timestamp(1_767_225_600_500), deletedAt: nil, version: 1)
        journal.books.append(twin)
        // journal.json's order is by book id: the twin's quote comes first.
        journal.annotations.insert(Annotation(id: EntityID.generate(at: timestamp(1_767_226_300_000)), bookID: twin.id, kind: .quote,
                                              body: "the twin's quote", locator: try Locator("p. 1"), createdAt: timestamp(1_767_226_300_000),
                                              updatedAt: timestamp(1_767_226_300_000), deletedAt: nil, version: 1), at: 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try journal.export(to: directory.file("sections"))
        let writer = try ArchiveWriter(destination: directory.file("one-pass"), includesDeleted: true, generatorVersion: "0.0.0-test")
        writer.begin(.books)
        journal.books.forEach { writer.write($0, tags: journal.tags[$0.id] ?? []) }
        writer.begin(.notes)
        let live = journal.books.filter { $0.deletedAt == nil }.sorted { $0.id < $1.id }
        for book in live {
            writer.beginBook(book, sessions: journal.sessions.filter { $0.bookID == book.id }, tags: journal.tags[book.id] ?? [])
            for annotation in journal.annotations.filter({ $0.bookID == book.id }) {
                writer.write(annotation, tags: journal.tags[annotation.id] ?? [])
                if annotation.deletedAt == nil { writer.addToBook(annotation) }
            }
            writer.finishBook()
        }
        writer.begin(.sessions)
        journal.sessions.forEach(writer.write)
        _ = try writer.commit(exportedAt: timestamp(1_767_400_000_000))
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.file("sections")).sorted()
        #expect(files == (try FileManager.default.subpathsOfDirectory(atPath: directory.file("one-pass")).sorted()))
        #expect(files.filter { $0.hasSuffix("\(twin.id).md") || $0.hasSuffix("\(journal.books[0].id).md") }.count == 1,
                "of two books alike in title and random part, one is named by its full id: \(files)")
        for file in files where file != "books" {
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("sections/" + file)))
                    == Data(contentsOf: URL(fileURLWithPath: directory.file("one-pass/" + file))), "\(file)")
        }
    }

    @Test func tombstonesOnlyWithIncludeDeleted() throws {
        let (journal, directory, archive) = try exported(includesDeleted: false)
        defer { directory.remove() }
        let read = try records(of: archive)
        #expect(read.books == journal.books.filter { $0.deletedAt == nil })
        #expect(read.annotations.allSatisfy { $0.deletedAt == nil })
        #expect(read.annotations.count == journal.annotations.count - 1)
        let manifest = try ArchiveManifest.read(path: archive + "/manifest.json")
        #expect(!manifest.includesDeleted && manifest.deleted.notes == 0 && manifest.counts.books == 1)
    }

    /// A journal without quotes (or without notes, or both) still has every key: a section
    /// with nothing in it is written empty, as the schema requires, and counted 0. Written as
    /// `bmvault export` writes it: notes and quotes in one pass (quotes kept aside), never
    /// `begin(.quotes)`.
    @Test(arguments: [[AnnotationKind.note], [.quote], []])
    func aKindWithNoRecordsIsWrittenEmpty(kept: [AnnotationKind]) throws {
        var journal = try SampleJournal.make()
        journal.annotations = journal.annotations.filter { kept.contains($0.kind) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let archive = directory.file("archive")
        let writer = try ArchiveWriter(destination: archive, includesDeleted: true, generatorVersion: "0.0.0-test")
        writer.begin(.books)
        journal.books.forEach { writer.write($0, tags: []) }
        writer.begin(.notes)
        journal.annotations.forEach { writer.write($0, tags: []) }
        writer.begin(.sessions)
        journal.sessions.forEach(writer.write)
        writer.finishJournal()
        _ = try writer.commit(exportedAt: timestamp(1_767_400_000_000))
        let json = try String(contentsOfFile: archive + "/journal.json", encoding: .utf8)
        for key in ["books", "notes", "quotes", "sessions"] {
            #expect(json.components(separatedBy: "\n  \"\(key)\" : [").count == 2, "\(key) in \(kept)")
        }
        let manifest = try ArchiveManifest.read(path: archive + "/manifest.json")
        #expect(manifest.counts.quotes == (kept.contains(.quote) ? 3 : 0) && manifest.counts.notes == (kept.contains(.note) ? 6 : 0))
        #expect(try records(of: archive).annotations.count == journal.annotations.count)
    }

    @Test func theManifestListsEveryFileWithItsSizeAndChecksum() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        let manifest = try ArchiveManifest.read(path: archive + "/manifest.json")
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: archive).filter { $0 != "books" && $0 != "manifest.json" }.sorted()
        #expect(manifest.files.map(\.path).sorted() == onDisk)
        for entry in manifest.files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive + "/" + entry.path)))
            #expect(entry.bytes == Int64(bytes.count))
            #expect(entry.sha256 == SHA256.hex(of: bytes))
        }
        #expect(manifest.counts.books == 2 && manifest.counts.notes == 6 && manifest.counts.quotes == 3 && manifest.counts.sessions == 1)
        #expect(manifest.deleted.books == 1 && manifest.deleted.notes == 1)
        #expect(manifest.formatVersion == 2 && manifest.generatorVersion == "0.0.0-test")
        #expect(try String(contentsOfFile: archive + "/README.md", encoding: .utf8) == ArchiveReadme.text + "\n")
        #expect(try String(contentsOfFile: archive + "/archive.schema.json", encoding: .utf8) == ArchiveSchema.v2)
    }

    @Test func filesArePrivateAndNothingIsLeftBeside() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(archive) == 0o700)
        #expect(try mode(archive + "/books") == 0o700)
        for file in try FileManager.default.subpathsOfDirectory(atPath: archive) where file != "books" {
            #expect(try mode(archive + "/" + file) == 0o600, "\(file)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["archive"])
    }

    @Test func anExistingDestinationIsRefusedAndAnUnfinishedExportLeavesNothing() throws {
        let (journal, directory, archive) = try exported()
        defer { directory.remove() }
        #expect(archiveError { _ = try journal.export(to: archive) } == .destinationExists(path: archive))
        do {
            let writer = try ArchiveWriter(destination: directory.file("unfinished"), includesDeleted: false, generatorVersion: "x")
            writer.begin(.books)
            writer.write(journal.books[0], tags: [])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["archive"])
    }

    @Test func aNewerFormatVersionIsRefusedNamingBoth() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        let manifest = archive + "/manifest.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 3").write(toFile: manifest, atomically: true, encoding: .utf8)
        #expect(archiveError { _ = try records(of: archive) } == .newerFormat(found: 3, supported: 2))
        try directory.write("{\"books\": [], \"archive\": {\"format\": \"bmvault-archive\", \"formatVersion\": 7}}", to: "newer.json")
        #expect(archiveError { _ = try records(of: directory.file("newer.json")) } == .newerFormat(found: 7, supported: 2))
        try directory.write("{\"archive\": {\"format\": \"something-else\", \"formatVersion\": 1}}", to: "other.json")
        #expect(archiveError { _ = try records(of: directory.file("other.json")) } == .notAnArchive(path: "journal.json"))
    }

    @Test func aChangedFileIsRefusedUnlessForced() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        let journalPath = archive + "/journal.json"
        let text = try String(contentsOfFile: journalPath, encoding: .utf8)
        try text.replacingOccurrences(of: "the other text", with: "the other TEXT").write(toFile: journalPath, atomically: true, encoding: .utf8)
        #expect(archiveError { _ = try records(of: archive) } == .checksumMismatch(entry: try manifestEntry("journal.json", of: archive)))
        #expect(try records(of: archive, force: true).annotations.contains { $0.body == "the other TEXT" })
        try FileManager.default.removeItem(atPath: archive + "/README.md")
        #expect(archiveError { _ = try records(of: archive, force: false) } != nil)
        #expect(archiveError { _ = try ArchiveReader(path: archive, force: true) } == nil)
    }

    /// journal.json is checked against the manifest while its records are read: a damaged
    /// one is still reported as damaged, not by what its damage looks like.
    @Test func aDamagedJournalIsReportedAsChangedWhateverElseIsWrongWithIt() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        let journalPath = archive + "/journal.json"
        let text = try String(contentsOfFile: journalPath, encoding: .utf8)
        try String(text.dropLast(40)).write(toFile: journalPath, atomically: true, encoding: .utf8)
        #expect(archiveError { _ = try records(of: archive) } == .checksumMismatch(entry: try manifestEntry("journal.json", of: archive)))
        guard case .truncated = archiveError({ _ = try records(of: archive, force: true) }) else {
            Issue.record("a journal.json cut short is read as such with --force")
            return
        }
        try text.replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 9").write(toFile: journalPath, atomically: true, encoding: .utf8)
        #expect(archiveError { _ = try records(of: archive) } == .checksumMismatch(entry: try manifestEntry("journal.json", of: archive)))
        #expect(archiveError { _ = try records(of: archive, force: true) } == .newerFormat(found: 9, supported: 2))
    }

    @Test func anEditedMarkdownFileTakesThePlaceOfItsRecords() throws {
        let (journal, directory, archive) = try exported()
        defer { directory.remove() }
        let file = try markdownFile(in: archive)
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "the other text", with: "the other text, edited\n\nin two paragraphs")
        text = text.replacingOccurrences(of: "title: ", with: "tags: [reading]\ntitle: ")
        text += "\nA new paragraph with *markup* \\# and &amp;.\n\n> A new quote\n> on two lines\n>\n> — p. 99\n\n### A heading of mine\n\n> quoted but no locator\n\n#idea is a tag, not a heading\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let reader = try ArchiveReader(path: archive, force: false)
        #expect(reader.editedMarkdownFiles == 1 && reader.source == .journal)
        let read = try records(of: archive)
        let copy = try #require(journal.annotations.first { $0.conflictOf != nil })
        let edited = try #require(read.annotations.first { $0.id == copy.id })
        #expect(edited.body == "the other text, edited\n\nin two paragraphs")
        #expect(edited.updatedAt == copy.updatedAt && edited.conflictReason == .bothEdited)
        let origin = try #require(read.first { if case .annotation(let a) = $0.0 { return a.id == copy.id } else { return false } }?.1)
        #expect(origin.file.hasPrefix("books/…-") && origin.file.hasSuffix(".md") && origin.line > 1)
        #expect(read.additions.map(\.kind) == [.note, .quote, .note, .note])
        // Format 2 takes what the reader types as it is: their Markdown, never unescaped.
        #expect(read.additions.map(\.body) == ["A new paragraph with *markup* \\# and &amp;.", "A new quote\non two lines", "> quoted but no locator",
                                               "#idea is a tag, not a heading"])
        #expect(read.additions[1].locator?.text == "p. 99")
        // The other records are journal.json's, as they were.
        #expect(read.annotations.count == journal.annotations.count)
        #expect(read.books.map(\.title) == journal.books.map(\.title))
    }

    /// Format 2: a heading over each note shows its kind and dates, in local time, and what
    /// a conflict copy is; an import does not read it.
    @Test func eachNoteShowsItsDateAndAConflictCopySaysWhatItIs() throws {
        let (journal, directory, archive) = try exported()
        defer { directory.remove() }
        let lines = try String(contentsOfFile: try markdownFile(in: archive), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let live = journal.annotations.filter { $0.deletedAt == nil && $0.bookID == journal.books[0].id }
        let captions = lines.indices.filter { lines[$0].hasPrefix("### ") }
        #expect(captions.count == live.count)
        // Each is the line above its marker.
        #expect(captions.allSatisfy { lines[$0 + 1].hasPrefix("<!-- bmvault:") })
        let minute = #"\d{4}-\d\d-\d\d \d\d:\d\d \([+-]\d\d:\d\d\)"#
        let edited = "^### (Note|Quote) · \(minute) · edited \(minute)$"
        #expect(captions.filter { lines[$0].range(of: edited, options: .regularExpression) != nil }.count == live.count - 1)
        let copy = try #require(live.first { $0.conflictOf != nil })
        let original = try #require(copy.conflictOf)
        #expect(captions.contains { lines[$0] == "### Note · \(LocalTimeText.minute(copy.createdAt)) (\(LocalTimeText.offset(copy.createdAt)))"
            + " · conflict copy of note \(ShortID.randomPart(of: original).prefix(8)): two devices changed it, both versions are kept" })
    }

    @Test func withoutJournalJSONTheMarkdownIsTheArchive() throws {
        let (journal, directory, archive) = try exported()
        defer { directory.remove() }
        try FileManager.default.removeItem(atPath: archive + "/journal.json")
        let reader = try ArchiveReader(path: archive, force: false)
        #expect(reader.source == .markdown)
        let read = try records(of: archive)
        #expect(read.books == journal.books.filter { $0.deletedAt == nil })
        #expect(read.sessions == journal.sessions)
        let live = journal.annotations.filter { $0.deletedAt == nil }
        #expect(read.annotations.sorted { $0.id < $1.id } == live.sorted { $0.id < $1.id })
    }

    @Test func aMarkdownFileCutShortIsAnErrorAtItsMarker() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        let file = try markdownFile(in: archive)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let cut = try #require(text.range(of: "<!-- /bmvault:note -->", options: .backwards))
        try String(text[..<cut.lowerBound]).write(toFile: file, atomically: true, encoding: .utf8)
        let markerLine = text[..<cut.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .lastIndex { $0.hasPrefix("<!-- bmvault:note") }.map { $0 + 1 }
        let error = archiveError { _ = try records(of: archive) }
        guard case .truncated(let name, let line) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(name.hasPrefix("books/…-") && line == markerLine)
        #expect(!name.contains("title"), "the file is named without its title")
    }

    @Test func malformedRecordsNameTheLineAndId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let header = "{\n\"archive\": {\"format\": \"bmvault-archive\", \"formatVersion\": 1, \"includesDeleted\": false},\n"
        let book = "{\"id\": \"01a23663-6b27-7ed9-b1d8-4737eb171a6a\", \"title\": \"T\", \"authors\": [], \"progress\": 0, \"createdAt\": \"2026-01-01T00:00:00Z\", \"updatedAt\": \"2026-01-01T00:00:00Z\", \"deletedAt\": null, \"version\": 1}"
        func note(_ body: String) -> String {
            "{\"id\": \"01a23663-6cf1-761b-98ce-24e7ff834ea3\", \"bookId\": \"01a23663-6b27-7ed9-b1d8-4737eb171a6a\", \(body) \"locator\": null, \"createdAt\": \"2026-01-01T00:00:00Z\", \"updatedAt\": \"2026-01-01T00:00:00Z\", \"deletedAt\": null, \"version\": 1, \"conflictOf\": null, \"conflictReason\": null}"
        }
        func failure(_ text: String) throws -> ArchiveError? {
            try directory.write(text, to: "journal.json")
            return archiveError { _ = try records(of: directory.file("journal.json")) }
        }
        let id = "01a23663-6cf1-761b-98ce-24e7ff834ea3"
        #expect(try failure(header + "\"books\": [\(book)],\n\"notes\": [\n\(note(""))]}")
                == .missingField(file: "journal.json", line: 5, record: id, field: "body"))
        #expect(try failure(header + "\"notes\": [\n\n\(note("\"body\": \" \\n \","))]}")
                == .invalidField(file: "journal.json", line: 5, record: id, field: "body", reason: "empty"))
        #expect(try failure(header + "\"quotes\": [\(note("\"body\": \"q\","))]}")
                == .missingField(file: "journal.json", line: 3, record: id, field: "locator"))
        #expect(try failure(header + "\"books\": [\(book.replacingOccurrences(of: "\"progress\": 0", with: "\"progress\": 101"))]}")
                == .invalidField(file: "journal.json", line: 3, record: "01a23663-6b27-7ed9-b1d8-4737eb171a6a", field: "progress", reason: "not a number from 0 to 100"))
        #expect(try failure(header + "\"books\": [\(book.replacingOccurrences(of: "\"T\"", with: "\"two\\nlines\""))]}")
                == .invalidField(file: "journal.json", line: 3, record: "01a23663-6b27-7ed9-b1d8-4737eb171a6a", field: "title", reason: "not one line without control characters"))
        #expect(try failure(header + "\"books\": [\(book.replacingOccurrences(of: "2026-01-01T00:00:00Z\", \"deletedAt", with: "2026-01-01T00:00:00\", \"deletedAt"))]}")
                == .invalidField(file: "journal.json", line: 3, record: "01a23663-6b27-7ed9-b1d8-4737eb171a6a", field: "updatedAt",
                                 reason: "not an ISO 8601 time with an offset, such as 2026-12-02T10:07:46.123Z"))
        // A newer bmvault's optional members, and any key order, still read.
        let reordered = "{\"sessions\": [], \"future\": {\"x\": [1]}, \"books\": [\(book.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 1, \"coverColour\": \"red\""))], "
            + "\"archive\": {\"format\": \"bmvault-archive\", \"formatVersion\": 1}}"
        try directory.write(reordered, to: "journal.json")
        #expect(try records(of: directory.file("journal.json")).books.count == 1)
    }

    @Test func aManifestCannotPointOutsideTheArchive() throws {
        let (_, directory, archive) = try exported()
        defer { directory.remove() }
        let manifest = archive + "/manifest.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "\"README.md\" :", with: "\"../../etc/passwd\" :").write(toFile: manifest, atomically: true, encoding: .utf8)
        #expect(archiveError { _ = try records(of: archive) } == .invalidField(file: "manifest.json", line: nil, record: nil, field: "files",
                                                                             reason: "an entry without a safe path, bytes and sha256"))
    }

    @Test func fileNamesAreSlugsWithTheShortIdAndNeverCollide() throws {
        #expect(BookFileName.slug("Le Petit Prince") == "le-petit-prince")
        #expect(BookFileName.slug("# Война и мир — 📚 Tolstoï!") == "война-и-мир-tolstoï")
        #expect(BookFileName.slug("📚 🐛 ***") == "book")
        #expect(BookFileName.slug(String(repeating: "a", count: 100)).count == 60)
        let book = Book(id: try EntityID(validating: "01a23663-6b27-7ed9-b1d8-4737eb171a6a"), title: "Dune", authors: [], progress: 0,
                        createdAt: timestamp(0), updatedAt: timestamp(0), deletedAt: nil, version: 1)
        #expect(BookFileName.name(for: book, taken: []) == "dune-ed9b1d84.md", "the start of the random part, not the clock")
        #expect(BookFileName.name(for: book, taken: ["dune-ed9b1d84.md"]) == "dune-01a23663-6b27-7ed9-b1d8-4737eb171a6a.md")
        #expect(BookFileName.displayName(ofFile: "dune-ed9b1d84.md") == "books/…-ed9b1d84.md")
        #expect(BookFileName.displayName(ofFile: "dune-01a23663.md") == "books/…-01a23663.md", "names of archives before 0.14")
        #expect(BookFileName.displayName(ofFile: "dune-01a23663-6b27-7ed9-b1d8-4737eb171a6a.md") == "books/…-01a23663-6b27-7ed9-b1d8-4737eb171a6a.md")
        #expect(BookFileName.displayName(ofFile: "my secret title.md") == "a Markdown file in books/ not named by bmvault")
    }
}
