import Foundation
import Testing

/// What reaches the disk: sealed fields only, and a damaged record that reports itself
/// without taking the rest of the journal with it.
@Suite struct AtRestTests {
    @Test func nothingWrittenIsReadableInTheVaultFiles() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let canary = "BMV-CANARY-\(UUID().uuidString)"
        try vault.succeed(["book", "add", "Title \(canary)", "--author", "Author \(canary)"])
        try vault.succeed(["note", "add", "title", "Note \(canary)", "--locator", "Locator \(canary)"])
        try vault.succeed(["quote", "add", "title", "Quote \(canary)", "--locator", "p. 1"])
        let noteID = try vault.succeed(["note", "add", "title", "to be edited"]).line
        try vault.succeed(["edit", noteID, "Edited \(canary)"])

        let files = try vault.filesOnDisk()
        #expect(files.contains { $0.name == "vault.db" })
        let needles = [canary, TestVault.passphrase].map { Data($0.utf8) }
        for file in files {
            for needle in needles {
                #expect(file.bytes.range(of: needle) == nil, "plaintext found in \(file.name)")
            }
        }
        // Positive control: the same search finds the canary where it is in the clear.
        let listing = try vault.succeed(["list"]).stdout
        #expect(Data(listing.utf8).range(of: Data(canary.utf8)) != nil)

        // Private to the reader.
        let directoryMode = try FileManager.default.attributesOfItem(atPath: vault.directory.path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: vault.directory.appendingPathComponent(file.name).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file.name) has mode \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test func aTamperedRecordReportsItsIDAndEveryOtherRecordStillReads() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Kept"])
        let damaged = try vault.succeed(["note", "add", "kept", "this one gets damaged"]).line
        let intact = try vault.succeed(["note", "add", "kept", "this one stays"]).line
        let quote = try vault.succeed(["quote", "add", "kept", "so does this", "--locator", "p. 3"]).line

        // Flip one byte inside the ciphertext of one note's body, behind bmvault's back.
        let sql = """
            UPDATE annotation SET body = substr(body, 1, 40)
                || CASE WHEN substr(body, 41, 1) = X'00' THEN X'01' ELSE X'00' END
                || substr(body, 42)
            WHERE id = '\(damaged)';
            """
        let tampered = try Binary.run("/usr/bin/sqlite3", [vault.databasePath, sql], environment: vault.environment)
        try #require(tampered.status == 0, "\(tampered)")

        let listing = try vault.run(["list", "--json"])
        #expect(listing.status == 65)
        let readable = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        #expect(Set(readable.compactMap { $0["id"] as? String }) == [intact, quote])
        #expect(listing.stderr.contains("Error: record \(damaged) cannot be read: its body failed authentication"))
        #expect(listing.stderr.contains("1 record could not be read"))

        let shown = try vault.run(["show", damaged])
        #expect(shown.status == 65)
        #expect(shown.stderr == "Error: record \(damaged) cannot be read: its body failed authentication (altered or damaged)\n")
        #expect(try vault.succeed(["show", intact]).stdout.contains("this one stays"))
        let search = try vault.run(["search", "stays", "--json"])
        #expect(search.status == 65, "search reports the damaged record too: \(search)")
        #expect(search.stdout.contains(intact))
    }

    @Test func aCiphertextMovedToAnotherRecordDoesNotOpen() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Kept"])
        let source = try vault.succeed(["note", "add", "kept", "the original words"]).line
        let target = try vault.succeed(["note", "add", "kept", "other words"]).line
        let sql = "UPDATE annotation SET body = (SELECT body FROM annotation WHERE id = '\(source)') WHERE id = '\(target)';"
        try #require(try Binary.run("/usr/bin/sqlite3", [vault.databasePath, sql], environment: vault.environment).status == 0)
        let shown = try vault.run(["show", target])
        #expect(shown.status == 65)
        #expect(!shown.stdout.contains("original"))
        #expect(try vault.succeed(["show", source]).stdout.contains("the original words"))
    }
}
