import Foundation
import Testing

/// Bad input of every kind: a clear one-line error, the documented exit status, and
/// nothing already saved lost or changed.
@Suite struct BadInputTests {
    /// Every file of the vault, to compare before and after a refused command.
    private func snapshot(_ vault: TestVault) throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try vault.filesOnDisk().filter { !$0.name.hasSuffix("-shm") }.map { ($0.name, $0.bytes) })
    }

    private func expectOneLineError(_ result: CommandResult, status: Int32, containing fragment: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("Error: "), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(fragment), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
    }

    @Test func wrongPassphraseChangesNothing() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Persuasion"])
        try vault.succeed(["lock"])
        let before = try snapshot(vault)
        let result = try vault.run(["unlock", "--passphrase-stdin"], stdin: "not the passphrase\n")
        expectOneLineError(result, status: 77, containing: "wrong passphrase; nothing was changed")
        #expect(try snapshot(vault) == before)
        #expect(try vault.run(["list"]).status == 77)
    }

    @Test func lockedVaultSaysHowToUnlock() throws {
        let vault = try TestVault()
        try vault.create()
        for arguments in [["book", "add", "X"], ["book", "list"], ["note", "add", "X", "text"], ["list"], ["search", "x"], ["show", "0123"]] {
            let result = try vault.run(arguments)
            expectOneLineError(result, status: 77, containing: "run `bmvault unlock`")
        }
    }

    @Test func missingVault() throws {
        let vault = try TestVault()
        for arguments in [["status"], ["unlock", "--passphrase-stdin"], ["list"], ["lock"]] {
            let result = try vault.run(arguments, stdin: "x\n")
            expectOneLineError(result, status: 66, containing: "no vault at \(vault.directory.path)")
        }
        #expect(!FileManager.default.fileExists(atPath: vault.directory.path), "a read created the vault directory")
    }

    @Test func secondInitIsRefusedAndTheVaultUntouched() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["note", "add", "--help"])
        try vault.succeed(["book", "add", "Emma"])
        let before = try snapshot(vault)
        let again = try vault.run(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: "another passphrase\n")
        expectOneLineError(again, status: 1, containing: "a vault already exists")
        #expect(try snapshot(vault) == before)
        #expect((try vault.json(["book", "list", "--json"]) as? [[String: Any]])?.count == 1)
    }

    @Test func emptyTextIsRefused() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        expectOneLineError(try vault.run(["note", "add", "emma", ""]), status: 65, containing: "the note is empty")
        expectOneLineError(try vault.run(["note", "add", "emma", "  \n\t "]), status: 65, containing: "the note is empty")
        expectOneLineError(try vault.run(["note", "add", "emma"], stdin: ""), status: 65, containing: "the note is empty")
        expectOneLineError(try vault.run(["book", "add", " "]), status: 65, containing: "the title is empty")
        expectOneLineError(try vault.run(["quote", "add", "emma", "words", "--locator", ""]), status: 65, containing: "the locator is empty")
        expectOneLineError(try vault.run(["book", "add", "Two\nlines"]), status: 65, containing: "single line")
        #expect((try vault.json(["list", "--json"]) as? [[String: Any]])?.isEmpty == true)
    }

    @Test func invalidUTF8OnStandardInput() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let bytes = String(decoding: [0x66, 0xff, 0xfe, 0x0a], as: UTF8.self)   // U+FFFD survives; the raw test is below
        #expect(bytes.contains("\u{FFFD}"))
        // Feed raw invalid bytes through a shell, since Swift strings cannot hold them.
        let result = try Binary.run("/bin/sh", ["-c", "printf 'a\\377b' | \"$0\" note add emma", Binary.path], environment: vault.environment)
        expectOneLineError(result, status: 65, containing: "not valid UTF-8")
    }

    @Test func unknownAndAmbiguousBooks() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let dune = try vault.succeed(["book", "add", "Dune"]).line
        let messiah = try vault.succeed(["book", "add", "Dune Messiah"]).line
        let children = try vault.succeed(["book", "add", "Dune Children"]).line

        let unknown = try vault.run(["note", "add", "Emma", "text"])
        expectOneLineError(unknown, status: 66, containing: "no book matches BOOK")
        #expect(!unknown.stderr.contains("Emma"), "the error echoed the argument")

        let ambiguous = try vault.run(["note", "add", "dune ", "text"])
        #expect(ambiguous.status == 0, "an exact title (trimmed, any case) is not ambiguous: \(ambiguous)")
        let prefix = try vault.run(["note", "add", "dune m", "text"])
        #expect(prefix.status == 0)
        let reallyAmbiguous = try vault.run(["note", "add", "dune c", "text"])
        #expect(reallyAmbiguous.status == 0)
        let both = try vault.run(["list", "--book", "Dune ", "--json"])
        #expect(both.status == 0)
        let result = try vault.run(["book", "progress", "du", "10"])
        expectOneLineError(result, status: 64, containing: "BOOK matches 3 books")
        for id in [dune, messiah, children] { #expect(result.stderr.contains(id)) }
        #expect(!result.stderr.contains("Messiah"), "the error listed a title")
    }

    @Test func unknownAndAmbiguousIDs() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Emma"]).line
        let first = try vault.succeed(["note", "add", book, "one"]).line
        try vault.succeed(["note", "add", book, "two"])
        expectOneLineError(try vault.run(["show", "ffffffff-ffff-7fff-bfff-ffffffffffff"]), status: 66, containing: "no note, quote, book or session has id")
        expectOneLineError(try vault.run(["show", "abc"]), status: 64, containing: "unique prefix of at least 4")
        expectOneLineError(try vault.run(["delete", "my secret words"]), status: 64, containing: "unique prefix")
        let ambiguous = try vault.run(["show", String(first.prefix(8))])
        expectOneLineError(ambiguous, status: 64, containing: "ID matches 3 records")
        expectOneLineError(try vault.run(["edit", book, "new text"]), status: 65, containing: "is a book")
        expectOneLineError(try vault.run(["delete", book]), status: 65, containing: "still has 2 notes and quotes")
    }

    @Test func usageErrorsExit64WithTheUsageLine() throws {
        let vault = try TestVault()
        let missing = try vault.run(["note", "add"])
        #expect(missing.status == 64)
        #expect(missing.stderr == """
            Error: Missing expected argument '<book>'
            Usage: bmvault note add <book> [<text>] [--locator <locator>] [--tag <tag> ...] [--on <time>] [--json]
              See 'bmvault note add --help' for more information.

            """)
        let unknownOption = try vault.run(["list", "--colour=my secret"])
        #expect(unknownOption.status == 64)
        #expect(unknownOption.stderr.hasPrefix("Error: Unknown option '--colour'; did you mean '--color'?\n"))
        #expect(!unknownOption.stderr.contains("secret"))
        let unknownCommand = try vault.run(["note", "my private thought"])
        #expect(unknownCommand.status == 64)
        #expect(!unknownCommand.stderr.contains("private"))
        for arguments in [["book", "progress", "x", "101"], ["book", "progress", "x", "lots"], ["session", "add", "x"],
                          ["session", "add", "x", "--pages", "-3"], ["session", "add", "x", "--pages", "1", "--start", "yesterday-ish"],
                          ["unlock", "--timeout", "forever"], ["unlock", "--timeout", "0"], ["init", "--kdf", "extreme"],
                          ["list", "--kind", "poem"], ["quote", "add", "x", "words"]] {
            let result = try vault.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("Error: "), "\(arguments): \(result)")
        }
    }

    @Test func sessionEndingBeforeItStarts() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try vault.run(["session", "add", "emma", "--pages", "3", "--start", "2026-12-01 10:00", "--end", "2026-12-01 09:00"])
        expectOneLineError(result, status: 65, containing: "ends before it starts")
    }

    @Test func recoveryKeyTypoAndWrongKey() throws {
        let vault = try TestVault()
        let recoveryKey = try vault.create()
        var typo = Array(recoveryKey)
        typo[3] = typo[3] == "A" ? "B" : "A"
        expectOneLineError(try vault.run(["unlock", "--recovery-key-stdin"], stdin: String(typo) + "\n"),
                           status: 65, containing: "the recovery key's checksum failed: a character is mistyped or two are swapped")
        expectOneLineError(try vault.run(["unlock", "--recovery-key-stdin"], stdin: String(typo.dropLast(2)) + "\n"),
                           status: 65, containing: "not a valid recovery key: expected 36 characters")
        let other = try TestVault()
        let otherKey = try other.create()
        expectOneLineError(try vault.run(["unlock", "--recovery-key-stdin"], stdin: otherKey + "\n"),
                           status: 77, containing: "does not open this vault")
        expectOneLineError(try vault.run(["unlock", "--recovery-key-stdin", "--passphrase-stdin"], stdin: "x\n"),
                           status: 64, containing: "not both")
    }

    @Test func shortPassphraseIsRefusedAtInit() throws {
        let vault = try TestVault()
        expectOneLineError(try vault.run(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: "short\n"),
                           status: 65, containing: "at least 8 characters")
        #expect(!FileManager.default.fileExists(atPath: vault.databasePath))
    }

    @Test func notAVault() throws {
        let vault = try TestVault()
        try FileManager.default.createDirectory(at: vault.directory, withIntermediateDirectories: true)
        try Data("this is not a database, just a file that happens to be here".utf8).write(to: URL(fileURLWithPath: vault.databasePath))
        let before = try vault.databaseBytes()
        expectOneLineError(try vault.run(["status"]), status: 65, containing: "is not a bmvault vault")
        #expect(try vault.databaseBytes() == before)
    }

    @Test func textThatLooksLikeAnOptionIsNeverEchoed() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try vault.run(["note", "add", "emma", "-my secret thought"])
        #expect(result.status == 64)
        #expect(!result.stderr.contains("secret"), "\(result)")
        #expect(result.stderr.hasPrefix("Error: Unknown option; to give text that starts with '-', put it after '--'\n"))
        // And `--` is the way to write it.
        try vault.succeed(["note", "add", "emma", "--", "-my secret thought"])
        #expect((try vault.json(["list", "--json"]) as? [[String: Any]])?.first?["body"] as? String == "-my secret thought")
    }

    @Test func controlCharactersNeverReachTheTerminalRaw() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let hostile = "before\u{1B}[2Jafter\u{7F}\u{9B}31m"
        let id = try vault.succeed(["note", "add", "emma", hostile]).line
        for arguments in [["list"], ["show", id], ["search", "before"], ["list", "--json"], ["show", id, "--json"]] {
            let output = try vault.succeed(arguments).stdout
            #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7F}" || $0 == "\u{9B}" }, "\(arguments)")
        }
        // JSON still carries the exact text, escaped.
        let body = (try vault.json(["show", id, "--json"]) as? [String: Any])?["body"] as? String
        #expect(body == hostile)
    }

    @Test func deleteSaysWhatItDeleted() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let quote = try vault.succeed(["quote", "add", "emma", "words", "--locator", "p. 1"]).line
        let short = try vault.short(quote)
        #expect(try vault.succeed(["delete", quote]).stderr == "Deleted quote \(short).\n", "a message names a record by its short id")
    }

    @Test func anOverlongPassphraseIsRefusedNotCut() throws {
        let vault = try TestVault()
        let long = String(repeating: "x", count: 5000)
        let result = try vault.run(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: long + "\n")
        #expect(result.status == 65)
        #expect(result.stderr == "Error: the passphrase is longer than 4096 bytes; nothing was changed\n")
        #expect(!FileManager.default.fileExists(atPath: vault.databasePath))
    }
}
