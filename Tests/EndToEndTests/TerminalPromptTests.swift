import Foundation
import Testing

/// Passphrases typed at a terminal: asked on /dev/tty with echo off, never shown.
@Suite struct TerminalPromptTests {
    /// Runs bmvault on a terminal and types `lines`, each after a pause (the prompt
    /// flushes input typed before it appears, as getpass does).
    private func typing(_ lines: [String], into vault: TestVault, _ arguments: [String]) throws -> CommandResult {
        let command = ([Binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let typed = lines.map { "sleep 0.7; printf '%s\\n' '\($0)'" }.joined(separator: "; ")
        return try Binary.run("/bin/sh", ["-c", "(\(typed); sleep 1) | script -qec \"$0\" /dev/null", command],
                              environment: vault.environment)
    }

    @Test func initAndUnlockAskWithoutEcho() throws {
        let vault = try TestVault()
        let secret = "typed but never shown 42"
        let created = try typing([secret, secret], into: vault, ["init", "--kdf", "interactive"])
        #expect(created.status == 0, "\(created)")
        #expect(created.stdout.contains("New passphrase: "))
        #expect(created.stdout.contains("Repeat passphrase: "))
        #expect(!created.stdout.contains(secret), "the passphrase was echoed")

        let unlocked = try typing([secret], into: vault, ["unlock"])
        #expect(unlocked.status == 0, "\(unlocked)")
        #expect(unlocked.stdout.contains("Passphrase for "))
        #expect(!unlocked.stdout.contains(secret), "the passphrase was echoed")
        try vault.succeed(["book", "add", "Unlocked at a terminal"])
    }

    @Test func passphrasesThatNeverMatchCreateNothing() throws {
        let vault = try TestVault()
        // Asked three times (HeadlessTests has the one that ends well), then it gives up.
        let attempt: [(prompt: String, reply: String)] = [("New passphrase: ", "first passphrase"), ("Repeat passphrase: ", "second passphrase")]
        let result = try Terminal.run(["init", "--kdf", "interactive"], answers: attempt + attempt + attempt, environment: vault.environment)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.components(separatedBy: "The two entries differ. Try again.").count == 3, "\(result)")
        #expect(result.stdout.contains("the passphrases do not match; nothing was changed"))
        #expect(!FileManager.default.fileExists(atPath: vault.databasePath))
    }

    @Test func withoutATerminalOrStdinFlagItSaysWhatToDo() throws {
        let vault = try TestVault()
        try vault.create()
        // No controlling terminal at all: setsid detaches from any the test runner has.
        let result = try Binary.run("/usr/bin/setsid", ["-w", Binary.path, "unlock"], environment: vault.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "Error: no terminal to ask for the passphrase; pipe it in with --passphrase-stdin\n")
    }
}
