import Foundation
import Testing
import SQLiteDatabase

/// Issue 43: KOReader's statistics become reading sessions and a Kobo's database becomes
/// books and quotes, through the binary, with the numbers the real files imply: twice with
/// nothing new the second time, in either order with the other importers, and the sessions
/// in `session list`, `stats`, the archive and on a second device.
@Suite struct ReadingDeviceImportTests {
    static let importers = OtherProgramsImportTests.importers
    static let statistics = importers.appendingPathComponent("koreader-stats/inkstats__statistics.sqlite3").path
    static let kobo = importers.appendingPathComponent("kobo/recalldaily__KoboReader.sqlite").path

    static func object(_ json: Any) throws -> [String: Any] { try #require(json as? [String: Any]) }

    static func counts(_ vault: TestVault) throws -> [String: Int] {
        try #require(try object(try vault.json(["status", "--json"]))["counts"] as? [String: Int])
    }

    /// The numbers: 29 sessions over 7 books, 425 pages, 5 too short; a dry run
    /// says the same and changes nothing; again, nothing is new.
    @Test func koreaderStatisticsBecomeTwentyNineSessionsOnce() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let dry = try Self.object(try vault.json(["import", "--dry-run", "--json", Self.statistics]))
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before, "a dry run changes nothing")
        let real = try Self.object(try vault.json(["import", "--json", Self.statistics]))
        for document in [dry, real] {
            #expect(document["format"] as? String == "koreader-stats")
            let added = try #require(document["added"] as? [String: Int])
            #expect(added["books"] == 7 && added["sessions"] == 29, "\(added)")
            let books = try #require(document["books"] as? [[String: Any]])
            #expect(books.count == 7 && books.reduce(0) { $0 + ($1["pagesAdded"] as? Int ?? 0) } == 425)
            #expect(document["tooShort"] as? Int == 5 && document["pageTurns"] as? Int == 476, "\(document)")
        }
        #expect(try Self.counts(vault)["sessions"] == 29)
        let again = try Self.object(try vault.json(["import", "--json", Self.statistics]))
        #expect((again["added"] as? [String: Int])?["sessions"] == 0 && again["alreadyThere"] as? Int == 29, "\(again)")
        #expect(try Self.counts(vault) == ["books": 7, "sessions": 29, "notes": 0, "quotes": 0])

        // In `session list`, `stats` and the archive, like sessions typed here.
        let sessions = try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]])
        #expect(sessions.count == 29 && sessions.reduce(0) { $0 + ($1["pagesRead"] as? Int ?? 0) } == 425)
        let stats = try Self.object(try vault.json(["stats", "--json"]))
        #expect((stats["books"] as? [[String: Any]])?.reduce(0) { $0 + ($1["sessions"] as? Int ?? 0) } == 29, "\(stats)")
        let archive = vault.root.appendingPathComponent("archive").path
        try vault.succeed(["export", "--out", archive])
        let journal = try Self.object(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: archive + "/journal.json"))))
        #expect((journal["sessions"] as? [Any])?.count == 29)
    }

    /// The statistics file is read where it lies and left as it was: no journal, WAL or lock
    /// file beside it, not a byte changed (SQLite's immutable mode).
    @Test func theFileIsReadWhereItLiesAndNothingIsWrittenBesideIt() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let folder = vault.root.appendingPathComponent("device/koreader/settings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("statistics.sqlite3")
        try FileManager.default.copyItem(atPath: Self.statistics, toPath: copy.path)
        let bytes = try Data(contentsOf: copy)
        try vault.succeed(["import", copy.path])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["statistics.sqlite3"])
        #expect(try Data(contentsOf: copy) == bytes)
    }

    /// A later copy of the file, whose last session went on (a page turned a minute after
    /// it ended) and which holds a new session, extends that session and adds the new one;
    /// `--gap` and `--min-session` change how page turns become sessions.
    @Test func aLaterCopyExtendsTheSessionItContinuesAndAddsOnlyWhatIsNew() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["import", Self.statistics])
        let later = vault.root.appendingPathComponent("later.sqlite3").path
        try FileManager.default.copyItem(atPath: Self.statistics, toPath: later)
        do {
            // Closed at the end of this scope: its WAL is then checkpointed into the file
            // (what an open file's WAL holds is not read: immutable mode).
            let database = try Database<DatabaseError>(path: later, create: false) { $0 }
            // Book 8's last session ends at 1747842568 (its last page turn: 1747842558 + 10 s).
            try database.run("INSERT INTO page_stat_data (id_book, page, start_time, duration, total_pages) VALUES (8, 700, 1747842600, 60, 805)")
            try database.run("INSERT INTO page_stat_data (id_book, page, start_time, duration, total_pages) VALUES (8, 701, 1747900000, 300, 805)")
        }
        let again = try Self.object(try vault.json(["import", "--json", later]))
        #expect((again["added"] as? [String: Int])?["sessions"] == 1, "\(again)")
        #expect((again["updated"] as? [String: Int])?["sessions"] == 1, "\(again)")
        #expect(try Self.counts(vault)["sessions"] == 30)
        let sessions = try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]])
        #expect(sessions.contains { $0["endedAt"] as? String == "2025-05-21T15:51:00.000Z" }, "the extended session ends with the new page")
        #expect(try Self.object(try vault.json(["import", "--json", later]))["alreadyThere"] as? Int == 30)

        // Other rules: every pause a new session, none too short.
        let other = try TestVault()
        try other.createUnlocked()
        let split = try Self.object(try other.json(["import", "--json", "--gap", "0", "--min-session", "0", Self.statistics]))
        #expect(((split["added"] as? [String: Int])?["sessions"] ?? 0) > 34 && split["tooShort"] as? Int == 0, "\(split)")
        #expect(try other.run(["import", "--gap", "5m", Self.kobo]).status == 64)
    }

    /// The numbers: 8 books, all reading; 200 quotes, 12 with a comment; 29 books
    /// never opened only counted; 2 dog-ears counted. Again, nothing is new.
    @Test func aKobosDatabaseBecomesEightBooksAndTwoHundredQuotesOnce() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let dry = try Self.object(try vault.json(["import", "--dry-run", "--json", Self.kobo]))
        let real = try Self.object(try vault.json(["import", "--json", Self.kobo]))
        for document in [dry, real] {
            #expect(document["format"] as? String == "kobo")
            #expect(document["added"] as? [String: Int] == ["books": 8, "quotes": 200, "notes": 0, "sessions": 0], "\(document)")
            #expect(document["unopened"] as? Int == 29 && document["bookmarks"] as? Int == 2, "\(document)")
            let books = try #require(document["books"] as? [[String: Any]])
            #expect(books.count == 8 && books.allSatisfy { $0["status"] as? String == "reading" }, "\(books)")
        }
        let quotes = try #require(try vault.json(["list", "--kind", "quote", "--json"]) as? [[String: Any]])
        #expect(quotes.count == 200 && quotes.filter { $0["comment"] is String }.count == 12)
        #expect(quotes.allSatisfy { ($0["locator"] as? String)?.isEmpty == false })
        let again = try Self.object(try vault.json(["import", "--json", Self.kobo]))
        #expect((again["added"] as? [String: Int])?["quotes"] == 0 && again["alreadyThere"] as? Int == 200, "\(again)")
        // The device's folder is found by its `.kobo/KoboReader.sqlite` (a reading device: its
        // one file, the database), and `--from kobo` reads that file of it.
        let device = vault.root.appendingPathComponent("KOBOeReader")
        try FileManager.default.createDirectory(at: device.appendingPathComponent(".kobo"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.kobo, toPath: device.appendingPathComponent(".kobo/KoboReader.sqlite").path)
        let folder = try Self.object(try vault.json(["import", "--json", device.path]))
        #expect(folder["format"] as? String == "device" && folder["alreadyThere"] as? Int == 200, "\(folder)")
        #expect((folder["sources"] as? [[String: Any]])?.map { $0["format"] as? String } == ["kobo"], "\(folder)")
        let forced = try Self.object(try vault.json(["import", "--json", "--from", "kobo", device.path]))
        #expect(forced["format"] as? String == "kobo" && forced["alreadyThere"] as? Int == 200, "\(forced)")
    }

    /// In either order with the other importers (a KOReader sidecar of one of the books, a
    /// Kindle's clippings), the vault ends with the same counts, and nothing twice.
    @Test func eitherOrderWithTheOtherImportersEndsTheSame() throws {
        let sidecar = OtherProgramsImportTests.koreader.appendingPathComponent("harmtemolder__alice.sdr__metadata.epub.lua").path
        let kindle = OtherProgramsImportTests.fixtures.appendingPathComponent("hadynz__first-scenario.txt").path
        var results: [[String: Int]] = []
        for files in [[Self.statistics, Self.kobo, sidecar, kindle], [kindle, sidecar, Self.kobo, Self.statistics]] {
            let vault = try TestVault()
            try vault.createUnlocked()
            for file in files + files { try vault.succeed(["import", file]) }
            results.append(try Self.counts(vault))
        }
        #expect(results[0] == results[1], "\(results)")
        #expect(results[0]["sessions"] == 29 && results[0]["quotes"].map { $0 >= 200 } == true, "\(results)")
    }

    /// The sessions reach a second device through a remote, and importing the file there
    /// adds nothing: the sessions are there already.
    @Test func theSessionsReachASecondDeviceAndAreNotImportedTwiceThere() throws {
        let first = try TestVault()
        try first.createUnlocked()
        let remote = first.root.appendingPathComponent("remote")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        try first.succeed(["remote", "add", "usb", remote.path])
        try first.succeed(["import", Self.statistics])
        try first.succeed(["sync"])
        let second = try TestVault()
        try second.succeed(["init", "--join", remote.path, "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try second.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try second.succeed(["sync"])
        #expect(try Self.counts(second)["sessions"] == 29)
        let there = try Self.object(try second.json(["import", "--json", Self.statistics]))
        #expect((there["added"] as? [String: Int])?["sessions"] == 0 && there["alreadyThere"] as? Int == 29, "\(there)")
    }
}
