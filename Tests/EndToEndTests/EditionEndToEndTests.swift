import Foundation
import Testing

/// Issue 21, a book's edition and progress as a page, through the built binary: `book add`
/// and `book edit` with `--isbn --year --pages-total`, `book progress BOOK p. 120`, `session
/// add --from-page --to-page`, `show`, `book list`, the archive, two devices, and the counts
/// `book list` reads, kept by triggers and verified by `check`.
@Suite("Editions and pages", .serialized)
struct EditionEndToEndTests {
    func book(_ device: TestVault, _ id: String) throws -> [String: Any] {
        let shown = try #require(try device.json(["show", id, "--json"]) as? [String: Any])
        return try #require(shown["book"] as? [String: Any])
    }

    @Test("ISBN, year and pages are given, corrected and removed; a bad one is refused in one line and changes nothing")
    func addAndEdit() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Solaris", "--isbn", "978-0-15-602760-1", "--year", "1961", "--pages-total", "204"]).line
        var shown = try book(vault, id)
        #expect(shown["isbn"] as? String == "9780156027601" && shown["year"] as? Int == 1961 && shown["pagesTotal"] as? Int == 204)
        #expect(try vault.succeed(["show", id]).stdout.contains("edition:  ISBN 9780156027601, 1961, 204 pages\n"))

        for (arguments, status, message) in [
            (["book", "add", "Dune", "--isbn", "978-0-15-602760-2"], 65, "Error: that is not an ISBN: give the 10 or 13 digits of one (hyphens allowed) whose check digit matches\n"),
            (["book", "edit", id, "--pages-total", "0"], 65, "Error: a book's number of pages is a whole number from 1 to 100000\n"),
            (["book", "edit", id, "--year", "10000"], 65, "Error: a year is a whole number from -5000 to 9999\n"),
            (["book", "edit", id, "--year", "1961a"], 64, "Error: --year takes a whole number, such as 1961\n"),
        ] {
            let result = try vault.run(arguments)
            #expect(result.status == Int32(status) && result.stderr == message, "\(arguments): \(result)")
        }
        #expect(try book(vault, id)["version"] as? Int == shown["version"] as? Int, "a refused edit changed the book")
        #expect(try vault.run(["book", "list"]).stdout.components(separatedBy: "\n").count == 2, "a refused add added a book")

        #expect(try vault.succeed(["book", "edit", "solaris", "--year", "", "--pages-total", "211"]).stderr
                == "Book \(try vault.short(id)) edited (year and pages).\n")
        shown = try book(vault, id)
        #expect(shown["isbn"] as? String == "9780156027601" && shown["year"] is NSNull && shown["pagesTotal"] as? Int == 211)
        #expect(try vault.succeed(["book", "edit", "solaris", "--pages-total", "211"]).stderr
                == "Book \(try vault.short(id)) already has what was given; nothing was changed.\n")
        #expect(try vault.succeed(["book", "edit", "solaris", "--isbn", "", "--title", "Solaris (1961)"]).stderr
                == "Book \(try vault.short(id)) edited (title and isbn).\n")
        shown = try book(vault, id)
        #expect(shown["isbn"] is NSNull && shown["title"] as? String == "Solaris (1961)")
        try vault.succeed(["check"])
    }

    @Test("Progress as a page of the book's pages; a session's --to-page moves it forward, never back")
    func pages() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Solaris", "--pages-total", "200"]).line
        let other = try vault.succeed(["book", "add", "Dune"]).line

        #expect(try vault.succeed(["book", "progress", "solaris", "p.", "50"]).stderr == "Progress of book \(try vault.short(id)) set to p. 50 of 200 (25%).\n")
        #expect(try book(vault, id)["progress"] as? Double == 25)
        #expect(try vault.succeed(["book", "progress", "solaris", "page 60"]).stderr == "Progress of book \(try vault.short(id)) set to p. 60 of 200 (30%).\n")
        let beyond = try vault.run(["book", "progress", "solaris", "p.", "201"])
        #expect(beyond.status == 65 && beyond.stderr == "Error: the book has 200 pages; give a page from 0 to 200\n", "\(beyond)")
        let noPages = try vault.run(["book", "progress", "dune", "p.", "5"])
        #expect(noPages.status == 65 && noPages.stderr.hasPrefix("Error: the book has no number of pages;"), "\(noPages)")
        #expect(try book(vault, other)["progress"] as? Double == 0)
        let behind = try vault.run(["book", "progress", "solaris", "p.", "10"])
        #expect(behind.status == 64, "moving back still needs --rewind: \(behind)")

        let session = try vault.succeed(["session", "add", "solaris", "--from-page", "60", "--to-page", "90", "--minutes", "45"])
        #expect(session.stderr == "Progress of book \(try vault.short(id)) set to p. 90 of 200 (45%).\n", "\(session)")
        let sessions = try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]])
        #expect(sessions.first?["pagesRead"] as? Int == 30, "the pages read are --to-page minus --from-page")
        let reread = try vault.succeed(["session", "add", "solaris", "--to-page", "20", "--pages", "20", "--minutes", "30"])
        #expect(reread.stderr == "Progress of book \(try vault.short(id)) stays at p. 90 of 200 (45%), beyond page 20.\n", "\(reread)")
        #expect(try book(vault, id)["page"] as? Int == 90)

        for (arguments, message) in [
            (["--from-page", "10"], "Error: --from-page needs --to-page\n"),
            (["--from-page", "10", "--to-page", "5"], "Error: --to-page is before --from-page\n"),
            (["--to-page", "100"], "Error: session add needs --pages N (or --from-page and --to-page)\n"),
        ] {
            let result = try vault.run(["session", "add", "solaris", "--minutes", "5"] + arguments)
            #expect(result.status == 64 && result.stderr == message, "\(arguments): \(result)")
        }
        let unknownPages = try vault.run(["session", "add", "dune", "--from-page", "1", "--to-page", "9", "--minutes", "5"])
        #expect(unknownPages.status == 65, "\(unknownPages)")
        #expect(try vault.json(["session", "list", "--json"]) as? [[String: Any]] != nil)
        #expect((try vault.json(["session", "list", "--json"]) as? [[String: Any]])?.count == 2, "a refused session was saved")
    }

    @Test("book list's counts follow every change, and check finds counts that drifted")
    func countsKeptByTriggers() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Solaris"]).line
        let other = try vault.succeed(["book", "add", "Dune"]).line
        let note = try vault.succeed(["note", "add", "solaris", "a note"]).line
        try vault.succeed(["quote", "add", "solaris", "a quote", "--locator", "p. 3"])
        let session = try vault.succeed(["session", "add", "solaris", "--pages", "3", "--minutes", "5"]).line
        func activity(_ book: String) throws -> [String: Any] {
            let listed = try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]])
            return try #require(listed.first { $0["id"] as? String == book })
        }
        var counts = try activity(id)
        #expect(counts["notes"] as? Int == 1 && counts["quotes"] as? Int == 1 && counts["sessions"] as? Int == 1)
        try vault.succeed(["delete", note, session])
        counts = try activity(id)
        #expect(counts["notes"] as? Int == 0 && counts["quotes"] as? Int == 1 && counts["sessions"] as? Int == 0)
        #expect(counts["lastSession"] is NSNull)
        try vault.succeed(["undelete", note])
        #expect(try activity(id)["notes"] as? Int == 1)
        #expect(try activity(other)["notes"] as? Int == 0)
        try vault.succeed(["check"])

        try vault.succeed(["lock"])
        _ = try vault.sqlite("UPDATE book_activity SET notes = notes + 1 WHERE book_id = '\(id)';")
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        let checked = try vault.run(["check"])
        #expect(checked.status == 65 && checked.stdout.contains("damaged: book_activity \(id): counts differ from the journal's\n"), "\(checked)")
    }

    @Test("The edition goes through an export and an import (journal.json and Markdown alone)")
    func archiveRoundTrip() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Solaris", "--isbn", "080442957X", "--year", "-400", "--pages-total", "204"]).line
        let archive = vault.root.appendingPathComponent("archive").path
        try vault.succeed(["export", "--out", archive])
        let journal = try String(contentsOfFile: archive + "/journal.json", encoding: .utf8)
        #expect(journal.contains("\"isbn\" : \"080442957X\",") && journal.contains("\"pagesTotal\" : 204,") && journal.contains("\"year\" : -400"))

        let restored = try TestVault()
        try restored.createUnlocked()
        try restored.succeed(["import", archive])
        let book = try self.book(restored, id)
        #expect(book["isbn"] as? String == "080442957X" && book["year"] as? Int == -400 && book["pagesTotal"] as? Int == 204)
        try restored.succeed(["import", archive])
        #expect(try self.book(restored, id)["version"] as? Int == book["version"] as? Int, "importing again changed the book")

        // The Markdown alone carries it too.
        try FileManager.default.removeItem(atPath: archive + "/journal.json")
        let fromMarkdown = try TestVault()
        try fromMarkdown.createUnlocked()
        try fromMarkdown.succeed(["import", archive])
        #expect(try self.book(fromMarkdown, id)["pagesTotal"] as? Int == 204)
    }

    @Test("A retitle on one device and an edition on the other both survive; of two editions, the later wins")
    func twoDevices() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        let id = try deviceA.succeed(["book", "add", "Solaris"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        try deviceA.succeed(["book", "edit", id, "--title", "Solaris (1961)"])
        try deviceB.succeed(["book", "edit", id, "--isbn", "9780156027601", "--pages-total", "204"])
        try deviceB.succeed(["book", "progress", id, "p.", "102"])
        for device in [deviceA, deviceB, deviceA] { try device.succeed(["sync"]) }
        for device in [deviceA, deviceB] {
            let book = try self.book(device, id)
            #expect(book["title"] as? String == "Solaris (1961)" && book["isbn"] as? String == "9780156027601"
                    && book["pagesTotal"] as? Int == 204 && book["page"] as? Int == 102, "\(book)")
        }

        try deviceA.succeed(["book", "edit", id, "--pages-total", "210"])
        try deviceB.succeed(["book", "edit", id, "--year", "1961"])
        for device in [deviceA, deviceB, deviceA] { try device.succeed(["sync"]) }
        let editions = try [deviceA, deviceB].map { device in
            let book = try self.book(device, id)
            return [book["isbn"] as? String ?? "-", String(book["year"] as? Int ?? 0), String(book["pagesTotal"] as? Int ?? 0)]
        }
        #expect(editions[0] == editions[1])
        #expect(editions[0] == ["9780156027601", "1961", "204"], "edited last, as a whole")
    }
}
