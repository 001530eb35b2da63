import Foundation
import Testing

/// Where no Secret Service runs (SSH, a console, a server) or with `--no-keyring`: the key
/// comes from the passphrase, typed or printed by BMVAULT_PASSPHRASE_COMMAND, and lives in
/// one process only.
@Suite struct HeadlessTests {
    /// The passphrase, as a command prints it (run without a shell: the quotes are split off).
    static let command = "printf '%s\\n' '\(TestVault.passphrase)'"

    /// A vault, and the environment of a process with no session bus at all.
    private func vaultWithoutBus() throws -> (TestVault, [String: String]) {
        let vault = try TestVault()
        try vault.create()
        var environment = vault.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        // An X display, as over `ssh -X`: GIO would autolaunch a bus there; bmvault must not.
        environment["DISPLAY"] = ":77"
        environment["XDG_RUNTIME_DIR"] = vault.root.path
        return (vault, environment)
    }

    private func run(_ vault: TestVault, _ environment: [String: String], _ arguments: [String], stdin: String? = nil,
                     extra: [String: String] = [:]) throws -> CommandResult {
        try Binary.run(Binary.path, arguments, stdin: stdin, environment: environment.merging(extra) { $1 })
    }

    @Test func withoutASessionBusThePassphraseCommandOpensTheJournal() throws {
        let (vault, noBus) = try vaultWithoutBus()
        let command = ["BMVAULT_PASSPHRASE_COMMAND": Self.command]
        let book = try run(vault, noBus, ["book", "add", "Walden"], extra: command)
        #expect(book.status == 0, "\(book)")
        let note = try run(vault, noBus, ["note", "add", "walden", "Simplify, simplify.", "--locator", "p. 91"], extra: command)
        #expect(note.status == 0, "\(note)")
        let list = try run(vault, noBus, ["list"], extra: command)
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("Simplify, simplify."))
        let archive = vault.root.appendingPathComponent("archive")
        let export = try run(vault, noBus, ["export", "--out", archive.path], extra: command)
        #expect(export.status == 0, "\(export)")
        #expect(try String(contentsOf: archive.appendingPathComponent("journal.json"), encoding: .utf8).contains("Simplify, simplify."))

        // The key lived in those processes only: the keyring (back on the bus) never saw it.
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect(status["keyState"] as? String == "locked")
    }

    @Test func withNeitherKeyringTerminalNorCommandItSaysWhatItNeeds() throws {
        let (vault, noBus) = try vaultWithoutBus()
        let before = try vault.databaseBytes()
        let result = try run(vault, noBus, ["book", "add", "Never written"])
        #expect(result.status == 77)
        #expect(result.stderr == "Error: the vault key is needed and there is no D-Bus session bus: run this at a terminal to type the passphrase, set BMVAULT_PASSPHRASE_COMMAND to a command that prints it, or start a Secret Service (README, \"Without a desktop\")\n")
        #expect(try vault.databaseBytes() == before)
    }

    @Test func thePassphraseCommandCannotEatTheNotePipedToBmvault() throws {
        let (vault, noBus) = try vaultWithoutBus()
        // `cat` would print the piped note first (and be taken for the passphrase) if the
        // command shared bmvault's standard input; it gets /dev/null.
        let command = ["BMVAULT_PASSPHRASE_COMMAND": "sh -c 'cat; " + Self.command.replacingOccurrences(of: "'", with: "\"") + "'"]
        #expect(try run(vault, noBus, ["book", "add", "Walden"], extra: command).status == 0)
        let added = try run(vault, noBus, ["note", "add", "walden"], stdin: "Piped in.\n", extra: command)
        #expect(added.status == 0, "\(added)")
        let list = try run(vault, noBus, ["list", "--json"], extra: command)
        #expect(list.stdout.contains("{\"body\":\"Piped in.\",\"bookId\""), "\(list)")
    }

    @Test(arguments: [
        ("printf '%s\\n' 'not the passphrase'", Int32(77), "Error: wrong passphrase; nothing was changed\n"),
        ("sh -c 'exit 3'", 77, "Error: BMVAULT_PASSPHRASE_COMMAND exited with status 3; nothing was changed\n"),
        ("no-such-program-anywhere", 77, "Error: BMVAULT_PASSPHRASE_COMMAND could not be started: its first word is not a program in PATH\n"),
        ("echo 'unterminated", 64, "Error: BMVAULT_PASSPHRASE_COMMAND is empty or has an unterminated quote (it runs without a shell)\n"),
    ])
    func aCommandThatDoesNotGiveThePassphraseChangesNothing(command: String, status: Int32, message: String) throws {
        let (vault, noBus) = try vaultWithoutBus()
        let before = try vault.databaseBytes()
        let result = try run(vault, noBus, ["book", "add", "Never written"], extra: ["BMVAULT_PASSPHRASE_COMMAND": command])
        #expect(result.status == status, "\(result)")
        #expect(result.stderr == message)
        #expect(try vault.databaseBytes() == before)
    }

    @Test func noKeyringLeavesTheKeyringAloneEvenWhereOneRuns() throws {
        let vault = try TestVault()
        try vault.create()
        let command = ["BMVAULT_PASSPHRASE_COMMAND": Self.command]
        #expect(try vault.run(["--no-keyring", "book", "add", "Walden"], environment: command).status == 0)
        #expect(try vault.run(["--no-keyring", "book", "list"], environment: command).stdout.contains("Walden"))
        // Nothing was stored: without the option the vault is still locked.
        #expect(try vault.run(["book", "list"]).status == 77)
        let unlock = try vault.run(["--no-keyring", "unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(unlock.status == 64)
        #expect(unlock.stderr.contains("--no-keyring turns it off"))
    }

    // MARK: - At a terminal

    @Test func withoutAKeyringATerminalIsAskedForThePassphrase() throws {
        let (vault, noBus) = try vaultWithoutBus()
        defer { withExtendedLifetime(vault) {} }
        let result = try Terminal.run(["book", "add", "Typed for"], answers: [("kept for this command only): ", TestVault.passphrase)],
                                      environment: noBus)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains(TestVault.passphrase), "the passphrase was echoed")
    }

    @Test func aLockedVaultAtATerminalOffersToUnlock() throws {
        let vault = try TestVault()
        try vault.create()
        let result = try Terminal.run(["book", "add", "Offered"], answers: [("Passphrase to unlock it for 8 hours: ", TestVault.passphrase)],
                                      environment: vault.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("The vault is locked.\n"), "\(result)")
        #expect(result.stdout.contains("Unlocked until "), "\(result)")
        // Unlocked for the default period, in the keyring: the next command needs nothing.
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect(status["keyState"] as? String == "unlocked")
        #expect(try vault.succeed(["book", "list"]).stdout.contains("Offered"))
    }

    @Test func aWrongPassphraseAtTheOfferChangesNothing() throws {
        let vault = try TestVault()
        try vault.create()
        let before = try vault.databaseBytes()
        let result = try Terminal.run(["book", "add", "Refused"], answers: [("Passphrase to unlock it", "not it at all")],
                                      environment: vault.environment)
        #expect(result.status == 77, "\(result)")
        #expect(try vault.databaseBytes() == before)
    }

    @Test func initAtATerminalAsksAgainForAShortOrMismatchedPassphrase() throws {
        let vault = try TestVault()
        let good = "a long enough passphrase"
        let result = try Terminal.run(["init", "--kdf", "interactive"], answers: [
            ("New passphrase: ", "short"),
            ("New passphrase: ", good), ("Repeat passphrase: ", "not the same one"),
            ("New passphrase: ", good), ("Repeat passphrase: ", good),
        ], environment: vault.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Too short: a passphrase needs at least 8 characters. Try again.\n"), "\(result)")
        #expect(result.stdout.contains("The two entries differ. Try again.\n"), "\(result)")
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: good + "\n")
    }

    @Test func initAtATerminalGivesUpAfterThreeAttempts() throws {
        let vault = try TestVault()
        let result = try Terminal.run(["init", "--kdf", "interactive"], answers: [
            ("New passphrase: ", "short"), ("New passphrase: ", "tiny"), ("New passphrase: ", "wee"),
        ], environment: vault.environment)
        #expect(result.status == 65, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: vault.databasePath))
    }
}
