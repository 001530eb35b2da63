import Foundation
import Testing

/// Issue 21: `delete BOOK --with-notes`, `trash` and `undelete`, through the built binary.
@Suite("Trash and undelete", .serialized)
struct TrashTests {
    @Test("A book goes with its notes only with --with-notes (asked at a terminal, --yes in a script); trash lists it; undelete brings it back")
    func deleteWithNotesAndUndelete() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch"]).line
        let note = try vault.succeed(["note", "add", book, "Dorothea's choice."]).line
        let quote = try vault.succeed(["quote", "add", book, "A quote.", "--locator", "ch. 1"]).line
        let session = try vault.succeed(["session", "add", book, "--pages", "12", "--start", "-1h"]).line
        let (bookShown, noteShown) = (try vault.short(book), try vault.short(note))
        #expect(try vault.succeed(["trash"]).stderr == "Nothing deleted can be brought back.\n")

        // Without --with-notes: refused, as before. In a script without --yes: refused too.
        #expect(try vault.run(["delete", book]).status == 65)
        let script = try vault.run(["delete", book, "--with-notes"])
        #expect(script.status == 64 && script.stderr == "Error: --with-notes asks at a terminal; from a script, add --yes\n")
        #expect(try vault.run(["delete", note, "--yes"]).status == 64)

        // At a terminal, answering no deletes nothing.
        let declined = try Terminal.run(["delete", book, "--with-notes"], answers: [("[y/N] ", "n")], environment: vault.environment)
        #expect(declined.status == 1, "\(declined)")
        #expect(declined.stdout.contains("Book \(bookShown) (Middlemarch) has 1 note, 1 quote.\n"))
        #expect(try vault.succeed(["list"]).stdout.contains("Dorothea's choice."))
        let confirmed = try Terminal.run(["delete", book, "--with-notes"], answers: [("[y/N] ", "y")], environment: vault.environment)
        #expect(confirmed.status == 0, "\(confirmed)")
        #expect(try vault.succeed(["book", "list"]).stdout.isEmpty)
        #expect(try vault.succeed(["list"]).stdout.isEmpty)

        let trash = try vault.succeed(["trash"])
        #expect(trash.stdout.contains("Books\n  \(bookShown)  Middlemarch  (deleted "), "the trash names records by their short ids")
        #expect(trash.stdout.contains("Dorothea's choice.") && trash.stdout.contains("A quote."))
        #expect(trash.stderr.contains("kept at most 90 days"))
        let json = try #require(try vault.json(["trash", "--json"]) as? [String: Any])
        #expect((json["annotations"] as? [[String: Any]])?.count == 2 && (json["books"] as? [[String: Any]])?.count == 1)
        #expect(json["retentionDays"] as? Int == 90)

        // A note brings its book back; the session comes back with it too when named.
        #expect(try vault.succeed(["undelete", note]).stderr == "Brought back note \(noteShown).\n")
        #expect(try vault.succeed(["book", "list"]).stdout.contains("Middlemarch"))
        #expect(try vault.succeed(["list"]).stdout.contains("Dorothea's choice.") )
        #expect(!(try vault.succeed(["list"]).stdout.contains("A quote.")))
        try vault.succeed(["undelete", quote])
        #expect(try vault.succeed(["list"]).stdout.contains("A quote."))
        #expect(try vault.succeed(["trash"]).stderr == "Nothing deleted can be brought back.\n")
        _ = session

        // Bad input: one line, non-zero, nothing changed.
        for (arguments, status) in [(["undelete", note], Int32(66)), (["undelete", "zz"], 64), (["undelete"], 64)] {
            let result = try vault.run(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("Error: "), "\(result)")
        }
    }

    /// In a vault that syncs, a deletion's text goes once every device has the deletion
    /// (Docs/SYNC.md, Tombstones): until then `undelete` works on any device that has it.
    @Test("Deleted sessions come back; a script deletes a book with its notes with --yes; an undelete syncs")
    func sessionsScriptsAndSync() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        let book = try deviceA.succeed(["book", "add", "Dune"]).line
        let note = try deviceA.succeed(["note", "add", book, "The spice."]).line
        let session = try deviceA.succeed(["session", "add", book, "--pages", "12", "--start", "-1h"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        try deviceA.succeed(["session", "delete", session])
        try deviceA.succeed(["undelete", session])
        #expect(try deviceA.succeed(["session", "list"]).stdout.hasPrefix(try deviceA.short(session) + "  "))
        let (noteShown, bookShown) = (try deviceA.short(note), try deviceA.short(book))
        let deleted = try deviceA.succeed(["delete", book, "--with-notes", "--yes"])
        #expect(deleted.stderr == "Deleted note \(noteShown).\nDeleted book \(bookShown).\n", "\(deleted)")
        try deviceA.succeed(["sync"])
        // B takes the deletion in, and undoes it before A learns that B has it.
        try deviceB.succeed(["sync"])
        #expect(try deviceB.succeed(["list"]).stdout.isEmpty)
        #expect(try deviceB.succeed(["trash"]).stdout.contains("The spice."))
        try deviceB.succeed(["undelete", note])
        try deviceB.succeed(["sync"])
        try deviceA.succeed(["sync"])
        for device in [deviceA, deviceB] {
            #expect(try device.succeed(["list"]).stdout.contains("The spice."))
            #expect(try device.succeed(["book", "list"]).stdout.contains("Dune"))
        }
    }
}
