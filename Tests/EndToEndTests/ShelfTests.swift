import Foundation
import Testing

/// Issue 21, reading status and rating, through the built binary: `book want|start|finish|
/// abandon`, `book rate`, `book list --status`, `show`, the archive, and two devices.
@Suite("Reading status and rating", .serialized)
struct ShelfEndToEndTests {
    func book(_ device: TestVault, _ id: String) throws -> [String: Any] {
        let shown = try #require(try device.json(["show", id, "--json"]) as? [String: Any])
        return try #require(shown["book"] as? [String: Any])
    }

    @Test("Status changes are kept with their days, re-reads included; a rating in half stars; bad input changes nothing")
    func statusAndRating() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Middlemarch", "--author", "George Eliot"]).line
        let other = try vault.succeed(["book", "add", "Dune"]).line
        let shortID = try vault.short(id)
        #expect(try vault.succeed(["book", "want", "dune", "--on", "2026-09-30"]).stderr
                == "Book \(try vault.short(other)): on the want-to-read shelf since 2026-09-30.\n")
        #expect(try vault.succeed(["book", "start", "middlemarch", "--on", "2026-10-01"]).stderr
                == "Book \(shortID): reading since 2026-10-01.\n")
        #expect(try vault.succeed(["book", "finish", "middlemarch", "--on", "2026-11-02"]).stderr
                == "Book \(shortID): finished on 2026-11-02.\n")
        try vault.succeed(["book", "start", "middlemarch", "--on", "2026-11-20"])
        #expect(try vault.succeed(["book", "finish", "middlemarch", "--on", "2026-12-01"]).stderr
                == "Book \(shortID): finished on 2026-12-01 (finished 2 times).\n")
        #expect(try vault.succeed(["book", "rate", "middlemarch", "4.5"]).stderr == "Book \(shortID) rated 4.5/5.\n")

        var shown = try book(vault, id)
        #expect(shown["status"] as? String == "finished")
        #expect(shown["statusSince"] as? String == "2026-12-01T00:00:00.000Z")
        #expect(shown["rating"] as? Double == 4.5)
        #expect((shown["readingLog"] as? [[String: Any]])?.map { $0["status"] as? String } == ["reading", "finished", "reading", "finished"])
        let text = try vault.succeed(["show", id]).stdout
        #expect(text.contains("status:   finished since 2026-12-01\n"))
        #expect(text.contains("finished: 2026-11-02, 2026-12-01\n"))
        #expect(text.contains("rating:   4.5/5\n"))

        #expect(try vault.succeed(["book", "list"]).stdout.contains("Middlemarch — George Eliot  [finished, 4.5/5]\n"))
        let finished = try #require(try vault.json(["book", "list", "--status", "finished", "--json"]) as? [[String: Any]])
        #expect(finished.map { $0["id"] as? String } == [id])
        let wanted = try vault.succeed(["book", "list", "--status", "want-to-read"]).stdout
        #expect(wanted.hasPrefix(try vault.short(other) + "  ") && wanted.contains("[want-to-read]"))

        // Bad input: one line, non-zero, nothing changed.
        let before = try book(vault, id)["version"] as? Int
        for (arguments, status) in [(["book", "rate", id, "6"], Int32(64)), (["book", "rate", id, "3.25"], 64), (["book", "rate", id], 64),
                                    (["book", "rate", id, "4", "--clear"], 64), (["book", "finish", id, "--on", "2099-01-01"], 65),
                                    (["book", "finish", id, "--on", "someday"], 64), (["book", "list", "--status", "done"], 64),
                                    (["book", "finish", "no such book"], 66)] {
            let result = try vault.run(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
        #expect(try book(vault, id)["version"] as? Int == before)

        // The same rating again writes nothing; --clear takes it away.
        try vault.succeed(["book", "rate", id, "4.5/5"])
        #expect(try book(vault, id)["version"] as? Int == before)
        #expect(try vault.succeed(["book", "rate", id, "--clear"]).stderr == "Book \(shortID) has no rating.\n")
        shown = try book(vault, id)
        #expect(shown["rating"] is NSNull)
    }

    @Test("Status and rating go through an export and an import into a new vault")
    func archiveRoundTrip() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Middlemarch"]).line
        try vault.succeed(["book", "finish", id, "--on", "2026-11-02"])
        try vault.succeed(["book", "rate", id, "3"])
        let archive = vault.root.appendingPathComponent("archive").path
        try vault.succeed(["export", "--out", archive])
        let journal = try String(contentsOfFile: archive + "/journal.json", encoding: .utf8)
        #expect(journal.contains("\"rating\" : 3,"))
        #expect(journal.contains("\"on\" : \"2026-11-02T00:00:00.000Z\", \"status\" : \"finished\""))

        let restored = try TestVault()
        try restored.createUnlocked()
        try restored.succeed(["import", archive])
        let book = try self.book(restored, id)
        #expect(book["status"] as? String == "finished" && book["rating"] as? Double == 3)
        // Importing again changes nothing.
        let again = try restored.succeed(["import", archive])
        #expect(try self.book(restored, id)["version"] as? Int == book["version"] as? Int, "\(again)")
    }

    @Test("Finished on one device and abandoned on the other: both kept, the same status on both; the rating given last wins")
    func twoDevices() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        let id = try deviceA.succeed(["book", "add", "Middlemarch"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        try deviceA.succeed(["book", "finish", id, "--on", "2026-11-02"])
        try deviceA.succeed(["book", "rate", id, "5"])
        try deviceB.succeed(["book", "abandon", id, "--on", "2026-11-02"])
        try deviceB.succeed(["book", "rate", id, "2"])
        try deviceA.succeed(["sync"])
        try deviceB.succeed(["sync"])
        try deviceA.succeed(["sync"])

        let books = try [deviceA, deviceB].map { try book($0, id) }
        for book in books {
            #expect((book["readingLog"] as? [[String: Any]])?.compactMap { $0["status"] as? String }.sorted() == ["abandoned", "finished"])
            #expect(book["status"] as? String == "abandoned", "recorded last, the same day")
            #expect(book["rating"] as? Double == 2, "rated last")
        }
    }
}
