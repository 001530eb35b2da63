import Foundation
import Testing

/// Issue 43, item 3: a reading device's folder (here, a Kobo running KOReader with a Kindle's
/// clippings beside them, built from copies of the real fixtures) is imported in one run:
/// each file counted as importing it alone counts it, a dry run saying the same and changing
/// nothing, and again nothing new.
@Suite struct DeviceFolderImportTests {
    static let importers = OtherProgramsImportTests.importers
    static let sidecars = [
        // Beside its book; in KOReader's docsettings, mirroring the book's path deeper than
        // the walk from the drive's root reaches; in hashdocsettings, named by partial MD5.
        ("books/alice.sdr", "harmtemolder__alice.sdr__metadata.epub.lua"),
        (".adds/koreader/docsettings/mnt/onboard/Books/Some Author/A Series/prophet.sdr", "noted__the_prophet.sdr__metadata.epub.lua"),
        (".adds/koreader/hashdocsettings/5a/5a0d1c.sdr", "noted__pg42324.sdr__metadata.epub.lua"),
    ]
    /// Each file of the device, by its format: its place on the device, and its fixture.
    static let files = [
        ("kobo", ".kobo/KoboReader.sqlite", importers.appendingPathComponent("kobo/recalldaily__KoboReader.sqlite")),
        ("koreader-stats", ".adds/koreader/settings/statistics.sqlite3", importers.appendingPathComponent("koreader-stats/inkstats__statistics.sqlite3")),
        ("kindle", "documents/My Clippings.txt", importers.appendingPathComponent("kindle/hadynz__first-scenario.txt")),
    ]

    /// A copy of the fixtures laid out as a Kobo running KOReader, with a Kindle's clippings.
    static func device(in root: URL) throws -> URL {
        let device = root.appendingPathComponent("KOBOeReader")
        for (_, place, fixture) in files {
            try copy(fixture, to: device.appendingPathComponent(place))
        }
        for (folder, fixture) in sidecars {
            try copy(OtherProgramsImportTests.koreader.appendingPathComponent(fixture),
                     to: device.appendingPathComponent(folder).appendingPathComponent("metadata.epub.lua"))
        }
        return device
    }

    static func copy(_ fixture: URL, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture, to: destination)
        // The fixtures are read-only; the copy is the test's own.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination.path)
    }

    static func object(_ json: Any) throws -> [String: Any] { try #require(json as? [String: Any]) }

    /// A file's document as the test compares it: without its place on the device, its
    /// books by title (the device walks its sidecars in another order than a folder of them).
    static func comparable(_ document: [String: Any]) -> NSDictionary {
        var document = document
        document["place"] = nil
        document["files"] = nil
        let books = (document["books"] as? [[String: Any]]) ?? []
        document["books"] = books.sorted { ($0["title"] as? String ?? "") < ($1["title"] as? String ?? "") }
        return NSDictionary(dictionary: document)
    }

    @Test func aDeviceFolderImportsEverythingItHoldsOnceCountedPerSource() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let device = try Self.device(in: vault.root)

        // Each file alone, into a fresh vault: what the device's import must count for it.
        var alone: [String: [String: Any]] = [:]
        for (format, place, _) in Self.files {
            let fresh = try TestVault()
            try fresh.createUnlocked()
            alone[format] = try Self.object(try fresh.json(["import", "--json", device.appendingPathComponent(place).path]))
        }
        // The sidecars alone: a plain folder of them, which is no device (KOReader's, as before).
        let plain = vault.root.appendingPathComponent("sidecars")
        for (index, (_, fixture)) in Self.sidecars.enumerated() {
            try Self.copy(OtherProgramsImportTests.koreader.appendingPathComponent(fixture),
                          to: plain.appendingPathComponent("book\(index).sdr/metadata.epub.lua"))
        }
        let fresh = try TestVault()
        try fresh.createUnlocked()
        let sidecarsAlone = try Self.object(try fresh.json(["import", "--json", plain.path]))
        #expect(sidecarsAlone["format"] as? String == "koreader")
        alone["koreader"] = sidecarsAlone

        // A dry run, then the import: the same counts, file by file; the dry run changes nothing.
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let dry = try Self.object(try vault.json(["import", "--dry-run", "--json", device.path]))
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before, "a dry run changes nothing")
        let real = try Self.object(try vault.json(["import", "--json", device.path]))
        for document in [dry, real] {
            #expect(document["format"] as? String == "device")
            let sources = try #require(document["sources"] as? [[String: Any]])
            #expect(sources.map { $0["format"] as? String } == ["kobo", "koreader", "koreader-stats", "kindle"])
            #expect(sources.map { $0["place"] as? String } == [".kobo/KoboReader.sqlite", nil, ".adds/koreader/settings/statistics.sqlite3",
                                                              "documents/My Clippings.txt"])
            #expect(sources[1]["files"] as? Int == 3, "every sidecar: beside its book, in docsettings and in hashdocsettings")
            for source in sources {
                var expected = try #require(alone[source["format"] as? String ?? ""])
                expected["dryRun"] = document["dryRun"]
                #expect(Self.comparable(source) == Self.comparable(expected), "\(source["format"] ?? "?") on the device counts as it alone")
            }
            // The whole adds up its files.
            let added = try #require(document["added"] as? [String: Int])
            #expect(added == ["books": 20, "sessions": 29, "quotes": 213, "notes": 1], "\(added)")
            #expect(document["unopened"] as? Int == 29 && document["tooShort"] as? Int == 5 && document["pageTurns"] as? Int == 476)
            #expect((document["books"] as? [Any])?.count == sources.reduce(0) { $0 + (($1["books"] as? [Any])?.count ?? 0) })
        }
        let counts = try #require(try Self.object(try vault.json(["status", "--json"]))["counts"] as? [String: Int])
        #expect(counts == ["books": 20, "sessions": 29, "quotes": 213, "notes": 1], "\(counts)")

        // Again: nothing new from any file.
        let again = try Self.object(try vault.json(["import", "--json", device.path]))
        #expect(again["added"] as? [String: Int] == ["books": 0, "sessions": 0, "quotes": 0, "notes": 0], "\(again)")
        for source in try #require(again["sources"] as? [[String: Any]]) {
            #expect((source["added"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true, "\(source)")
            #expect((source["alreadyThere"] as? Int ?? 0) > 0, "\(source)")
        }

        // The summary a person reads: the files found, each file's own summary, the whole.
        let text = try vault.succeed(["import", "--dry-run", device.path]).stdout
        #expect(text.hasPrefix("Dry run: nothing was changed. Found on the reading device \(device.path): a Kobo's database (KoboReader.sqlite), "
            + "3 KOReader sidecars, KOReader statistics (statistics.sqlite3), Kindle clippings (My Clippings.txt).\n"), "\(text)")
        #expect(text.contains("Found KOReader statistics (statistics.sqlite3) at .adds/koreader/settings/statistics.sqlite3: 7 books."))
        #expect(text.contains("In all, would add:     0 books, 0 sessions, 0 quotes, 0 notes\n"), "\(text)")
        #expect(text.components(separatedBy: "Dry run:").count == 2, "a dry run is said once")

        // `--from` still reads one format: the device's file of it.
        let kindle = try Self.object(try vault.json(["import", "--json", "--from", "kindle", device.path]))
        #expect(kindle["format"] as? String == "kindle" && kindle["sources"] == nil && kindle["alreadyThere"] as? Int == 5, "\(kindle)")
        let statistics = try Self.object(try vault.json(["import", "--json", "--from", "koreader-stats", device.path]))
        #expect(statistics["format"] as? String == "koreader-stats" && statistics["alreadyThere"] as? Int == 29, "\(statistics)")
        // `--gap` and `--min-session` apply to the statistics a device holds.
        #expect(try vault.run(["import", "--dry-run", "--gap", "5m", device.path]).status == 0)
    }

    /// A file of the device that is not what its place says fails the whole import, naming
    /// its format (never a value): nothing of the device's other files is imported.
    @Test func aBadFileOnTheDeviceImportsNothing() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let device = try Self.device(in: vault.root)
        let database = device.appendingPathComponent(".kobo/KoboReader.sqlite")
        try Data("not a database at all, just text the device never wrote\n".utf8).write(to: database)
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let result = try vault.run(["import", device.path])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("Error: a Kobo's database (KoboReader.sqlite) on the device: "), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("nothing was imported\n"), "\(result.stderr)")
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before)
        // A folder that is no device, named one: exit 65.
        let plain = vault.root.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        #expect(try vault.run(["import", "--from", "device", plain.path]).status == 65)
    }

    /// No title, author or highlight of the device's files reaches standard error or the log
    /// file, even with `--debug`, for an import that succeeds or one that fails.
    @Test func nothingOfTheDevicesContentReachesTheLogOrStandardError() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let device = try Self.device(in: vault.root)
        let state = vault.root.appendingPathComponent("state")
        let environment = ["XDG_STATE_HOME": state.path]
        let imported = try vault.run(["--debug", "import", device.path], environment: environment)
        #expect(imported.status == 0, "\(imported)")
        // Content the import did read: on standard output (the summary names books).
        let content = ["Frankenstein", "Elantris", "How to Write One Song", "Smart Notes", "Wollstonecraft", "Sanderson", "Gibran"]
        #expect(content.allSatisfy(imported.stdout.contains), "the content was there to leak")
        try Data("not a database\n".utf8).write(to: device.appendingPathComponent(".kobo/KoboReader.sqlite"))
        let failed = try vault.run(["--debug", "import", device.path], environment: environment)
        #expect(failed.status == 65, "\(failed)")
        let log = try String(contentsOf: state.appendingPathComponent("bmvault/bmvault.log"), encoding: .utf8)
        #expect(log.contains("command=import"), "the log was written")
        for text in [imported.stderr, failed.stderr, log] {
            #expect(!content.contains(where: text.contains), "\(text)")
        }
    }

    /// Locked, and no passphrase source (what a service started at a mount meets): exit 77,
    /// nothing imported.
    @Test func aLockedVaultImportsNothingFromTheDevice() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let device = try Self.device(in: vault.root)
        try vault.succeed(["lock"])
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let result = try vault.run(["import", device.path], environment: ["DBUS_SESSION_BUS_ADDRESS": "", "BMVAULT_PASSPHRASE_COMMAND": ""])
        #expect(result.status == 77, "\(result)")
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before)
    }
}
