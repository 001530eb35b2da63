import Foundation
import Testing

/// `bmvault rekey`: a new key for every sealed field, restartable after a crash at any batch.
@Suite struct RekeyTests {
    /// A vault with some of everything, and what reading it back gives.
    private func journal() throws -> (TestVault, [String: Data]) {
        let vault = try TestVault()
        try vault.createUnlocked()
        // A remote never synced: the outbox keeps every operation, and rekey seals each again.
        let remote = vault.root.appendingPathComponent("remote-folder")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        try vault.succeed(["remote", "add", "usb", remote.path])
        try vault.succeed(["book", "add", "Солярис", "--author", "Stanisław Lem"])
        try vault.succeed(["book", "add", "Le Petit Prince"])
        try vault.succeed(["session", "add", "солярис", "--pages", "40", "--minutes", "30"])
        for index in 1...5 {
            try vault.succeed(["note", "add", "солярис", "Note \(index): the ocean thinks 🌊", "--locator", "p. \(index * 10)"])
        }
        try vault.succeed(["quote", "add", "le petit", "On ne voit bien qu’avec le cœur.", "--locator", "ch. XXI"])
        let gone = try vault.succeed(["note", "add", "le petit", "to be deleted"]).line
        try vault.succeed(["delete", gone])
        return (vault, try readBack(vault))
    }

    private func readBack(_ vault: TestVault) throws -> [String: Data] {
        var outputs: [String: Data] = [:]
        for arguments in [["list", "--json"], ["book", "list", "--json"]] {
            outputs[arguments.joined(separator: " ")] = Data(try vault.succeed(arguments).stdout.utf8)
        }
        return outputs
    }

    private func keyID(_ vault: TestVault) throws -> String {
        try Binary.run("/usr/bin/sqlite3", [vault.databasePath, "SELECT value FROM vault_meta WHERE key = 'key_id'"],
                       environment: vault.environment).line
    }

    @Test func everythingIsReencryptedAndTheRecoveryKeyReplaced() throws {
        let (vault, before) = try journal()
        let oldKeyID = try keyID(vault)

        let rekeyed = try vault.run(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(rekeyed.status == 0, "\(rekeyed)")
        let newRecoveryKey = rekeyed.line
        #expect(newRecoveryKey.range(of: #"^[0-9A-HJKMNP-TV-Z]{6}(-[0-9A-HJKMNP-TV-Z]{6}){5}$"#, options: .regularExpression) != nil)
        #expect(rekeyed.stderr.contains("Rekeyed: 20 records re-encrypted under a new key."), "\(rekeyed)")
        // Issue 41: one line about the other devices.
        #expect(rekeyed.stderr.contains("\nOther devices ask for the passphrase at their next unlock, once a sync from here has reached a remote they use.\n"),
                "\(rekeyed)")
        #expect(try keyID(vault) != oldKeyID)

        // The kept key was replaced: the journal reads on, identical.
        #expect(try readBack(vault) == before)
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect(status["rekeyInProgress"] as? Bool == false)
        #expect(status["locked"] as? Bool == false)

        // The passphrase still opens it; the new recovery key does.
        try vault.succeed(["lock"])
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try vault.succeed(["lock"])
        try vault.succeed(["unlock", "--recovery-key-stdin"], stdin: newRecoveryKey + "\n")
        #expect(try readBack(vault) == before)
    }

    @Test func theOldRecoveryKeyStopsWorking() throws {
        let vault = try TestVault()
        let oldRecoveryKey = try vault.create()
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try vault.succeed(["book", "add", "Kept"])
        try vault.succeed(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try vault.succeed(["lock"])
        let old = try vault.run(["unlock", "--recovery-key-stdin"], stdin: oldRecoveryKey + "\n")
        #expect(old.status == 77)
        #expect(old.stderr.contains("does not open this vault"))
    }

    @Test func aWrongPassphraseChangesNothing() throws {
        let (vault, _) = try journal()
        try vault.succeed(["lock"])
        let before = try vault.databaseBytes()
        let result = try vault.run(["rekey", "--passphrase-stdin"], stdin: "not the passphrase\n")
        #expect(result.status == 77)
        #expect(result.stdout.isEmpty, "a recovery key was printed for a refused rekey")
        #expect(try vault.databaseBytes() == before)
    }

    /// Killed after a committed batch (of 2 records; 12 batches in all, the last one just before
    /// the keyslots are swapped), the rekey leaves the
    /// journal closed but whole, and the next `rekey` finishes it with every word intact.
    @Test(arguments: [1, 2, 5, 6, 9, 12])
    func killedAfterBatchItResumes(batch: Int) throws {
        let (vault, before) = try journal()
        let crashed = try vault.run(["rekey", "--passphrase-stdin", "--batch-size", "2"], stdin: TestVault.passphrase + "\n",
                                    environment: ["BMVAULT_TEST_CRASH_AT": "rekey:batch:\(batch)"])
        #expect(crashed.status == 137, "expected SIGKILL: \(crashed)")
        let recoveryKey = crashed.line
        #expect(recoveryKey.count == 41, "the new recovery key is shown before any field moves")

        let closed = try vault.run(["list"])
        #expect(closed.status == 1)
        #expect(closed.stderr == "Error: a rekey was interrupted before it finished; run `bmvault rekey` to finish it, or `bmvault unlock` if it was taking up another device's rekey (nothing is lost)\n")
        #expect((try vault.json(["status", "--json"]) as? [String: Any])?["rekeyInProgress"] as? Bool == true)

        let resumed = try vault.run(["rekey", "--passphrase-stdin", "--batch-size", "2"], stdin: TestVault.passphrase + "\n")
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.stdout.isEmpty, "a resumed rekey does not invent another recovery key")
        #expect(resumed.stderr.contains("(resumed an interrupted rekey)"))
        #expect(try readBack(vault) == before)
        try vault.succeed(["lock"])
        try vault.succeed(["unlock", "--recovery-key-stdin"], stdin: recoveryKey + "\n")
        #expect(try readBack(vault) == before)
    }

    @Test func aDamagedRecordIsLeftAsItWasAndReported() throws {
        let (vault, _) = try journal()
        let damaged = try #require((try vault.json(["list", "--json"]) as? [[String: Any]])?.first?["id"] as? String)
        let sql = "UPDATE annotation SET body = substr(body, 1, 40) || CASE WHEN substr(body, 41, 1) = X'00' THEN X'01' ELSE X'00' END || substr(body, 42) WHERE id = '\(damaged)';"
        try #require(try Binary.run("/usr/bin/sqlite3", [vault.databasePath, sql], environment: vault.environment).status == 0)
        let rekeyed = try vault.run(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(rekeyed.status == 0, "\(rekeyed)")
        #expect(rekeyed.stderr.contains("1 damaged fields were left as they were"))
        let listing = try vault.run(["list", "--json"])
        #expect(listing.status == 65)
        #expect(listing.stderr.contains("record \(damaged) cannot be read"))
        #expect((try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])?.count == 5)
    }
}
