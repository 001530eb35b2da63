import Foundation
import Testing

/// `bmvault check`: the whole vault verified with the built binary; each kind of damage
/// named by kind and id, exit 65, and nothing changed (issue 23).
@Suite struct CheckTests {
    /// A vault with some of everything, a remote never synced (so the outbox keeps every
    /// operation), and a rekey (so the key chain holds a key).
    private func journal() throws -> TestVault {
        let vault = try TestVault()
        try vault.createUnlocked()
        let remote = vault.root.appendingPathComponent("remote-folder")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        try vault.succeed(["remote", "add", "usb", remote.path])
        try vault.succeed(["book", "add", "Solaris", "--author", "Stanisław Lem"])
        try vault.succeed(["note", "add", "solaris", "Zebra canary in a note", "--locator", "p. 3"])
        try vault.succeed(["quote", "add", "solaris", "Canary quote", "--locator", "p. 4"])
        try vault.succeed(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        return vault
    }

    private func sql(_ vault: TestVault, _ statement: String) throws {
        let result = try Binary.run("/usr/bin/sqlite3", [vault.databasePath, statement], environment: vault.environment)
        try #require(result.status == 0, "\(result)")
    }

    @Test func aSoundVaultChecksClean() throws {
        let vault = try journal()
        let result = try vault.run(["check"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Checked: the database, 2 keyslots, 1 book, 2 notes and quotes, 3 outbox operations, 1 retired key: no damage found.\n")
        let json = try #require(try vault.json(["check", "--json"]) as? [String: Any])
        #expect(json["ok"] as? Bool == true)
        #expect((json["findings"] as? [Any])?.isEmpty == true)
        #expect((json["verified"] as? [String: Int])?["retired_key"] == 1)
    }

    /// Every kind of damage it looks for, at once: each named, none by its content.
    @Test func damageIsNamedByKindAndIDAndNothingChanges() throws {
        let vault = try journal()
        let notes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        let note = try #require(notes.first { $0["kind"] as? String == "note" }?["id"] as? String)
        let flip = { (column: String) in "substr(\(column), 1, 40) || CASE WHEN substr(\(column), 41, 1) = X'00' THEN X'01' ELSE X'00' END || substr(\(column), 42)" }
        try sql(vault, "UPDATE annotation SET locator = \(flip("locator")) WHERE id = '\(note)'")
        try sql(vault, "UPDATE outbox SET payload = \(flip("payload")) WHERE id = (SELECT min(id) FROM outbox)")
        try sql(vault, "UPDATE keyslot SET wrapped_key = X'00' WHERE kind = 'recovery'")
        try sql(vault, "UPDATE retired_key SET sealed_key = \(flip("sealed_key"))")
        try sql(vault, "PRAGMA foreign_keys = OFF; INSERT INTO outbox_delivery (operation_id, remote, delivered_at) VALUES (999999, 'usb', 0)")
        try sql(vault, "CREATE INDEX planted ON book (created_at)")
        let before = try vault.databaseBytes()

        let result = try vault.run(["check"])
        #expect(result.status == 65, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("damaged: annotation \(note): locator does not open"), "\(result)")
        #expect(lines.contains { $0.hasPrefix("damaged: outbox ") && $0.hasSuffix(": payload does not open") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("damaged: keyslot ") && $0.hasSuffix(": malformed recovery slot") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("damaged: retired_key ") && $0.hasSuffix(": does not open under the vault key") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("damaged: outbox_delivery") && $0.hasSuffix(": refers to a missing outbox") }, "\(result)")
        #expect(lines.contains("damaged: schema: differs from schema v\(Schema.latest) as shipped"), "\(result)")
        #expect(lines.last == "Checked: the database, 2 keyslots, 1 book, 2 notes and quotes, 3 outbox operations, 1 retired key: 6 problems found.")
        #expect(result.stderr.hasSuffix("Error: the check found 6 problems (listed above); nothing was changed. What another device holds comes back from it; an export or a copy of vault.db made before the damage restores the rest (Docs/CLI.md, `check`)\n"), "\(result)")
        for canary in ["Zebra", "Canary", "Solaris", "Lem", "p. 3"] {
            #expect(!result.stdout.contains(canary) && !result.stderr.contains(canary), "\(canary) in the check's output")
        }
        #expect(try vault.databaseBytes() == before, "check changed the vault")
    }

    /// Issue 40 (low): one page SQLite cannot read made `check` itself fail ("storage
    /// failure: database(code: 11 ...)", exit 1, a failure report); it is damage to list.
    @Test func aMalformedPageIsAFindingNotAFailure() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Solaris"])
        for number in 1...30 {
            try vault.succeed(["note", "add", "solaris", "note \(number) " + String(repeating: "x", count: 2000)])
        }
        try vault.succeed(["lock"])
        try sql(vault, "PRAGMA wal_checkpoint(TRUNCATE)")
        let database = try FileHandle(forUpdating: URL(fileURLWithPath: vault.databasePath))
        try database.seek(toOffset: 4096 * 9)   // the header of the tenth page
        try database.write(contentsOf: Data(repeating: 0x42, count: 8))
        try database.close()
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        vault.environment["XDG_STATE_HOME"] = vault.root.appendingPathComponent("state").path
        let before = try vault.databaseBytes()

        let result = try vault.run(["check"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.split(separator: "\n").contains("damaged: database: SQLite finds a page malformed, so the check stopped there"), "\(result)")
        #expect(result.stderr.hasPrefix("Error: the check found "), "\(result)")
        #expect(try vault.databaseBytes() == before, "check changed the vault")
        #expect(!FileManager.default.fileExists(atPath: vault.root.appendingPathComponent("state/bmvault/reports").path), "a failure report was written")
    }

    @Test func aLockedVaultIsNotCheckedWithoutItsKey() throws {
        let vault = try journal()
        try vault.succeed(["lock"])
        let result = try vault.run(["check"])
        #expect(result.status == 77, "\(result)")
    }
}
