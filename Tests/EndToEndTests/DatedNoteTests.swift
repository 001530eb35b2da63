import Foundation
import Testing

/// Issue 41, item 7: a note or quote dated with `--on` (the times `session add --start`
/// takes, never in the future) is listed, exported and synced with that time, and `edit --on`
/// corrects it.
@Suite("Dated notes", .serialized)
struct DatedNoteTests {
    private func createdAt(_ id: String, on device: TestVault, sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let shown = try #require(try device.json(["show", id, "--json"], sourceLocation: sourceLocation) as? [String: Any],
                                 sourceLocation: sourceLocation)
        return shown["createdAt"] as? String
    }

    @Test("note add and quote add --on date the entry; listings, the export and another device show that time")
    func datedNotesAreListedExportedAndSynced() throws {
        let world = try SyncWorld()
        let a = world.first
        try a.succeed(["book", "add", "Middlemarch"])
        let note = try a.succeed(["note", "add", "Middlemarch", "Dorothea's choice.", "--on", "2026-11-15 21:30"]).line
        let quote = try a.succeed(["quote", "add", "Middlemarch", "A finer sense.", "--locator", "p. 8", "--on", "2025-01-02"]).line
        #expect(try createdAt(note, on: a) == "2026-11-15T21:30:00.000Z")
        #expect(try createdAt(quote, on: a) == "2025-01-02T00:00:00.000Z")
        // Not edited since: the listing says no "(edited ...)".
        #expect(try a.succeed(["list"]).stdout.contains("2026-11-15 21:30  Middlemarch"))

        // Listed in that order, and found by a date filter on that day only.
        let sorted = try #require(try a.json(["list", "--sort", "created", "--json"]) as? [[String: Any]])
        #expect(sorted.map { $0["id"] as? String } == [quote, note])
        let thatDay = try #require(try a.json(["list", "--on", "2026-11-15", "--json"]) as? [[String: Any]])
        #expect(thatDay.map { $0["id"] as? String } == [note])

        // The export carries the time, in journal.json and in the book's Markdown.
        let archive = a.root.appendingPathComponent("archive")
        try a.succeed(["export", "--out", archive.path])
        let journal = try String(contentsOf: archive.appendingPathComponent("journal.json"), encoding: .utf8)
        #expect(journal.contains("\"createdAt\" : \"2026-11-15T21:30:00.000Z\"") || journal.contains("\"createdAt\": \"2026-11-15T21:30:00.000Z\""),
                "\(journal)")
        let books = try FileManager.default.contentsOfDirectory(atPath: archive.appendingPathComponent("books").path)
        let markdown = try String(contentsOf: archive.appendingPathComponent("books").appendingPathComponent(try #require(books.first)),
                                  encoding: .utf8)
        #expect(markdown.contains("2026-11-15"), "\(markdown)")

        // Another device has the same time; an edit --on there comes back.
        try a.succeed(["sync"])
        let b = try world.join()
        #expect(try createdAt(note, on: b) == "2026-11-15T21:30:00.000Z")
        let edited = try b.succeed(["edit", note, "--on", "yesterday 08:00"])
        #expect(edited.stderr.hasPrefix("Saved note"), "\(edited)")
        let moved = try #require(try createdAt(note, on: b))
        #expect(moved.hasSuffix("T08:00:00.000Z"))
        #expect(try b.succeed(["show", note]).stdout.contains("Dorothea's choice."))
        try b.succeed(["sync"])
        try a.succeed(["sync"])
        #expect(try createdAt(note, on: a) == moved)

        // The same time again changes nothing.
        let again = try a.succeed(["edit", note, "--on", moved])
        #expect(again.stderr == "No change; nothing was saved.\n")
    }

    @Test("--on in the future, or not a time, is refused in one line, and nothing is saved")
    func futureAndMalformedDatesAreRefused() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Middlemarch"])
        let note = try vault.succeed(["note", "add", "Middlemarch", "Kept as it was."]).line
        let before = try createdAt(note, on: vault)
        for (arguments, status) in [(["note", "add", "Middlemarch", "Later.", "--on", "2999-01-01"], Int32(65)),
                                    (["quote", "add", "Middlemarch", "Later.", "--locator", "p. 1", "--on", "2999-01-01"], 65),
                                    (["edit", note, "--on", "2999-01-01"], 65),
                                    (["note", "add", "Middlemarch", "Later.", "--on", "soon"], 64)] {
            let result = try vault.run(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
        #expect(try vault.run(["note", "add", "Middlemarch", "x", "--on", "2999-01-01"]).stderr
                    == "Error: --on is in the future; give the day it was written (nothing was saved)\n")
        let listed = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(try createdAt(note, on: vault) == before)
    }
}
