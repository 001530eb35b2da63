import Foundation
import Testing

/// Issue 41, item 4: `backup` holds the encrypted book files kept on this device (one file,
/// still encrypted, its checksum covering them), `--without-files` leaves them out and says
/// so, and `restore` brings them back, so `file export` of a stored book works afterwards.
@Suite("Backups with book files", .serialized)
struct BackupFilesTests {
    private static let canary = "Quillfeather canary walks to Uppercross."

    /// A vault holding an EPUB (with the canary in its text) and a PDF of three 1 MiB parts
    /// and more; returns it with the two files' ids and bytes.
    private func vaultWithFiles() throws -> (TestVault, [(id: String, bytes: Data)]) {
        let vault = try TestVault()
        try vault.createUnlocked()
        let books = vault.root.appendingPathComponent("books")
        try FileManager.default.createDirectory(at: books, withIntermediateDirectories: true)
        let epubPath = books.appendingPathComponent("persuasion.epub")
        let epub = try BookFileSamples.epub(at: epubPath, title: "Persuasion", author: "Jane Austen", text: Self.canary)
        let pdfPath = books.appendingPathComponent("large.pdf")
        try BookFileSamples.largePDF(at: pdfPath, size: 3_200_000, title: "Large", author: "Writer")
        var files: [(id: String, bytes: Data)] = []
        for (path, bytes) in [(epubPath, epub), (pdfPath, try Data(contentsOf: pdfPath))] {
            let added = try #require(try vault.json(["file", "add", path.path, "--json"]) as? [String: Any])
            files.append((try #require(added["id"] as? String), bytes))
        }
        return (vault, files)
    }

    private func restore(_ file: URL, into vault: TestVault) throws -> CommandResult {
        let result = try vault.run(["restore", file.path])
        #expect(result.status == 0, "\(result)")
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        return result
    }

    @Test("A backup holds the book files, encrypted, under its one checksum; restore brings them back")
    func aBackupBringsTheBookFilesBack() throws {
        let (vault, files) = try vaultWithFiles()
        let file = vault.root.appendingPathComponent("journal.backup")
        try vault.succeed(["lock"])   // a backup needs no key, with files too
        let made = try vault.succeed(["backup", "--out", file.path])
        #expect(made.stderr.hasPrefix("Backed up the vault and its 2 book files to \(file.path) ("), "\(made)")
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count > 3_200_000, "the blobs are in the one file")
        #expect(bytes.range(of: Data("Quillfeather".utf8)) == nil && bytes.range(of: Data("Persuasion".utf8)) == nil,
                "the backup holds a book's text in the clear")
        let sums = try Binary.run("/bin/sh", ["-c", "cd \"$0\" && sha256sum -c journal.backup.sha256", vault.root.path],
                                  environment: vault.environment)
        #expect(sums.status == 0 && sums.stdout == "journal.backup: OK\n", "\(sums)")

        let copy = try TestVault()
        let restored = try restore(file, into: copy)
        #expect(restored.stderr.hasPrefix("Restored the vault with its 2 book files from \(file.path) into "), "\(restored)")
        for (index, stored) in files.enumerated() {
            let out = copy.root.appendingPathComponent("exported-\(index)")
            try copy.succeed(["file", "export", stored.id, "--out", out.path])
            #expect(try Data(contentsOf: out) == stored.bytes)
        }
        #expect(try copy.run(["check"]).status == 0)
        // The table that carried them is not the vault's: gone, and the space with it.
        let tables = try Binary.run("/usr/bin/sqlite3", [copy.databasePath, "SELECT count(*) FROM sqlite_master WHERE tbl_name = 'backup_blob'"],
                                    environment: copy.environment)
        #expect(tables.line == "0", "\(tables)")
        #expect(try copy.databaseBytes().count < 1_000_000)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: copy.directory.appendingPathComponent("files").path)
        #expect(blobs.count == 2 && !blobs.contains { $0.hasPrefix(".") }, "\(blobs)")
    }

    @Test("--without-files leaves the book files out and says so; the restored vault knows them as kept elsewhere")
    func withoutFilesLeavesThemOut() throws {
        let (vault, files) = try vaultWithFiles()
        let file = vault.root.appendingPathComponent("journal.backup")
        let made = try vault.succeed(["backup", "--out", file.path, "--without-files"])
        #expect(made.stderr.hasPrefix("Backed up the vault without its 2 book files (--without-files) to \(file.path) ("), "\(made)")
        #expect(try Data(contentsOf: file).count < 1_000_000)

        let copy = try TestVault()
        let restored = try restore(file, into: copy)
        #expect(restored.stderr.hasPrefix("Restored the vault from \(file.path) into "), "\(restored)")
        let listed = try #require(try copy.json(["file", "list", "--json"]) as? [[String: Any]])
        #expect(listed.count == 2)
        let export = try copy.run(["file", "export", files[0].id, "--out", copy.root.appendingPathComponent("out.epub").path])
        #expect(export.status == 66, "\(export)")
    }

    @Test("A backup whose book-file table was altered is refused, and nothing is restored")
    func anAlteredBlobTableIsRefused() throws {
        let (vault, _) = try vaultWithFiles()
        let file = vault.root.appendingPathComponent("journal.backup")
        try vault.succeed(["backup", "--out", file.path])
        try FileManager.default.removeItem(atPath: file.path + ".sha256")
        let planted = try Binary.run("/usr/bin/sqlite3", [file.path, "CREATE TRIGGER planted AFTER DELETE ON backup_blob BEGIN DELETE FROM annotation; END"],
                                     environment: vault.environment)
        try #require(planted.status == 0, "\(planted)")
        let elsewhere = try TestVault()
        let refused = try elsewhere.run(["restore", file.path])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.hasPrefix("Error: \(file.path) is not as bmvault made it"), "\(refused)")
        let made = (try? FileManager.default.contentsOfDirectory(atPath: elsewhere.directory.path)) ?? []
        #expect(made.isEmpty, "a half-restored vault or file was left: \(made)")
    }
}
