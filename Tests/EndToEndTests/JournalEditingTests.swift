import Foundation
import Testing

/// Issue 21, fixing mistakes: `book edit`, `session list`, and the session times a reader
/// types (none in the future; a start of day after the end crosses midnight), through the
/// built binary.
@Suite("Journal editing", .serialized)
struct JournalEditingTests {
    @Test("book edit corrects a title and its authors, says which changed, and writes nothing when nothing changes")
    func bookEditCorrectsTitleAndAuthors() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Middlemarsh", "--author", "George Elliot"]).line

        let edited = try vault.succeed(["book", "edit", "middlemarsh", "--title", "Middlemarch", "--author", "George Eliot"])
        #expect(edited.stderr == "Book \(try vault.short(id)) edited (title and authors).\n")
        var book = try #require(try vault.json(["show", id, "--json"]) as? [String: Any])["book"] as? [String: Any]
        #expect(book?["title"] as? String == "Middlemarch")
        #expect(book?["authors"] as? [String] == ["George Eliot"])
        let version = book?["version"] as? Int

        // The same values again: nothing written, and said.
        let unchanged = try vault.succeed(["book", "edit", "Middlemarch", "--title", "Middlemarch"])
        #expect(unchanged.stderr.contains("nothing was changed"))
        book = try #require(try vault.json(["show", id, "--json"]) as? [String: Any])["book"] as? [String: Any]
        #expect(book?["version"] as? Int == version)

        // The old title names nothing any more; the new one finds the book's notes.
        try vault.succeed(["note", "add", "Middlemarch", "Dorothea's choice."])
        #expect(try vault.run(["list", "--book", "Middlemarsh"]).status != 0)
        #expect(try vault.succeed(["list", "--book", "Middle"]).stdout.contains("Dorothea's choice."))

        try vault.succeed(["book", "edit", id, "--no-author"])
        book = try #require(try vault.json(["show", id, "--json"]) as? [String: Any])["book"] as? [String: Any]
        #expect(book?["authors"] as? [String] == [])
    }

    @Test("book edit refuses a call that changes nothing, or a bad title, and leaves the book as it was")
    func bookEditRefusesBadInput() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let id = try vault.succeed(["book", "add", "Middlemarch", "--author", "George Eliot"]).line
        let before = try vault.json(["book", "list", "--json"]) as? [[String: Any]]

        for (arguments, status) in [(["book", "edit", id], Int32(64)),
                                    (["book", "edit", id, "--author", "A", "--no-author"], 64),
                                    (["book", "edit", id, "--title", ""], 65),
                                    (["book", "edit", id, "--title", "Two\nlines"], 65),
                                    (["book", "edit", "no such book", "--title", "X"], 66)] {
            let result = try vault.run(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
        let after = try vault.json(["book", "list", "--json"]) as? [[String: Any]]
        #expect(after?.first?["title"] as? String == before?.first?["title"] as? String)
        #expect(after?.first?["version"] as? Int == before?.first?["version"] as? Int)
    }

    @Test("A retitle on one device and a position recorded on another both survive the sync, on both")
    func retitleAndProgressOnTwoDevices() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        let id = try deviceA.succeed(["book", "add", "Middlemarsh"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        try deviceA.succeed(["book", "edit", id, "--title", "Middlemarch", "--author", "George Eliot"])
        try deviceB.succeed(["book", "progress", id, "40"])
        try deviceB.succeed(["sync"])
        try deviceA.succeed(["sync"])
        try deviceB.succeed(["sync"])

        for device in [deviceA, deviceB] {
            let book = try #require(try device.json(["show", id, "--json"]) as? [String: Any])["book"] as? [String: Any]
            #expect(book?["title"] as? String == "Middlemarch")
            #expect(book?["authors"] as? [String] == ["George Eliot"])
            #expect(book?["progress"] as? Double == 40)
        }
    }

    /// `TZ` in each form POSIX allows names the same zone for times typed and times shown:
    /// Foundation alone read all but the first as UTC, so `--start 09:05` was stored five and
    /// a half hours late while listings printed local time.
    @Test("A time typed is read in the time zone TZ names, whichever form TZ takes", arguments: [
        "Asia/Kolkata", ":Asia/Kolkata", "/usr/share/zoneinfo/Asia/Kolkata", "IST-5:30",
    ])
    func timesTypedFollowTZInEveryForm(_ zone: String) throws {
        let vault = try TestVault(environment: ["TZ": zone])
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        try vault.succeed(["session", "add", "emma", "--pages", "20", "--start", "2026-12-03 09:05", "--end", "2026-12-03 10:35"])
        let sessions = try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]])
        #expect(sessions.compactMap { $0["startedAt"] as? String } == ["2026-12-03T03:35:00.000Z"], "\(zone)")
        #expect(try vault.succeed(["session", "list"]).stdout.contains("2026-12-03 09:05"), "\(zone): shown as typed")
    }

    @Test("session list shows the sessions of live books, oldest first, by book and since a time")
    func sessionListFilters() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let first = try vault.succeed(["book", "add", "Middlemarch"]).line
        let second = try vault.succeed(["book", "add", "Persuasion"]).line
        let gone = try vault.succeed(["book", "add", "Gone"]).line
        let early = try vault.succeed(["session", "add", first, "--pages", "20", "--start", "2026-11-02 21:00", "--end", "2026-11-02 22:30"]).line
        let late = try vault.succeed(["session", "add", second, "--pages", "1", "--start", "2026-11-20 08:00", "--end", "2026-11-20 08:45"]).line
        let middle = try vault.succeed(["session", "add", first, "--pages", "5", "--start", "2026-11-10T23:50:00Z", "--end", "2026-11-11T00:20:00Z"]).line
        try vault.succeed(["session", "add", gone, "--pages", "3", "--start", "2026-11-12 10:00", "--end", "2026-11-12 10:10"])
        try vault.succeed(["delete", gone])

        let (earlyShown, lateShown, middleShown) = (try vault.short(early), try vault.short(late), try vault.short(middle))
        let listed = try vault.succeed(["session", "list"]).stdout
        #expect(listed == """
            \(earlyShown)  2026-11-02 21:00–22:30  1 h 30 min  20 pages  Middlemarch
            \(middleShown)  2026-11-10 23:50–2026-11-11 00:20  30 min  5 pages  Middlemarch
            \(lateShown)  2026-11-20 08:00–08:45  45 min  1 page  Persuasion

            """)
        let ofFirst = try #require(try vault.json(["session", "list", "--book", "Middle", "--json"]) as? [[String: Any]])
        #expect(ofFirst.map { $0["id"] as? String } == [early, middle])
        #expect(ofFirst.first?["bookTitle"] as? String == "Middlemarch")
        #expect(ofFirst.first?["startedAt"] as? String == "2026-11-02T21:00:00.000Z")
        let since = try #require(try vault.json(["session", "list", "--since", "2026-11-10 23:50", "--json"]) as? [[String: Any]])
        #expect(since.map { $0["id"] as? String } == [middle, late])

        let none = try vault.succeed(["session", "list", "--since", "2026-11-21"])
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "No sessions match.\n")
        #expect(try vault.run(["session", "list", "--since", "last tuesday"]).status == 64)
    }

    @Test("A session that would end in the future is refused in one line, and nothing is saved")
    func aFutureSessionIsRefused() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let result = try vault.run(["session", "add", book, "--pages", "5", "--start", "2030-01-01 10:00", "--end", "2030-01-01 11:00"])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: the session ends in the future; give the times it really started and ended\n")
        #expect(try vault.succeed(["session", "list"]).stderr == "No sessions yet.\n")
    }

    @Test("--start 23:00 --end 00:30 is a session of an hour and a half across midnight, never one in the future")
    func aSessionCrossesMidnight() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        try vault.succeed(["session", "add", book, "--pages", "30", "--start", "23:00", "--end", "00:30"])
        let sessions = try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]])
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let start = try #require(formatter.date(from: sessions.first?["startedAt"] as? String ?? ""))
        let end = try #require(formatter.date(from: sessions.first?["endedAt"] as? String ?? ""))
        #expect(end.timeIntervalSince(start) == 5_400)
        #expect(end <= Date())
        #expect(Date().timeIntervalSince(end) < 86_400)
        #expect((sessions.first?["endedAt"] as? String)?.hasSuffix("T00:30:00.000Z") == true)
    }

    @Test("delete takes several ids: all of them go, or, if one cannot, none")
    func deleteSeveralAllOrNothing() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let first = try vault.succeed(["note", "add", book, "first"]).line
        let second = try vault.succeed(["note", "add", book, "second"]).line
        let third = try vault.succeed(["quote", "add", book, "third", "--locator", "p. 3"]).line
        let unknown = "0000aaaa"

        // One id names nothing: nothing is deleted.
        let missing = try vault.run(["delete", first, unknown])
        #expect(missing.status == 66, "\(missing)")
        #expect(try vault.notes().count == 3)
        // The book would keep a quote: nothing is deleted, not even the notes named with it.
        let keeps = try vault.run(["delete", first, second, book])
        #expect(keeps.status == 65, "\(keeps)")
        #expect(try vault.notes().count == 3)

        let shown = [first: try vault.short(first), second: try vault.short(second), third: try vault.short(third), book: try vault.short(book)]
        let two = try vault.succeed(["delete", first, second])
        #expect(two.stderr == "Deleted note \(shown[first]!).\nDeleted note \(shown[second]!).\n")
        #expect(try vault.notes().map { $0["id"] as? String } == [third])
        // A book named with its last notes goes with them.
        let all = try vault.succeed(["delete", book, third])
        #expect(all.stderr == "Deleted book \(shown[book]!).\nDeleted quote \(shown[third]!).\n")
        #expect((try vault.json(["book", "list", "--json"]) as? [Any])?.isEmpty == true)
        #expect(try vault.run(["delete"]).status == 64)
    }

    @Test("edit --locator \"\" removes a note's locator; a quote keeps its own")
    func anEmptyLocatorRemovesANotesLocator() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let note = try vault.succeed(["note", "add", book, "a note", "--locator", "p. 8"]).line
        let quote = try vault.succeed(["quote", "add", book, "a quote", "--locator", "ch. 2"]).line

        try vault.succeed(["edit", note, "--locator", ""])
        let shown = try #require(try vault.json(["show", note, "--json"]) as? [String: Any])
        #expect(shown["locator"] is NSNull)
        #expect(shown["body"] as? String == "a note")
        #expect(shown["version"] as? Int == 2)

        let refused = try vault.run(["edit", quote, "--locator", ""])
        #expect(refused.status == 65)
        #expect(refused.stderr == "Error: a quote needs a locator (where it is from); only a note's can be removed\n")
        let kept = try #require(try vault.json(["show", quote, "--json"]) as? [String: Any])
        #expect(kept["locator"] as? String == "ch. 2")
        #expect(kept["version"] as? Int == 1)
    }

    @Test("An empty listing says so on standard error; its standard output stays empty, or [] with --json")
    func emptyListingsSaySo() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let none = try vault.succeed(["list"])
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "No notes or quotes yet.\n")
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        try vault.succeed(["note", "add", book, "a note"])
        let filtered = try vault.succeed(["list", "--kind", "quote"])
        #expect(filtered.stdout.isEmpty)
        #expect(filtered.stderr == "No notes or quotes match.\n")
        let searched = try vault.succeed(["search", "zeppelin"])
        #expect(searched.stdout.isEmpty)
        #expect(searched.stderr == "No notes or quotes match.\n")
        let json = try vault.succeed(["search", "zeppelin", "--json"])
        #expect(json.stdout == "[]\n")
        #expect(json.stderr.isEmpty)
        #expect(try vault.succeed(["list"]).stderr.isEmpty)
    }

    @Test("session edit corrects pages and times, keeping the session's day for a time of day, and refuses what a new session may not be")
    func sessionEditCorrectsASession() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let session = try vault.succeed(["session", "add", book, "--pages", "10", "--start", "2026-11-01 20:00", "--end", "2026-11-01 21:00"]).line

        let pages = try vault.succeed(["session", "edit", session, "--pages", "12"])
        #expect(pages.stderr == "Saved session \(try vault.short(session)) (version 2).\n")
        let same = try vault.succeed(["session", "edit", session, "--pages", "12"])
        #expect(same.stderr == "No change; nothing was saved.\n")
        // Nothing was written: the next change is version 3.
        #expect(try vault.succeed(["session", "edit", session, "--start", "19:45", "--end", "21:10"]).stderr == "Saved session \(try vault.short(session)) (version 3).\n")
        var shown = try #require(try vault.json(["show", session, "--json"]) as? [String: Any])
        #expect(shown["pagesRead"] as? Int == 12)
        #expect(shown["startedAt"] as? String == "2026-11-01T19:45:00.000Z")
        #expect(shown["endedAt"] as? String == "2026-11-01T21:10:00.000Z")
        // A start of day after the end crosses midnight.
        try vault.succeed(["session", "edit", session, "--start", "23:30", "--end", "00:15"])
        shown = try #require(try vault.json(["show", session, "--json"]) as? [String: Any])
        #expect(shown["startedAt"] as? String == "2026-10-31T23:30:00.000Z")
        #expect(shown["endedAt"] as? String == "2026-11-01T00:15:00.000Z")

        for (arguments, status, message) in [
            (["session", "edit", session], Int32(64), "Error: session edit needs --pages, --start or --end\n"),
            (["session", "edit", session, "--end", "2030-01-01"], 65, "Error: the session ends in the future; give the times it really started and ended\n"),
            (["session", "edit", session, "--end", "2026-10-01"], 65, "Error: the session ends before it starts\n"),
            (["session", "edit", session, "--pages", "-1"], 64, nil),
            (["session", "edit", book, "--pages", "1"], 65, nil),
        ] {
            let result = try vault.run(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            if let message { #expect(result.stderr == message) }
        }
        shown = try #require(try vault.json(["show", session, "--json"]) as? [String: Any])
        #expect(shown["pagesRead"] as? Int == 12)
        #expect(shown["endedAt"] as? String == "2026-11-01T00:15:00.000Z")
    }

    @Test("session delete (and delete) takes sessions out of every listing and count; an archive made before never brings one back")
    func sessionDeleteRemovesASession() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let note = try vault.succeed(["note", "add", book, "a note"]).line
        let first = try vault.succeed(["session", "add", book, "--pages", "10", "--start", "2026-11-01 20:00", "--end", "2026-11-01 21:00"]).line
        let second = try vault.succeed(["session", "add", book, "--pages", "5", "--start", "2026-11-02 20:00", "--end", "2026-11-02 20:30"]).line
        let third = try vault.succeed(["session", "add", book, "--pages", "1", "--start", "2026-11-03 20:00", "--end", "2026-11-03 20:05"]).line
        let before = vault.root.appendingPathComponent("before")
        try vault.succeed(["export", "--out", before.path])

        #expect(try vault.run(["session", "delete", first, note]).status == 65)   // not a session: nothing deleted
        let (firstShown, secondShown) = (try vault.short(first), try vault.short(second))
        let deleted = try vault.succeed(["session", "delete", first, second])
        #expect(deleted.stderr == "Deleted session \(firstShown).\nDeleted session \(secondShown).\n")
        try vault.succeed(["delete", third])
        #expect(try vault.succeed(["session", "list"]).stderr == "No sessions yet.\n")
        #expect(try vault.run(["show", first]).status == 66)
        #expect(try vault.run(["session", "edit", first, "--pages", "3"]).status == 66)
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect((status["counts"] as? [String: Any])?["sessions"] as? Int == 0)
        let details = try #require(try vault.json(["show", book, "--json"]) as? [String: Any])
        #expect((details["sessions"] as? [Any])?.isEmpty == true)

        let after = vault.root.appendingPathComponent("after")
        try vault.succeed(["export", "--out", after.path])
        let journal = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: after.appendingPathComponent("journal.json"))) as? [String: Any])
        #expect((journal["sessions"] as? [Any])?.isEmpty == true)
        let imported = try vault.succeed(["import", before.path, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        #expect((summary["added"] as? [String: Any])?["sessions"] as? Int == 0)
        #expect(try vault.succeed(["session", "list"]).stderr == "No sessions yet.\n")
    }

    @Test("A session changed on two devices: the later change wins on both, a deletion included, and an edit after a deletion brings it back")
    func sessionChangesOnTwoDevices() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        let book = try deviceA.succeed(["book", "add", "Middlemarch"]).line
        let first = try deviceA.succeed(["session", "add", book, "--pages", "10", "--start", "2026-11-01 20:00", "--end", "2026-11-01 21:00"]).line
        let second = try deviceA.succeed(["session", "add", book, "--pages", "5", "--start", "2026-11-02 20:00", "--end", "2026-11-02 20:30"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        // First: edited on A, then deleted on B. Second: deleted on B, then edited on A.
        try deviceA.succeed(["session", "edit", first, "--pages", "50"])
        try deviceB.succeed(["session", "delete", first])
        try deviceB.succeed(["session", "delete", second])
        try deviceA.succeed(["session", "edit", second, "--pages", "7"])
        try deviceA.succeed(["sync"])
        try deviceB.succeed(["sync"])
        try deviceA.succeed(["sync"])

        for device in [deviceA, deviceB] {
            let sessions = try #require(try device.json(["session", "list", "--json"]) as? [[String: Any]])
            #expect(sessions.map { $0["id"] as? String } == [second])
            #expect(sessions.first?["pagesRead"] as? Int == 7)
        }
    }

    @Test("session add takes --minutes (0 only when said); without a duration or a start it asks for one and saves nothing")
    func sessionMinutes() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let timed = try vault.succeed(["session", "add", book, "--pages", "20", "--minutes", "45", "--end", "2026-11-02 22:00"]).line
        let instant = try vault.succeed(["session", "add", book, "--pages", "3", "--minutes", "0", "--end", "2026-11-03 08:00"]).line
        let sessions = try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID[timed]?["startedAt"] as? String == "2026-11-02T21:15:00.000Z")
        #expect(byID[instant]?["startedAt"] as? String == byID[instant]?["endedAt"] as? String)
        for (arguments, message) in [
            (["session", "add", book, "--pages", "3"], "Error: session add needs --minutes M or --start TIME (--minutes 0 for a session without a duration)\n"),
            (["session", "add", book, "--pages", "3", "--minutes", "5", "--start", "-1h"], "Error: give --minutes or --start, not both\n"),
            (["session", "add", book, "--pages", "3", "--minutes", "-5"], "Error: --minutes takes a whole number of minutes from 0 to 10080 (a week)\n"),
        ] {
            let result = try vault.run(arguments)
            #expect(result.status == 64 && result.stderr == message, "\(arguments): \(result)")
        }
        #expect(try #require(try vault.json(["session", "list", "--json"]) as? [[String: Any]]).count == 2)
    }
}
