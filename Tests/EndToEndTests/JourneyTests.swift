import Foundation
import Testing

/// The main journey, as a reader runs it: create, unlock, journal, read back, search, edit,
/// delete, lock. Every step runs the real binary against the real Secret Service.
@Suite struct JourneyTests {
    @Test func theWholeLoop() throws {
        let vault = try TestVault()

        let recoveryKey = try vault.create()
        #expect(recoveryKey.range(of: #"^[0-9A-HJKMNP-TV-Z]{6}(-[0-9A-HJKMNP-TV-Z]{6}){5}$"#, options: .regularExpression) != nil,
                "recovery key line: \(recoveryKey)")

        let lockedStatus = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect(lockedStatus["locked"] as? Bool == true)
        #expect(lockedStatus["schemaVersion"] as? Int == Schema.latest)
        #expect((lockedStatus["vaultId"] as? String)?.count == 36)

        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        let unlockedStatus = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect(unlockedStatus["locked"] as? Bool == false)

        let middlemarch = try vault.succeed(["book", "add", "Middlemarch", "--author", "George Eliot"]).line
        let dune = try vault.succeed(["book", "add", "Dune", "-a", "Frank Herbert", "--json"])
        let duneID = try #require((try JSONSerialization.jsonObject(with: Data(dune.stdout.utf8)) as? [String: String])?["id"])
        try vault.succeed(["book", "add", "Dune Messiah"])
        try vault.succeed(["book", "progress", "middle", "42.5%"])
        let session = try vault.succeed(["session", "add", "Dune", "--pages", "30", "--start", "2026-12-01T09:00:00Z", "--end", "2026-12-01T10:15:00Z"]).line

        let note = try vault.succeed(["note", "add", "MIDDLEMARCH", "A note with ünïcode and emoji 📚", "--locator", "ch. 2"]).line
        let quote = try vault.succeed(["quote", "add", duneID, "Fear is the mind-killer.", "--locator", "p. 8"]).line
        let piped = try vault.succeed(["note", "add", "dune messiah"], stdin: "first line\n  indented second line\n").line
        for id in [middlemarch, duneID, session, note, quote, piped] {
            #expect(id.range(of: #"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression) != nil,
                    "not a UUIDv7: \(id)")
        }

        let books = try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]])
        #expect(books.map { $0["title"] as? String } == ["Middlemarch", "Dune", "Dune Messiah"])
        #expect(books[0]["authors"] as? [String] == ["George Eliot"])
        #expect(books[0]["progress"] as? Double == 42.5)

        let all = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(Set(all.compactMap { $0["id"] as? String }) == [note, quote, piped])
        let noteDocument = try #require(all.first { $0["id"] as? String == note })
        #expect(noteDocument["body"] as? String == "A note with ünïcode and emoji 📚")
        #expect(noteDocument["locator"] as? String == "ch. 2")
        #expect(noteDocument["kind"] as? String == "note")
        #expect(noteDocument["bookId"] as? String == middlemarch)
        for key in ["createdAt", "updatedAt"] { #expect((noteDocument[key] as? String)?.hasSuffix("Z") == true) }
        let pipedDocument = try #require(all.first { $0["id"] as? String == piped })
        #expect(pipedDocument["body"] as? String == "first line\n  indented second line")

        let quotes = try #require(try vault.json(["list", "--kind", "quote", "--json"]) as? [[String: Any]])
        #expect(quotes.compactMap { $0["id"] as? String } == [quote])
        let ofDune = try #require(try vault.json(["list", "--book", "Dune", "--json"]) as? [[String: Any]])
        #expect(ofDune.compactMap { $0["id"] as? String } == [quote])

        // Search: body, locator and title, ignoring case.
        #expect((try vault.json(["search", "MIND-KILLER", "--json"]) as? [[String: Any]])?.compactMap { $0["id"] as? String } == [quote])
        #expect((try vault.json(["search", "CH. 2", "--json"]) as? [[String: Any]])?.compactMap { $0["id"] as? String } == [note])
        #expect((try vault.json(["search", "messiah", "--json"]) as? [[String: Any]])?.compactMap { $0["id"] as? String } == [piped])
        #expect((try vault.json(["search", "nothing like this", "--json"]) as? [[String: Any]])?.isEmpty == true)
        #expect(try vault.succeed(["search", "ünïcode"]).stdout.hasPrefix(try vault.short(note) + "  note  "))

        let shown = try #require(try vault.json(["show", note, "--json"]) as? [String: Any])
        #expect(shown["version"] as? Int == 1)
        try vault.succeed(["edit", note, "An edited note"])
        let edited = try #require(try vault.json(["show", note, "--json"]) as? [String: Any])
        #expect(edited["body"] as? String == "An edited note")
        #expect(edited["locator"] as? String == "ch. 2")
        #expect(edited["version"] as? Int == 2)
        try vault.succeed(["edit", note, "--locator", "ch. 3"])
        let relocated = try #require(try vault.json(["show", note, "--json"]) as? [String: Any])
        #expect(relocated["body"] as? String == "An edited note")
        #expect(relocated["locator"] as? String == "ch. 3")

        let bookDetails = try #require(try vault.json(["show", duneID, "--json"]) as? [String: Any])
        #expect((bookDetails["sessions"] as? [[String: Any]])?.first?["pagesRead"] as? Int == 30)
        #expect((bookDetails["counts"] as? [String: Int])?["quotes"] == 1)
        #expect((try vault.json(["show", session, "--json"]) as? [String: Any])?["startedAt"] as? String == "2026-12-01T09:00:00.000Z")

        try vault.succeed(["delete", quote])
        #expect(try vault.run(["show", quote]).status == 66)
        #expect((try vault.json(["list", "--json"]) as? [[String: Any]])?.count == 2)

        let counts = try #require((try vault.json(["status", "--json"]) as? [String: Any])?["counts"] as? [String: Int])
        #expect(counts == ["books": 3, "sessions": 1, "notes": 2, "quotes": 0])
        let outbox = try #require((try vault.json(["status", "--json"]) as? [String: Any])?["outbox"] as? [String: Int])
        // 3 books + 1 progress + 1 session + 3 annotations + 2 edits + 1 delete, each with its
        // outbox operation; with no remote, nothing waits (a remote added later gets a snapshot).
        #expect(outbox["pending"] == 0 && outbox["failed"] == 0)

        try vault.succeed(["lock"])
        let locked = try vault.run(["list"])
        #expect(locked.status == 77)
        #expect(locked.stderr == "Error: the vault is locked; run `bmvault unlock`\n")
        #expect(locked.stdout.isEmpty)
    }

    @Test func humanListingShowsEveryNoteWithItsBook() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Walden"])
        let id = try vault.succeed(["quote", "add", "walden", "Simplify, simplify.", "--locator", "p. 91"]).line
        let listing = try vault.succeed(["list"]).stdout
        #expect(listing.hasPrefix("\(try vault.short(id))  quote"), "a listing names a record by its short id")
        #expect(listing.contains("Walden · p. 91"))
        #expect(listing.contains("\n    Simplify, simplify.\n"))
        let shown = try vault.succeed(["show", id]).stdout
        #expect(shown.hasSuffix("\nSimplify, simplify.\n"))
        #expect(shown.contains("locator:  p. 91\n"))
    }

    @Test func recoveryKeyUnlocksAndPassphraseCanBeChanged() throws {
        let vault = try TestVault()
        let recoveryKey = try vault.create()
        // Typed sloppily: lower case, spaces instead of hyphens.
        let sloppy = recoveryKey.lowercased().replacingOccurrences(of: "-", with: " ")
        let unlocked = try vault.succeed(["unlock", "--recovery-key-stdin"], stdin: sloppy + "\n")
        #expect(unlocked.stderr.contains("bmvault passphrase change"))
        try vault.succeed(["book", "add", "Kept"])

        // The recovery key stands in for the forgotten passphrase.
        try vault.succeed(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"], stdin: recoveryKey + "\na brand new passphrase\n")
        try vault.succeed(["lock"])
        #expect(try vault.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n").status == 77)
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: "a brand new passphrase\n")
        #expect((try vault.json(["book", "list", "--json"]) as? [[String: Any]])?.first?["title"] as? String == "Kept")
        try vault.succeed(["lock"])
        try vault.succeed(["unlock", "--recovery-key-stdin"], stdin: recoveryKey + "\n")
    }

    @Test func rememberKeepsTheKeyInTheDefaultKeyring() throws {
        let vault = try TestVault()
        try vault.create()
        try vault.succeed(["unlock", "--passphrase-stdin", "--remember", "--timeout", "30m"], stdin: TestVault.passphrase + "\n")
        let status = try vault.succeed(["status"]).stdout
        #expect(status.contains("(default keyring)"), "\(status)")
        let json = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        let until = try #require(json["unlockedUntil"] as? String)
        let expiry = try #require(ISO8601DateFormatter.withFractions.date(from: until))
        #expect(abs(expiry.timeIntervalSinceNow - 1800) < 60)
        try vault.succeed(["lock"])
        #expect((try vault.json(["status", "--json"]) as? [String: Any])?["locked"] as? Bool == true)
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
