import Foundation
import Testing
import Journal
@testable import Archive
import TestSupport
import VaultCrypto

private enum SHA256Hex {
    static func of(_ text: String) -> String {
        var hasher = SHA256()
        hasher.update(Array(text.utf8))
        return hasher.finalizeHex()
    }
}

/// A book's files in an archive (bmvault 0.17): listed in journal.json and the front matter,
/// their plain copies under `files/` in the manifest, read back exactly, and a listing that
/// could reach outside the archive or break the journal's rules refused.
@Suite struct ArchiveBookFileTests {
    static let bookID = "01a23663-6b27-7ed9-b1d8-4737eb171a6a"

    private func sampleFiles(path: String?) throws -> [ArchiveBookFile] {
        [ArchiveBookFile(id: try EntityID(validating: "01a23663-7000-7abc-8def-0123456789ab"), format: "epub", size: 11,
                         sha256: String(repeating: "ab", count: 32), kept: .stored, addedAt: timestamp(1_767_225_650_000),
                         locator: "epubcfi(/6/4!/4/2/1:0)",
                         metadata: ArchiveBookFile.Metadata(title: "Anna Karénina \"1877\"", creators: ["Léon Tolstoï", "Rosamund Bartlett"],
                                                            language: "fr", identifiers: ["isbn:9780199232086", "uuid:1"],
                                                            publisher: nil, date: "1877", hasCover: true),
                         path: path),
         ArchiveBookFile(id: try EntityID(validating: "01a23663-7001-7abc-8def-0123456789ac"), format: "pdf", size: 0,
                         sha256: String(repeating: "0", count: 64), kept: .linked, addedAt: timestamp(1_767_225_660_000), locator: nil,
                         metadata: ArchiveBookFile.Metadata(title: nil, creators: [], language: nil, identifiers: [], publisher: nil,
                                                            date: nil, hasCover: false),
                         path: nil)]
    }

    /// The sample journal's first book with `files`, and a plain copy of the first file.
    private func export(to destination: String, plainCopy: String = "the content") throws -> [ArchiveBookFile] {
        let journal = try SampleJournal.make()
        let writer = try ArchiveWriter(destination: destination, includesDeleted: false, generatorVersion: "0.0.0-test")
        let book = journal.books[0]
        let relative = writer.plainCopyPath(for: try EntityID(validating: "01a23663-7000-7abc-8def-0123456789ab"), format: "epub", bookTitle: book.title)
        var files = try sampleFiles(path: relative)
        try Data(plainCopy.utf8).write(to: URL(fileURLWithPath: try writer.plainCopyDestination(relative)))
        writer.addPlainCopy(relative, bytes: Int64(plainCopy.utf8.count), sha256: SHA256Hex.of(plainCopy))
        files[0] = ArchiveBookFile(id: files[0].id, format: "epub", size: Int64(plainCopy.utf8.count), sha256: SHA256Hex.of(plainCopy),
                                   kept: .stored, addedAt: files[0].addedAt, locator: files[0].locator, metadata: files[0].metadata, path: relative)
        writer.begin(.books)
        writer.write(book, tags: [], files: files)
        writer.finishJournal()
        writer.beginBook(book, sessions: [], tags: [], files: files)
        writer.finishBook()
        _ = try writer.commit(exportedAt: timestamp(1_767_400_000_000))
        return files
    }

    @Test func aBooksFilesAndTheirPlainCopiesReadBackExactly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let archive = directory.file("archive")
        let files = try export(to: archive)
        #expect(files[0].path == "files/title-with-marks-and-quotes-\(ShortID.randomPart(of: files[0].id).prefix(8)).epub")

        let read = try records(of: archive)
        let listed = read.compactMap { if case .bookFiles(let book, let files) = $0.0 { (book, files) } else { nil } }
        #expect(listed.count == 1)
        #expect(listed.first?.0.rawValue == Self.bookID)
        #expect(listed.first?.1 == files)
        let reader = try ArchiveReader(path: archive, force: false)
        #expect(reader.plainCopy(at: try #require(files[0].path)) == archive + "/" + (files[0].path ?? ""))
        #expect(reader.plainCopy(at: "files/not-there.epub") == nil)

        let journal = try String(contentsOfFile: archive + "/journal.json", encoding: .utf8)
        #expect(journal.contains("      \"deletedAt\" : null,\n      \"files\" : [\n        {\n          \"addedAt\" : \"2026-01-01T00:00:50.000Z\""), "\(journal)")
        #expect(journal.contains(#""metadata" : { "creators" : [ "Léon Tolstoï", "Rosamund Bartlett" ], "date" : "1877", "hasCover" : true"#))
        #expect(journal.contains(#""path" : null"#) && journal.contains(#""kept" : "linked""#))
        let manifest = try String(contentsOfFile: archive + "/manifest.json", encoding: .utf8)
        #expect(manifest.contains("\"\(files[0].path ?? "")\" : {\n      \"bytes\" : 11,\n      \"sha256\" : \"\(SHA256Hex.of("the content"))\"\n    }"),
                "\(manifest)")
        let names = try FileManager.default.contentsOfDirectory(atPath: archive + "/books")
        let markdown = try String(contentsOfFile: archive + "/books/" + (try #require(names.first)), encoding: .utf8)
        #expect(markdown.contains("files:\n  - \"epub, 11 bytes, sha256:\(SHA256Hex.of("the content")), \(files[0].path ?? "")\"\n"
                                  + "  - \"pdf, 0 bytes, sha256:\(String(repeating: "0", count: 64))\"\n"), "\(markdown)")
    }

    /// A plain copy changed after the export is a damaged archive, named without the title
    /// its file name holds; a link in its place is not followed.
    @Test func aChangedPlainCopyIsRefusedAndALinkIsNotFollowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let archive = directory.file("archive")
        let files = try export(to: archive)
        let copy = archive + "/" + (try #require(files[0].path))
        try Data("the CONTENT".utf8).write(to: URL(fileURLWithPath: copy))
        #expect(archiveError { _ = try records(of: archive) } == .checksumMismatch(entry: try manifestEntry(try #require(files[0].path), of: archive)))
        #expect(files[0].displayPath == "files/…-abc8def0.epub")

        try FileManager.default.removeItem(atPath: copy)
        try "the content".write(toFile: directory.file("elsewhere"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: directory.file("elsewhere"))
        let reader = try ArchiveReader(path: archive, force: true)
        #expect(reader.plainCopy(at: try #require(files[0].path)) == nil)
    }

    @Test func aListingThatBreaksTheRulesIsRefusedByLineAndId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = #"{"addedAt": "2026-01-01T00:00:00Z", "format": "epub", "id": "01a23663-7000-7abc-8def-0123456789ab", "kept": "stored", "locator": null, "metadata": {"creators": [], "hasCover": false, "identifiers": [], "title": "T"}, "path": null, "sha256": "\#(String(repeating: "a", count: 64))", "size": 3}"#
        func failure(_ change: (String) -> String) throws -> ArchiveError? {
            let book = "{\"id\": \"\(Self.bookID)\", \"title\": \"T\", \"authors\": [], \"progress\": 0, \"createdAt\": \"2026-01-01T00:00:00Z\", \"updatedAt\": \"2026-01-01T00:00:00Z\", \"deletedAt\": null, \"version\": 1, \"files\": [\(change(file))]}"
            try directory.write("{\"archive\": {\"format\": \"bmvault-archive\", \"formatVersion\": 2, \"includesDeleted\": false},\n\"books\": [\(book)]}",
                                to: "journal.json")
            return archiveError { _ = try records(of: directory.file("journal.json")) }
        }
        #expect(try failure { $0 } == nil)
        let fileID = "01a23663-7000-7abc-8def-0123456789ab"
        func invalid(_ field: String, _ reason: String) -> ArchiveError {
            .invalidField(file: "journal.json", line: 2, record: fileID, field: field, reason: reason)
        }
        for path in ["../x.epub", "files/../x.epub", "files/.hidden", "/etc/passwd", "files/a/b.epub", "files/", "books/x.md"] {
            #expect(try failure { $0.replacingOccurrences(of: "\"path\": null", with: "\"path\": \"\(path)\"") }
                    == invalid("path", "not a file in the archive's files/ folder"), "\(path)")
        }
        #expect(try failure { $0.replacingOccurrences(of: "\"format\": \"epub\"", with: "\"format\": \"exe\"") }
                == invalid("format", "not epub, mobi, azw3 or pdf"))
        #expect(try failure { $0.replacingOccurrences(of: String(repeating: "a", count: 64), with: String(repeating: "A", count: 64)) }
                == invalid("sha256", "not a SHA-256 in lowercase hex"))
        #expect(try failure { $0.replacingOccurrences(of: "\"size\": 3", with: "\"size\": -1") } == invalid("size", "not a size in bytes"))
        #expect(try failure { $0.replacingOccurrences(of: "\"kept\": \"stored\"", with: "\"kept\": \"cloud\"") } == invalid("kept", "not stored or linked"))
        #expect(try failure { $0.replacingOccurrences(of: "\"locator\": null", with: "\"locator\": \"a\\u0007b\"") }
                == invalid("locator", "not one line without control characters"))
        #expect(try failure { $0.replacingOccurrences(of: "\"title\": \"T\"", with: "\"title\": \"two\\nlines\"") }
                == invalid("metadata.title", "not one line without control characters"))
        #expect(try failure { $0.replacingOccurrences(of: "\"id\": \"\(fileID)\"", with: "\"id\": \"nope\"") }
                == .invalidField(file: "journal.json", line: 2, record: nil, field: "id", reason: "not a record id"))
    }

    @Test func plainCopiesAreNamedLikeTheirBookAndNeverCollide() throws {
        let id = try EntityID(validating: "01a23663-7000-7abc-8def-0123456789ab")
        let name = BookFileName.plainCopyName(title: "Anna Karénina", id: id, format: "epub", taken: [])
        #expect(name == "anna-karénina-abc8def0.epub")
        #expect(BookFileName.plainCopyName(title: "Anna Karénina", id: id, format: "epub", taken: [name]) == "anna-karénina-\(id.rawValue).epub")
        #expect(BookFileName.displayName(ofArchivePath: "files/" + name) == "files/…-abc8def0.epub")
        #expect(BookFileName.displayName(ofArchivePath: "files/Anna Karénina.epub") == "a file in files/")
        #expect(BookFileName.displayName(ofArchivePath: "journal.json") == "journal.json")
    }
}
