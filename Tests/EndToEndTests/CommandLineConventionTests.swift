import Foundation
import Testing

/// Issue 22, the smaller defects of the command line: where `--vault` points, whole
/// migration ids, and did-you-mean through the binary.
@Suite("Command-line conventions", .serialized)
struct CommandLineConventionTests {
    /// Runs bmvault in `directory` (through sh, which `cd`s there first).
    func run(in directory: URL, _ arguments: [String], stdin: String? = nil, vault: TestVault) throws -> CommandResult {
        let command = "cd '\(directory.path)' && exec '\(Binary.path)' " + arguments.map { "'\($0)'" }.joined(separator: " ")
        return try Binary.run("/bin/sh", ["-c", command], stdin: stdin, environment: vault.environment)
    }

    @Test("--vault=~/x is under $HOME, a relative path under the current directory, and .../vault.db names its folder")
    func vaultPaths() throws {
        let vault = try TestVault()
        vault.environment["HOME"] = vault.root.path
        vault.environment["BMVAULT_HOME"] = nil
        let home = vault.root
        let work = home.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

        let tilde = try run(in: work, ["--vault=~/journal", "init", "--passphrase-stdin", "--kdf", "interactive"],
                            stdin: TestVault.passphrase + "\n", vault: vault)
        #expect(tilde.status == 0, "\(tilde)")
        #expect(tilde.stderr.contains("Created a vault at \(home.path)/journal."), "\(tilde)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("journal/vault.db").path))
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("~").path), "no directory named ~")

        let relative = try run(in: work, ["--vault", "sub/../other", "init", "--passphrase-stdin", "--kdf", "interactive"],
                               stdin: TestVault.passphrase + "\n", vault: vault)
        #expect(relative.stderr.contains("Created a vault at \(work.path)/other."), "an absolute path is printed: \(relative)")

        let database = try run(in: work, ["--vault", "other/vault.db", "status"], vault: vault)
        #expect(database.status == 0 && database.stdout.contains("vault:    \(work.path)/other\n"), "the database names its folder: \(database)")
    }

    @Test("migrate --status shows whole migration ids; a mistyped command gets the name it was close to")
    func wholeIdsAndSuggestions() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let status = try vault.succeed(["migrate", "--status"]).stdout
        #expect(status.contains("  0005_outbox_check_comparisons applied "), "\(status)")
        #expect(status.contains("  0014_short_ids                applied "), "ids padded to the longest: \(status)")

        let typo = try vault.run(["serach", "my private words"])
        #expect(typo.status == 64 && typo.stderr.hasPrefix("Error: Unknown command; did you mean 'search'? Expected one of: "), "\(typo)")
        #expect(!typo.stderr.contains("private"))
        #expect(try vault.succeed(["file", "export", "--help"]).stdout.contains("USAGE: bmvault file export <id> --out <path>\n"),
                "an option the command cannot do without has no brackets")
        // export takes one of two (--out, --markdown-folder): neither alone is required.
        #expect(try vault.succeed(["export", "--help"]).stdout.contains("USAGE: bmvault export [--out <dir>] [--markdown-folder <dir>] [--include-deleted]"))
        let missing = try vault.run(["move", "@last"])
        #expect(missing.status == 64 && missing.stderr == "Error: move needs --to BOOK\n", "\(missing)")
        let option = try vault.run(["list", "--sinse", "today"])
        #expect(option.status == 64 && option.stderr.hasPrefix("Error: Unknown option '--sinse'; did you mean '--since'?"), "\(option)")
    }

    @Test("--quiet leaves out confirmations, never errors, warnings or the data on standard output")
    func quiet() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune"])
        let added = try vault.succeed(["--quiet", "note", "add", "dune", "the spice"])
        #expect(added.stderr.isEmpty && added.line.count == 36, "\(added)")
        let note = added.line
        for arguments in [["-q", "edit", note, "the spice must flow"], ["book", "progress", "dune", "12", "-q"], ["-q", "tag", "add", note, "desert"],
                          ["-q", "book", "rate", "dune", "4"], ["-q", "delete", note], ["-q", "undelete", note]] {
            let result = try vault.succeed(arguments)
            #expect(result.stderr.isEmpty, "\(arguments): \(result)")
        }
        #expect(try vault.succeed(["edit", note, "and again"]).stderr.hasPrefix("Saved note "), "without --quiet, the confirmation is there")
        let warned = try vault.succeed(["-q", "book", "add", "DUNE"])
        #expect(warned.stderr.hasPrefix("Warning: the journal already had 1 book"), "warnings stay: \(warned)")
        let failed = try vault.run(["-q", "show", "@last~9"])
        #expect(failed.status == 66 && failed.stderr.hasPrefix("Error: "), "errors stay: \(failed)")
    }

    @Test("--color always colours ids and kinds; never, NO_COLOR at a terminal, and output to a pipe do not")
    func colour() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune"])
        let quote = try vault.succeed(["quote", "add", "dune", "The spice \u{1B}[31m", "--locator", "p. 1"]).line
        let short = try vault.short(quote)
        let always = try vault.succeed(["--color", "always", "list"]).stdout
        #expect(always.hasPrefix("\u{1B}[33m\(short)\u{1B}[0m  \u{1B}[35mquote\u{1B}[0m  "), "\(always.debugDescription)")
        #expect(always.contains("The spice \u{241B}[31m"), "a note's own escape is still shown as a picture")
        #expect(!(try vault.succeed(["list"]).stdout.contains("\u{1B}[3")), "to a pipe: no colour")
        #expect(!(try vault.succeed(["--color", "never", "list"]).stdout.contains("\u{1B}[3")))
        let command = "'\(Binary.path)' list"
        var colourTerminal = vault.environment
        colourTerminal["TERM"] = "xterm-256color"
        colourTerminal["NO_COLOR"] = nil
        let terminal = try Binary.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: colourTerminal)
        #expect(terminal.stdout.contains("\u{1B}[33m\(short)\u{1B}[0m"), "at a terminal, auto colours: \(terminal.stdout.debugDescription)")
        var noColor = colourTerminal
        noColor["NO_COLOR"] = "1"
        let plain = try Binary.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: noColor)
        #expect(plain.status == 0 && !plain.stdout.contains("\u{1B}[33m"), "NO_COLOR: \(plain.stdout.debugDescription)")
        let bad = try vault.run(["--color", "sometimes", "list"])
        #expect(bad.status == 64 && bad.stderr == "Error: --color takes auto, always or never\n", "\(bad)")
    }

    @Test("Long output goes through $PAGER at a terminal; never with --no-pager, into a pipe, or for --json")
    func pager() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune"])
        try vault.succeed(["note", "add", "dune", "The spice must flow"])
        let paged = vault.root.appendingPathComponent("paged")
        let pagerScript = vault.root.appendingPathComponent("pager.sh")
        try "#!/bin/sh\ncat > '\(paged.path)'\necho 'through the pager'\n".write(to: pagerScript, atomically: true, encoding: .utf8)
        vault.environment["PAGER"] = "/bin/sh '\(pagerScript.path)'"
        func onTerminal(_ arguments: [String]) throws -> CommandResult {
            try Binary.run("/usr/bin/script", ["-qec", ([Binary.path] + arguments).map { "'\($0)'" }.joined(separator: " "), "/dev/null"],
                           environment: vault.environment)
        }
        for arguments in [["list"], ["search", "spice"], ["book", "list"], ["show", "@last"]] {
            try? FileManager.default.removeItem(at: paged)
            let result = try onTerminal(arguments)
            #expect(result.status == 0 && result.stdout.contains("through the pager"), "\(arguments): \(result)")
            #expect((try? String(contentsOf: paged, encoding: .utf8))?.contains("The spice must flow") == true || arguments == ["book", "list"],
                    "\(arguments): the listing went to the pager")
        }
        try vault.succeed(["tag", "add", "@last", "desert"])
        for arguments in [["stats"], ["tag", "list"]] {
            let result = try onTerminal(arguments)
            #expect(result.status == 0 && result.stdout.contains("through the pager"), "\(arguments): \(result)")
        }
        try? FileManager.default.removeItem(at: paged)
        let direct = try onTerminal(["--no-pager", "list"])
        #expect(direct.stdout.contains("The spice must flow") && !direct.stdout.contains("through the pager"), "\(direct)")
        let json = try onTerminal(["list", "--json"])
        #expect(json.stdout.contains("\"body\"") && !json.stdout.contains("through the pager"), "\(json)")
        #expect(try vault.succeed(["list"]).stdout.contains("The spice must flow"), "into a pipe: no pager")
        #expect(!FileManager.default.fileExists(atPath: paged.path))
    }

    @Test("The config file sets the vault, unlock period, editor, pager and colour; the command line and $BMVAULT_HOME still win")
    func configFile() throws {
        let vault = try TestVault()
        let configHome = vault.root.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: configHome.appendingPathComponent("bmvault"), withIntermediateDirectories: true)
        let file = configHome.appendingPathComponent("bmvault/config")
        let journal = vault.root.appendingPathComponent("from-config")
        vault.environment["XDG_CONFIG_HOME"] = configHome.path
        vault.environment["BMVAULT_HOME"] = nil
        try """
            # bmvault settings
            vault = \(journal.path)
            unlock-timeout = 2h
            color = always

            """.write(to: file, atomically: true, encoding: .utf8)
        try vault.succeed(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: TestVault.passphrase + "\n")
        #expect(FileManager.default.fileExists(atPath: journal.appendingPathComponent("vault.db").path), "the config's vault")
        let before = Date()
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        let until = try #require((status["unlockedUntil"] as? String).flatMap { try? Date($0, strategy: .iso8601) }, "\(status)")
        #expect(abs(until.timeIntervalSince(before) - 2 * 3600) < 60, "unlock-timeout = 2h, not the default 8h: \(until)")
        try vault.succeed(["book", "add", "Dune"])
        #expect(try vault.succeed(["book", "list"]).stdout.contains("\u{1B}[33m"), "color = always")
        #expect(!(try vault.succeed(["--color", "never", "book", "list"]).stdout.contains("\u{1B}[")), "the command line wins")

        // A line that cannot be used: exit 64, naming the line, never the value; nothing runs.
        try "vault = \(journal.path)\npassphrase = correct horse\n".write(to: file, atomically: true, encoding: .utf8)
        let unknown = try vault.run(["book", "list"])
        #expect(unknown.status == 64 && unknown.stderr == "Error: \(file.path), line 2: unknown key 'passphrase' (known: vault, unlock-timeout, editor, pager, color); nothing was done\n",
                "\(unknown)")
        #expect(!unknown.stderr.contains("correct horse"))
        try "correct horse battery staple\n".write(to: file, atomically: true, encoding: .utf8)
        let notKeyValue = try vault.run(["book", "list"])
        #expect(notKeyValue.status == 64 && notKeyValue.stderr == "Error: \(file.path), line 1: not key = value; nothing was done\n", "\(notKeyValue)")
    }

    /// Issue 40 (low): a config file of 5 M lines or a FIFO was "read failed: File too large"
    /// or "type failed", exit 1 with a failure report; it is the reader's to fix, as a bad line is.
    @Test func aConfigFileTooLargeOrNotAFileIsExit64() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let configHome = vault.root.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: configHome.appendingPathComponent("bmvault"), withIntermediateDirectories: true)
        let file = configHome.appendingPathComponent("bmvault/config")
        vault.environment["XDG_CONFIG_HOME"] = configHome.path
        let reports = vault.root.appendingPathComponent("state")
        vault.environment["XDG_STATE_HOME"] = reports.path

        try Data(repeating: UInt8(ascii: "\n"), count: 5_000_000).write(to: file)
        let large = try vault.run(["book", "list"], within: 30)
        #expect(large.status == 64, "\(large)")
        #expect(large.stderr == "Error: \(file.path): it is larger than 64 KiB, far more than its five settings need; nothing was done\n", "\(large)")

        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        let fifo = try vault.run(["book", "list"], within: 30)
        #expect(fifo.status == 64, "\(fifo)")
        #expect(fifo.stderr == "Error: \(file.path): it is not a file (a FIFO, a device or a folder); nothing was done\n", "\(fifo)")
        #expect(!FileManager.default.fileExists(atPath: reports.appendingPathComponent("bmvault/reports").path), "a failure report was written")
    }
}
