import Foundation
import Testing

/// Issue 21, `stats` through the built binary (TZ=UTC, as every end-to-end test runs).
@Suite("stats", .serialized)
struct StatsTests {
    @Test("stats adds up sessions and finishes, by week, month, year and book; --year and --since narrow it")
    func stats() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let middlemarch = try vault.succeed(["book", "add", "Middlemarch"]).line
        try vault.succeed(["book", "add", "Dune"])
        try vault.succeed(["session", "add", "middlemarch", "--pages", "30", "--start", "2025-03-02 20:00", "--end", "2025-03-02 21:00"])
        try vault.succeed(["session", "add", "middlemarch", "--pages", "40", "--start", "2025-03-03 20:00", "--end", "2025-03-03 20:45"])
        try vault.succeed(["session", "add", "dune", "--pages", "10", "--start", "yesterday 21:00", "--end", "yesterday 21:20"])
        try vault.succeed(["book", "finish", "middlemarch", "--on", "2025-03-04"])

        let all = try #require(try vault.json(["stats", "--json"]) as? [String: Any])
        #expect(all["sessions"] as? Int == 3 && all["pages"] as? Int == 80 && all["minutes"] as? Int == 125)
        #expect(all["longestStreak"] as? Int == 2 && all["currentStreak"] as? Int == 1)
        #expect((all["finishedPerYear"] as? [[String: Any]])?.first?["year"] as? Int == 2025)
        let books = try #require(all["books"] as? [[String: Any]])
        #expect(books.first?["bookId"] as? String == middlemarch && books.first?["title"] as? String == "Middlemarch")
        #expect(((all["weeks"] as? [[String: Any]])?.count ?? 0) > 52, "every week from March 2025 to now")

        let year = try #require(try vault.json(["stats", "--year", "2025", "--json"]) as? [String: Any])
        #expect(year["sessions"] as? Int == 2 && year["pages"] as? Int == 70)
        #expect((year["months"] as? [[String: Any]])?.count == 12, "the whole year")
        let recent = try #require(try vault.json(["stats", "--since", "-7d", "--json"]) as? [String: Any])
        #expect(recent["sessions"] as? Int == 1 && (recent["finishedPerYear"] as? [Any])?.isEmpty == true)

        // Piped: plain numbers, no chart characters; at a terminal, a sparkline and bars.
        let plain = try vault.succeed(["stats", "--year", "2025"]).stdout
        #expect(plain.contains("  sessions: 2, 70 pages, 1 h 45 min; on average 35 pages and 53 min a session\n"), "\(plain)")
        #expect(plain.contains("  finished: 1 in 2025\n") && plain.contains("  2025-03  ") && !plain.contains("█"))
        var terminal = vault.environment
        terminal["TERM"] = "xterm"
        terminal["NO_COLOR"] = nil
        let charted = try Terminal.run(["stats"], answers: [], environment: terminal)
        #expect(charted.status == 0 && charted.stdout.contains("█"), "\(charted)")

        for arguments in [["stats", "--year", "1850"], ["stats", "--year", "soon"], ["stats", "--since", "someday"]] {
            let result = try vault.run(arguments)
            #expect(result.status == 64 && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result)")
        }
        let none = try vault.succeed(["stats", "--year", "2001"])
        #expect(none.stdout == "No reading sessions or finished books in 2001.\n")
    }
}

/// Issue 21, `bmvault` alone: a home screen in an unlocked vault with books, the help anywhere else.
@Suite("The home screen", .serialized)
struct HomeScreenTests {
    @Test("bmvault alone shows the books being read and the latest notes; without books, locked or without a vault, the help")
    func home() throws {
        let vault = try TestVault()
        let noVault = try vault.succeed([])
        #expect(noVault.stdout.hasPrefix("OVERVIEW: An encrypted, offline-first reading journal."))
        try vault.createUnlocked()
        #expect(try vault.succeed([]).stdout.hasPrefix("OVERVIEW:"), "no books yet")

        try vault.succeed(["book", "add", "Middlemarch", "--author", "George Eliot"])
        try vault.succeed(["book", "add", "Dune"])
        try vault.succeed(["book", "start", "middlemarch", "--on", "2026-11-20"])
        for index in 1...7 { try vault.succeed(["note", "add", "dune", "note \(index)\nsecond line"]) }
        try vault.succeed(["quote", "add", "middlemarch", String(repeating: "long words ", count: 10), "--locator", "ch. 2"])
        let home = try vault.succeed([])
        #expect(home.stdout.hasPrefix("Currently reading\n  Middlemarch — George Eliot  0%, since 2026-11-20\n"), "\(home)")
        #expect(home.stdout.contains("Latest notes and quotes\n"))
        #expect(home.stdout.contains("  quote  Middlemarch · ch. 2\n      " + String(String(repeating: "long words ", count: 10).prefix(60)) + "…\n"))
        #expect(home.stdout.contains("      note 7\n") && home.stdout.contains("      note 4\n") && !home.stdout.contains("note 3\n"))
        #expect(!home.stdout.contains("second line") && home.stdout.hasSuffix("`bmvault help` lists every command.\n"))
        #expect(home.stderr.isEmpty)
        // The help is still one command away.
        #expect(try vault.succeed(["help"]).stdout.hasPrefix("OVERVIEW:"))

        try vault.succeed(["lock"])
        let locked = try vault.succeed([])
        #expect(locked.stdout.hasPrefix("OVERVIEW:") && !locked.stdout.contains("Middlemarch"))
    }
}
