import Foundation
import Testing
@testable import Importers

/// KOReader's statistics and a Kobo's database, from the real files in
/// ../shared/fixtures/importers/koreader-stats and kobo, read through SQLite (immutable).
@Suite struct ReadingDeviceDatabaseTests {
    static let statistics = Fixtures.root.appendingPathComponent("koreader-stats/inkstats__statistics.sqlite3").path
    static let kobo = Fixtures.root.appendingPathComponent("kobo/recalldaily__KoboReader.sqlite").path

    /// The numbers: 29 sessions over 7 books, 425 pages, 5 too short, of 476 page
    /// turns; a book whose sessions are all too short keeps none.
    @Test func theStatisticsGiveTwentyNineSessionsOverSevenBooks() throws {
        let read = try KOReaderStatistics.read(at: Self.statistics)
        let kept = read.books.filter { !$0.sessions.isEmpty }
        #expect(read.pageTurns == 476 && read.books.count == 9)
        #expect(kept.count == 7 && kept.reduce(0) { $0 + $1.sessions.count } == 29)
        #expect(kept.flatMap(\.sessions).reduce(0) { $0 + $1.pages } == 425)
        #expect(read.books.reduce(0) { $0 + $1.tooShort } == 5)
        let song = try #require(read.books.first { $0.title == "How to Write One Song" })
        #expect(song.authors == ["Jeff Tweedy"] && song.partialMD5 == "3c7c1e5a9f2592d383368e6299963af7" && song.pages == 236)
        #expect(song.sessions.count == 13 && song.sessions.allSatisfy { $0.endedAt > $0.startedAt })
        // The first: page turns from 12:51:09 to 13:04:20 UTC, 10 distinct pages.
        #expect(song.sessions[0].startedAt.millisecondsSince1970 == 1_745_758_269_000 && song.sessions[0].pages == 10)
        // KOReader's "N/A" is no author.
        #expect(read.books.first { $0.title.hasPrefix("thumbnail_") }?.authors == [])
    }

    @Test func theGapAndTheShortestSessionAreRules() throws {
        let apart = try KOReaderStatistics.read(at: Self.statistics, rules: .init(gap: 0, minimumSeconds: 0))
        let together = try KOReaderStatistics.read(at: Self.statistics, rules: .init(gap: 86_400, minimumSeconds: 0))
        #expect(apart.books.reduce(0) { $0 + $1.tooShort } == 0 && together.books.reduce(0) { $0 + $1.tooShort } == 0)
        #expect(apart.books.reduce(0) { $0 + $1.sessions.count } > 34)
        #expect(together.books.reduce(0) { $0 + $1.sessions.count } < 34)
    }

    /// The numbers: 8 books opened, all reading; 200 highlights, 12 with a note; 29
    /// never opened, counted; 2 dog-ears and one highlight without text, counted.
    @Test func theKoboDatabaseGivesEightBooksAndTwoHundredHighlights() throws {
        let read = try KoboDatabase.read(at: Self.kobo)
        #expect(read.books.count == 8 && read.unopened == 29)
        #expect(read.books.allSatisfy { $0.status == .reading })
        let highlights = read.books.flatMap(\.highlights)
        #expect(highlights.count == 200 && highlights.filter { $0.note != nil }.count == 12)
        #expect(read.books.reduce(0) { $0 + $1.dogEars } == 2 && read.books.reduce(0) { $0 + $1.withoutText } == 1)
        #expect(Set(highlights.map(\.importKey)).count == 200)
        // Chapters from the table of contents: an exact entry, and a file's first entry.
        #expect(highlights.allSatisfy { $0.chapter != nil }, "\(highlights.filter { $0.chapter == nil }.count) without a chapter")
        let kleon = try #require(read.books.first { $0.title == "Show Your Work!" })
        #expect(kleon.authors == ["Austin Kleon"] && kleon.percentRead == 8)
        #expect(Set(kleon.highlights.compactMap(\.chapter)) == ["A New Way of Operating", "1. You Don’t Have to Be a Genius."])
        #expect(kleon.highlights.map(\.locatorText).contains("A New Way of Operating · 75% of the chapter"))
    }

    /// Told by their tables; a text file, or a database of another program, is neither.
    @Test func theDatabasesAreToldByTheirTables() throws {
        func detect(_ path: String) throws -> ImportFormat? {
            let prefix = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(64 << 10))
            return ImportFormat.detect(prefix: prefix, at: path)
        }
        #expect(try detect(Self.statistics) == .koreaderStatistics)
        #expect(try detect(Self.kobo) == .kobo)
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-notadb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: other) }
        try Data(ForeignDatabase.header + Array(repeating: 0x41, count: 4096)).write(to: other)
        #expect(try detect(other.path) == nil)
        #expect(throws: ImportError.self) { try KOReaderStatistics.read(at: other.path) }
        #expect(throws: ImportError.self) { try KoboDatabase.read(at: Self.statistics) }
    }
}
