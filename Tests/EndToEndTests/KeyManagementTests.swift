import Foundation
import Testing

/// Changing the passphrase, rotating the recovery key, extending an unlock: each needs
/// proof of who is asking, beyond an unlocked terminal.
@Suite struct KeyManagementTests {
    @Test func passphraseChangeNeedsTheCurrentPassphraseEvenWhenUnlocked() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let before = try vault.databaseBytes()
        let refused = try vault.run(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"],
                                    stdin: "someone else's guess\na brand new passphrase\n")
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr == "Error: wrong passphrase; nothing was changed\n")
        #expect(try vault.databaseBytes() == before)

        try vault.succeed(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"],
                          stdin: TestVault.passphrase + "\na brand new passphrase\n")
        try vault.succeed(["lock"])
        #expect(try vault.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n").status == 77)
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: "a brand new passphrase\n")
    }

    @Test func passphraseChangeWorksLockedAndWithoutAKeyring() throws {
        let vault = try TestVault()
        try vault.create()
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "XDG_RUNTIME_DIR": vault.root.path]
        let changed = try vault.run(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"],
                                    stdin: TestVault.passphrase + "\nchanged on a server\n", environment: noBus)
        #expect(changed.status == 0, "\(changed)")
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: "changed on a server\n")
    }

    @Test func rotatingTheRecoveryKeyRetiresTheOldOneHereAndOnTheRemote() throws {
        let vault = try TestVault()
        let oldKey = try vault.create()
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try vault.succeed(["book", "add", "Kept through it all"])
        let remote = vault.root.appendingPathComponent("remote")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        try vault.succeed(["remote", "add", "usb", remote.path])
        try vault.succeed(["sync"])

        let refused = try vault.run(["recovery-key", "rotate", "--passphrase-stdin"], stdin: "a wrong guess here\n")
        #expect(refused.status == 77, "\(refused)")
        let rotated = try vault.succeed(["recovery-key", "rotate", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        let newKey = rotated.line
        #expect(newKey.count == oldKey.count && newKey != oldKey, "\(rotated)")
        #expect(rotated.stderr.contains("shown only this once"))
        try vault.succeed(["sync"])

        try vault.succeed(["lock"])
        let old = try vault.run(["unlock", "--recovery-key-stdin"], stdin: oldKey + "\n")
        #expect(old.status == 77, "\(old)")
        try vault.succeed(["unlock", "--recovery-key-stdin"], stdin: newKey + "\n")
        #expect(try vault.succeed(["book", "list"]).stdout.contains("Kept through it all"))
        try vault.succeed(["lock"])
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")

        // A device joining through the remote: only the new recovery key gets in.
        let second = try TestVault()
        let joinOld = try second.run(["init", "--join", remote.path, "--recovery-key-stdin"], stdin: oldKey + "\n")
        #expect(joinOld.status == 77, "\(joinOld)")
        try second.succeed(["init", "--join", remote.path, "--recovery-key-stdin"], stdin: newKey + "\n")
    }

    /// The current passphrase is checked before a new one is asked for, as passwd does.
    @Test func aWrongCurrentPassphraseAtATerminalEndsBeforeTheNewOneIsAsked() throws {
        let vault = try TestVault()
        try vault.create()
        let result = try Terminal.run(["passphrase", "change", "--kdf", "interactive"],
                                      answers: [("Current passphrase (or recovery key): ", "not the passphrase")],
                                      environment: vault.environment)
        #expect(result.status == 77, "\(result)")
        #expect(!result.stdout.contains("New passphrase"), "\(result)")
    }

    /// A new recovery key that cannot be written out is an error, not a silent loss: the
    /// passphrase still opens the vault and another rotation shows a key that works.
    @Test func aRecoveryKeyThatCannotBeShownIsAnErrorAndAnotherCanBeMade() throws {
        let vault = try TestVault()
        try vault.create()
        let full = try Binary.run("/bin/sh", ["-c", "printf '%s\\n' \"$1\" | \"$0\" recovery-key rotate --passphrase-stdin > /dev/full",
                                              Binary.path, TestVault.passphrase], environment: vault.environment)
        #expect(full.status == 1, "\(full)")
        #expect(full.stderr.hasSuffix("Error: the new recovery key could not be written to standard output; the passphrase still opens the vault: run `bmvault recovery-key rotate` for another where its output can be written\n"), "\(full)")
        let again = try vault.succeed(["recovery-key", "rotate", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n").line
        try vault.succeed(["unlock", "--recovery-key-stdin"], stdin: again + "\n")
    }

    @Test func unlockWhileUnlockedSaysUntilWhenAndExtendKeepsItLonger() throws {
        let vault = try TestVault()
        try vault.create()
        try vault.succeed(["unlock", "--passphrase-stdin", "--timeout", "1h"], stdin: TestVault.passphrase + "\n")
        func unlockedUntil() throws -> Date {
            let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
            let until = try #require(status["unlockedUntil"] as? String)
            return try #require(ISO8601DateFormatter.withFractions.date(from: until))
        }
        let first = try unlockedUntil()

        // Asked again, it reads no passphrase and changes nothing.
        let again = try vault.succeed(["unlock"], stdin: "")
        #expect(again.stderr.hasPrefix("Already unlocked until "), "\(again)")
        #expect(again.stderr.contains("run `bmvault unlock --extend`"), "\(again)")
        #expect(try unlockedUntil() == first)

        try vault.succeed(["unlock", "--extend", "--timeout", "3h"])
        let extended = try unlockedUntil()
        #expect(extended.timeIntervalSince(first) > 1.9 * 3600 && extended.timeIntervalSince(first) < 2.1 * 3600)

        try vault.succeed(["lock"])
        let nothing = try vault.run(["unlock", "--extend"])
        #expect(nothing.status == 77)
        #expect(nothing.stderr == "Error: the vault is locked; run `bmvault unlock`\n")
    }
}
