import Foundation
import Testing

/// Issue 20, first steps: `import` tells a Kindle's My Clippings.txt, a KOReader sidecar and
/// a Goodreads export by their content, and `--dry-run` says what each holds; adding them to
/// a vault is not built yet, and says so.
@Suite struct OtherProgramsImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/importers/kindle")

    @Test func aDryRunSaysWhatTheClippingsHoldAndChangesNothing() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let file = Self.fixtures.appendingPathComponent("hadynz__first-scenario.txt").path
        let dry = try vault.succeed(["import", "--dry-run", file])
        #expect(dry.stdout.hasPrefix("Dry run: nothing was changed. Found Kindle clippings (My Clippings.txt): 2 books.\n"), "\(dry)")
        #expect(dry.stdout.contains("  1984 — Orwell, George: 1 quote (1 note on them), 1 note\n"), "\(dry)")
        #expect(dry.stdout.contains("Would add:  4 quotes with 1 note on them, 1 note of their own\n"), "\(dry)")
        #expect(dry.stdout.contains("Would merge: 1 re-highlight into the quotes they repeat"), "\(dry)")
        let json = try #require(try vault.json(["import", "--dry-run", "--json", file]) as? [String: Any])
        #expect(json["format"] as? String == "kindle" && json["quotes"] as? Int == 4 && json["dryRun"] as? Bool == true)
        let real = try vault.run(["import", file])
        #expect(real.status == 69 && real.stderr.split(separator: "\n").count == 1, "\(real)")
        #expect(real.stderr.hasPrefix("Error: this is Kindle clippings (My Clippings.txt): bmvault "), "\(real)")
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before)
    }

    /// A KOReader sidecar in either layout says the same of the same book.
    @Test func aKOReaderSidecarInEitherLayoutSaysTheSame() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let folder = Self.fixtures.deletingLastPathComponent().appendingPathComponent("koreader")
        let new = try vault.succeed(["import", "--dry-run", folder.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua").path])
        let old = try vault.succeed(["import", "--dry-run", folder.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua.old").path])
        #expect(new.stdout.contains("in the 2024 layout.\n") && old.stdout.contains("in the layout before 2024.\n"))
        let body = { (text: String) in text.split(separator: "\n").dropFirst() }
        #expect(body(new.stdout) == body(old.stdout), "\(new)\n\(old)")
        #expect(new.stdout.contains("  The Prophet — Khalil Gibran, 19% read, reading\nWould add:  3 quotes with 1 note on them\n"), "\(new)")
        let real = try vault.run(["import", folder.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua").path])
        #expect(real.status == 69 && real.stderr.hasPrefix("Error: this is a KOReader sidecar (metadata.lua): "), "\(real)")
    }

    /// A device's folder: every book's sidecar, its `.lua.old` backup only where the live file
    /// is missing, links not followed.
    @Test func aFolderOfKOReaderSidecars() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let sources = Self.fixtures.deletingLastPathComponent().appendingPathComponent("koreader")
        let device = vault.root.appendingPathComponent("koreader-device")
        let prophet = device.appendingPathComponent("books/Gibran/The Prophet.sdr")
        let frankenstein = device.appendingPathComponent("books/Frankenstein.sdr")
        for folder in [prophet, frankenstein] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(at: sources.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua"), to: prophet.appendingPathComponent("metadata.epub.lua"))
        try FileManager.default.copyItem(at: sources.appendingPathComponent("noted__the_prophet.sdr__metadata.epub.lua.old"), to: prophet.appendingPathComponent("metadata.epub.lua.old"))
        try FileManager.default.copyItem(at: sources.appendingPathComponent("noted__pg42324.sdr__metadata.epub.lua.old"), to: frankenstein.appendingPathComponent("metadata.epub.lua.old"))
        try "not a sidecar".write(to: device.appendingPathComponent("books/notes.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: device.appendingPathComponent("loop"), withDestinationURL: device)
        let dry = try vault.succeed(["import", "--dry-run", device.path])
        #expect(dry.stdout == """
            Dry run: nothing was changed. Found 2 KOReader sidecars.
              Frankenstein: 4 quotes
              The Prophet: 3 quotes
            Would add:  7 quotes with 2 notes on them
            Would count only: 2 page bookmarks (progress hints)

            """, "\(dry)")
        #expect(try vault.run(["import", device.path]).status == 69)
    }

    @Test func aGoodreadsExportByShelf() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = Self.fixtures.deletingLastPathComponent().appendingPathComponent("goodreads/aaronj1335__goodreads_library_export.csv").path
        let dry = try vault.succeed(["import", "--dry-run", file])
        #expect(dry.stdout == """
            Dry run: nothing was changed. Found a Goodreads library export: 112 books.
            Would add:  80 finished books (41 with the day it was finished), 0 books being read, 31 books to read
            On shelves of their own: did-not-finish 1
            Ratings:    72 books rated

            """, "\(dry)")
        let json = try #require(try vault.json(["import", "--dry-run", "--json", file]) as? [String: Any])
        #expect((json["shelves"] as? [String: Int])?["read"] == 80 && json["readWithDate"] as? Int == 41)
        #expect(try vault.run(["import", file]).status == 69)
    }

    @Test func aFileInNoKnownFormatIsOneLineExit65() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let file = vault.root.appendingPathComponent("notes.csv")
        try "Id;Title\n1;Dune\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try vault.run(["import", file.path])
        #expect(result.status == 65 && result.stderr == "Error: \(file.path) is not a format bmvault can import (it reads a bmvault archive or its journal.json, and, with --dry-run, a Kindle's My Clippings.txt, a KOReader sidecar or a Goodreads library export); nothing was imported\n",
                "\(result)")
        let broken = vault.root.appendingPathComponent("My Clippings.txt")
        try "Dune (Frank Herbert)\n- Your Highlight at location 5 | Added on Monday\n\nFear is the mind-killer.\n==========\nno metadata\n==========\n"
            .write(to: broken, atomically: true, encoding: .utf8)
        let malformed = try vault.run(["import", "--dry-run", broken.path])
        #expect(malformed.status == 65 && malformed.stderr == "Error: line 6 of the file: a clipping without its metadata line (`- Your Highlight ...`); nothing was imported\n",
                "\(malformed)")
        #expect(!malformed.stderr.contains("mind-killer"))
    }
}
