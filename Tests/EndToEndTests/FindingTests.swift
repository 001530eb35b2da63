import Foundation
import Testing

/// Issue 21, finding things, through the built binary: `list` filters and orders, `search`
/// by words, phrases and folded text with its filters, BOOK by part of a title or author,
/// and an ambiguous BOOK offered as a choice at a terminal.
@Suite("Finding things", .serialized)
struct FindingTests {
    /// A vault with two books and four notes; returns it and the notes' short ids (as
    /// listings show them) by name.
    func library() throws -> (TestVault, [String: String]) {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Les Misérables", "--author", "Victor Hugo"])
        try vault.succeed(["book", "add", "Dune", "--author", "Frank Herbert"])
        var ids: [String: String] = [:]
        for (name, arguments) in [("bishop", ["note", "add", "miserables", "The bishop's candlesticks", "--locator", "p. 120"]),
                                  ("bridge", ["quote", "add", "hugo", "Javert on the bridge", "--locator", "p. 9"]),
                                  ("spice", ["quote", "add", "herbert", "The spice must flow", "--locator", "ch. 2"]),
                                  ("flow", ["note", "add", "dune", "Flow of the spice trade, the must of empire"])] {
            ids[name] = try vault.short(try vault.succeed(arguments).line)
        }
        return (vault, ids)
    }

    func listedIDs(_ result: CommandResult) -> [String] {
        result.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { String($0.prefix { $0 != " " }) }
    }

    @Test("search: every word, in any order, in the note, its locator, title or author; accents and case folded; phrase first")
    func searchWords() throws {
        let (vault, ids) = try library()
        #expect(listedIDs(try vault.succeed(["search", "MISERABLES bishop"])) == [ids["bishop"]!])
        #expect(listedIDs(try vault.succeed(["search", "hugo \"p. 9\""])) == [ids["bridge"]!])
        #expect(listedIDs(try vault.succeed(["search", "the must"])) == [ids["flow"]!, ids["spice"]!])
        #expect(listedIDs(try vault.succeed(["search", "the must", "--kind", "quote"])) == [ids["spice"]!])
        #expect(listedIDs(try vault.succeed(["search", "the", "--book", "misérables"])) == [ids["bishop"]!, ids["bridge"]!])
        #expect(listedIDs(try vault.succeed(["search", "the", "--since", "today"])).count == 4)
        let none = try vault.succeed(["search", "the", "--since", "2099-01-01"])
        #expect(none.stdout.isEmpty && none.stderr == "No notes or quotes match.\n")

        // Not at a terminal, no escapes; at one, the matches in bold.
        #expect(!(try vault.succeed(["search", "spice"])).stdout.contains("\u{1B}["))
        var terminal = vault.environment
        terminal["TERM"] = "xterm"
        terminal["NO_COLOR"] = nil
        let shown = try Terminal.run(["search", "spice"], answers: [], environment: terminal)
        #expect(shown.stdout.contains("The \u{1B}[1;4mspice\u{1B}[0m must flow"), "\(shown)")
        var plain = terminal
        plain["NO_COLOR"] = "1"
        #expect(!(try Terminal.run(["search", "spice"], answers: [], environment: plain)).stdout.contains("\u{1B}["))

        for arguments in [["search", "\"\""], ["search", "x", "--kind", "poem"], ["search", "x", "--since", "soon"],
                          ["search", (0...32).map { "w\($0)" }.joined(separator: " ")]] {
            let result = try vault.run(arguments)
            #expect(result.status == 64 || result.status == 65, "\(arguments): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
    }

    @Test("list: --since, --until, --on, -n and --sort; headers show when a note was created and edited")
    func listFilters() throws {
        let (vault, ids) = try library()
        let all = [ids["bishop"]!, ids["bridge"]!, ids["spice"]!, ids["flow"]!]
        #expect(listedIDs(try vault.succeed(["list"])) == all)
        #expect(listedIDs(try vault.succeed(["list", "--since", "today"])) == all)
        #expect(listedIDs(try vault.succeed(["list", "--on", "this week"])) == all)
        #expect(listedIDs(try vault.succeed(["list", "--since", "-1h", "--until", "today"])) == all)
        #expect(listedIDs(try vault.succeed(["list", "--until", "yesterday"])).isEmpty)
        #expect(listedIDs(try vault.succeed(["list", "--on", "2020-01-01"])).isEmpty)
        #expect(listedIDs(try vault.succeed(["list", "-n", "2", "--sort", "created"])) == [ids["spice"]!, ids["flow"]!])
        #expect(listedIDs(try vault.succeed(["list", "--sort", "book"])) == [ids["spice"]!, ids["flow"]!, ids["bishop"]!, ids["bridge"]!])
        #expect(listedIDs(try vault.succeed(["list", "--sort", "locator", "--book", "hugo"])) == [ids["bridge"]!, ids["bishop"]!])
        let json = try #require(try vault.json(["list", "--kind", "quote", "--json", "-n", "1"]) as? [[String: Any]])
        #expect(try json.map { try vault.short(try #require($0["id"] as? String)) } == [ids["spice"]!], "--json gives full ids")
        #expect(json.allSatisfy { ($0["id"] as? String)?.count == 36 })

        // Created, and edited when that differs (a minute later at the least, as shown).
        let header = try vault.succeed(["list", "--book", "dune"]).stdout.split(separator: "\n")[0]
        #expect(header.contains(" quote  ") && !header.contains("edited"), "\(header)")

        for (arguments, message) in [(["list", "--on", "-7d"], "Error: --on takes a day or a week: today, yesterday, this week, last week or YYYY-MM-DD\n"),
                                     (["list", "-n", "0"], "Error: -n takes a whole number of entries, 1 or more\n"),
                                     (["list", "--sort", "title"], "Error: --sort takes created, updated, book or locator\n"),
                                     (["list", "--since", "someday"], nil)] {
            let result = try vault.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            if let message { #expect(result.stderr == message) }
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("BOOK by part of a title or an author; ambiguous: ids only in a script, a choice at a terminal")
    func bookByPartAndChoice() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let dune = try vault.succeed(["book", "add", "Dune", "--author", "Frank Herbert"]).line
        let messiah = try vault.succeed(["book", "add", "Dune Messiah", "--author", "Frank Herbert"]).line
        try vault.succeed(["note", "add", "messiah", "by a part of the title"])
        #expect(try vault.succeed(["list", "--book", messiah]).stdout.contains("by a part of the title"))

        let ambiguous = try vault.run(["note", "add", "herbert", "which one?"])
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr == "Error: BOOK matches 2 books; name one by id: \([dune, messiah].sorted().joined(separator: ", "))\n")
        #expect(!ambiguous.stderr.contains("Dune"), "titles stay off a script's standard error")

        let chosen = try Terminal.run(["note", "add", "herbert", "the second one"], answers: [("Which one? [1-2, or Enter for none]: ", "2")],
                                      environment: vault.environment)
        #expect(chosen.status == 0, "\(chosen)")
        #expect(chosen.stdout.contains("  1  Dune — Frank Herbert  (\(try vault.short(dune)))"), "\(chosen)")
        #expect(chosen.stdout.contains("  2  Dune Messiah — Frank Herbert  (\(try vault.short(messiah)))"))
        #expect(try vault.succeed(["list", "--book", messiah]).stdout.contains("the second one"))

        let declined = try Terminal.run(["note", "add", "herbert", "none"], answers: [("Which one? [1-2, or Enter for none]: ", "")],
                                        environment: vault.environment)
        #expect(declined.status == 64, "\(declined)")
        #expect(try vault.succeed(["list"]).stdout.components(separatedBy: "\n").filter { $0 == "    none" }.isEmpty)
    }
}
