import Foundation
import Testing

/// Issue 41 (minor): the line under a book's title in the archive's Markdown is for the
/// reader: the percent to a tenth, the status's local day, not a raw float and a UTC instant.
/// The front matter keeps every digit, and an import reads the progress back exactly.
@Suite("Export byline")
struct ExportBylineTests {
    @Test func theBylineShowsARoundedPercentAndALocalDay() throws {
        let vault = try TestVault(environment: ["TZ": "Europe/Berlin"])
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Middlemarch", "--author", "George Eliot"]).line
        try vault.succeed(["book", "progress", book, "48.97727272727273"])
        try vault.succeed(["book", "start", book, "--on", "2026-11-15"])
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let books = archive.appendingPathComponent("books")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: books.path).first)
        let markdown = try String(contentsOf: books.appendingPathComponent(name), encoding: .utf8)
        #expect(markdown.contains("\nby George Eliot · 49% read · reading since 2026-11-15\n"), "\(markdown)")
        #expect(markdown.contains("\nprogress: 48.97727272727273\n"), "\(markdown)")

        let fresh = try TestVault()
        try fresh.createUnlocked()
        try fresh.succeed(["import", archive.path])
        let shown = try #require(try fresh.json(["show", book, "--json"]) as? [String: Any])
        let imported = try #require(shown["book"] as? [String: Any])
        #expect(imported["progress"] as? Double == 48.97727272727273)
        #expect(imported["status"] as? String == "reading")
    }
}
