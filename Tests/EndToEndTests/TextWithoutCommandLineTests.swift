import Foundation
import Testing

/// Issue 22, titles and queries given without the command line (out of the shell's
/// history): `book add` asks for the title or reads `--title-stdin`, `search` asks for its
/// words or reads them piped; a title already in the journal is asked about or warned of.
@Suite("Titles and queries off the command line", .serialized)
struct TextWithoutCommandLineTests {
    func titles(_ vault: TestVault) throws -> [String] {
        try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]]).compactMap { $0["title"] as? String }
    }

    @Test("book add reads --title-stdin, asks at a terminal, and is exit 64 with neither")
    func bookAddWithoutTitle() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let piped = try vault.succeed(["book", "add", "--title-stdin", "--author", "Stanisław Lem"], stdin: "Solaris\nignored\n")
        #expect(piped.line.count == 36)
        #expect(try titles(vault) == ["Solaris"])

        let asked = try Terminal.run(["book", "add"], answers: [("Title: ", "The Left Hand of Darkness"), ("Author (Enter when done): ", "Ursula K. Le Guin"),
                                                               ("Author (Enter when done): ", "")], environment: vault.environment)
        #expect(asked.status == 0, "\(asked)")
        let books = try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]])
        #expect(books.first { $0["title"] as? String == "The Left Hand of Darkness" }?["authors"] as? [String] == ["Ursula K. Le Guin"])

        let neither = try vault.run(["book", "add"])
        #expect(neither.status == 64 && neither.stderr.hasPrefix("Error: book add needs TITLE, or --title-stdin"), "\(neither)")
        let both = try vault.run(["book", "add", "Dune", "--title-stdin"], stdin: "Dune\n")
        #expect(both.status == 64, "\(both)")
        #expect(try titles(vault).count == 2, "nothing was added by the refused ones")
    }

    @Test("A title already in the journal is warned about off a terminal (by short id), asked about at one")
    func duplicateTitle() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let first = try vault.succeed(["book", "add", "Dune"]).line
        let again = try vault.succeed(["book", "add", "DUNE"])
        #expect(again.stderr == "Warning: the journal already had 1 book with this title (\(try vault.short(first))); added another.\n", "\(again)")
        #expect(try titles(vault).count == 2)

        let declined = try Terminal.run(["book", "add", "dune"], answers: [("Add another? [y/N] ", "n")], environment: vault.environment)
        #expect(declined.status == 1 && declined.stdout.contains("The journal already has 2 books with this title ("), "\(declined)")
        #expect(try titles(vault).count == 2, "declined: nothing added")
        let accepted = try Terminal.run(["book", "add", "Dune"], answers: [("Add another? [y/N] ", "y")], environment: vault.environment)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try titles(vault).count == 3)
    }

    @Test("search without QUERY reads it piped, or asks at a terminal")
    func searchWithoutQuery() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune"])
        let note = try vault.succeed(["note", "add", "dune", "The spice must flow"]).line
        try vault.succeed(["note", "add", "dune", "Sand everywhere"])
        let piped = try #require(try JSONSerialization.jsonObject(with: Data(try vault.succeed(["search", "--json"], stdin: "spice\n").stdout.utf8))
                                 as? [[String: Any]])
        #expect(piped.compactMap { $0["id"] as? String } == [note])
        let asked = try Terminal.run(["search"], answers: [("Search: ", "spice")], environment: vault.environment)
        #expect(asked.status == 0 && asked.stdout.contains("The spice must flow") && !asked.stdout.contains("Sand"), "\(asked)")
    }
}
