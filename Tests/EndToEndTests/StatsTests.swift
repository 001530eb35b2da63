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
        #expect(plain.contains("  sessions: 2, 70 pages, 1h 45m; on average 35 pages and 53m a session\n"), "\(plain)")
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
