import Foundation
import Testing

/// Issue 21, fixing mistakes: `move ID --to BOOK` and `edit ID --kind`, through the built
/// binary: the counts follow, a quote keeps a locator, several ids move together or not at
/// all, the archive carries the new place, and on two devices a move meets an edit made
/// elsewhere without losing either.
@Suite("Moving notes and changing their kind", .serialized)
struct MoveEndToEndTests {
    func counts(_ device: TestVault) throws -> [String: [Int]] {
        let listed = try #require(try device.json(["book", "list", "--json"]) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: listed.map { book in
            (book["title"] as? String ?? "?", [book["notes"] as? Int ?? -1, book["quotes"] as? Int ?? -1])
        })
    }

    @Test("A note moves to another book and becomes a quote; bad input changes nothing")
    func moveAndKind() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let solaris = try vault.succeed(["book", "add", "Solaris"]).line
        let dune = try vault.succeed(["book", "add", "Dune"]).line
        let first = try vault.succeed(["note", "add", "solaris", "written under the wrong book", "--locator", "p. 12"]).line
        let second = try vault.succeed(["note", "add", "solaris", "this one too"]).line

        let moved = try vault.succeed(["move", first, second, "--to", "dune"])
        let (firstShown, secondShown, duneShown) = (try vault.short(first), try vault.short(second), try vault.short(dune))
        #expect(moved.stderr == "Moved note \(firstShown) to book \(duneShown).\nMoved note \(secondShown) to book \(duneShown).\n", "\(moved)")
        #expect(try counts(vault) == ["Solaris": [0, 0], "Dune": [2, 0]])
        #expect(try vault.succeed(["list", "--book", "dune", "--json"]).stdout.contains("written under the wrong book"))
        #expect(try vault.succeed(["move", first, "--to", dune]).stderr == "Already in that book; nothing was changed.\n")

        // All or none: an id that names no note moves nothing.
        let refused = try vault.run(["move", first, "0000aaaa", "--to", "solaris"])
        #expect(refused.status == 66, "\(refused)")
        let wrongKind = try vault.run(["move", first, solaris, "--to", "solaris"])
        #expect(wrongKind.status == 65, "\(wrongKind)")
        let noBook = try vault.run(["move", first])
        #expect(noBook.status == 64 && noBook.stderr == "Error: move needs --to BOOK\n", "\(noBook)")
        #expect(try counts(vault) == ["Solaris": [0, 0], "Dune": [2, 0]])

        #expect(try vault.succeed(["edit", first, "--kind", "quote"]).stderr.hasPrefix("Saved quote \(firstShown) (version "))
        #expect(try counts(vault)["Dune"] == [1, 1])
        let noLocator = try vault.run(["edit", second, "--kind", "quote"])
        #expect(noLocator.status == 65 && noLocator.stderr.contains("a quote needs a locator"), "\(noLocator)")
        try vault.succeed(["edit", second, "--kind", "quote", "--locator", "ch. 2"])
        #expect(try vault.succeed(["edit", second, "--kind", "quote"]).stderr == "No change; nothing was saved.\n")
        try vault.succeed(["edit", first, "--kind", "note"])
        #expect(try counts(vault)["Dune"] == [1, 1])
        try vault.succeed(["check"])

        // The archive carries the new place, and an import into the vault it came from changes nothing.
        let archive = vault.root.appendingPathComponent("archive").path
        try vault.succeed(["export", "--out", archive])
        let restored = try TestVault()
        try restored.createUnlocked()
        try restored.succeed(["import", archive])
        #expect(try counts(restored) == ["Solaris": [0, 0], "Dune": [1, 1]])
        let again = try vault.succeed(["import", archive])
        #expect(try counts(vault) == ["Solaris": [0, 0], "Dune": [1, 1]], "\(again)")
    }

    @Test("Moved on one device, edited on the other: both versions are kept and the reader is told; a move to a book made on a third device waits for it")
    func twoDevices() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        try deviceA.succeed(["book", "add", "Solaris"])
        let dune = try deviceA.succeed(["book", "add", "Dune"]).line
        let id = try deviceA.succeed(["note", "add", "solaris", "first words"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        try deviceA.succeed(["move", id, "--to", dune])
        try deviceB.succeed(["edit", id, "second words"])
        for device in [deviceA, deviceB, deviceA] { try device.succeed(["sync"]) }
        for device in [deviceA, deviceB] {
            let listed = try #require(try device.json(["list", "--json"]) as? [[String: Any]])
            let texts = Set(listed.compactMap { $0["body"] as? String })
            #expect(texts == ["first words", "second words"], "neither the move nor the edit is lost: \(listed)")
            let conflicts = try #require(try device.json(["conflicts", "--json"]) as? [[String: Any]])
            #expect(conflicts.count == 1, "the reader is told: \(conflicts)")
            // Each version keeps its own book: the moved words are in Dune, the edited in Solaris.
            let inDune = try #require(try device.json(["list", "--book", dune, "--json"]) as? [[String: Any]])
            #expect(inDune.compactMap { $0["body"] as? String } == ["first words"], "\(inDune)")
        }

        // A book made on a third device, and a note moved into it there: a device that gets
        // the move first waits for the book, then shows the note in it.
        let deviceC = try world.join()
        let simple = try deviceC.succeed(["book", "add", "A Simple Story"]).line
        try deviceC.succeed(["move", id, "--to", simple])
        try deviceC.succeed(["sync"])
        try deviceA.succeed(["sync"])
        try deviceB.succeed(["sync"])
        for device in [deviceA, deviceB] {
            let listed = try #require(try device.json(["list", "--book", simple, "--json"]) as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == [id], "\(listed)")
        }
    }
}
