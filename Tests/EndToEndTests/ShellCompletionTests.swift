import Foundation
import Testing

/// Issue 22, shell conventions through the binary: completion scripts for bash, zsh and
/// fish that load and complete, book titles only while unlocked, and a manual page that
/// `man` renders.
@Suite("Completion and the manual page", .serialized)
struct ShellCompletionTests {
    /// Runs `script` in `shell` with the built bmvault first on PATH.
    func shell(_ shell: String, _ script: String, vault: TestVault) throws -> CommandResult {
        var environment = vault.environment
        environment["PATH"] = URL(fileURLWithPath: Binary.path).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try Binary.run(shell, ["-c", script], environment: environment)
    }

    /// What the bash completion offers for `words` (the last one being completed).
    func bashCompletes(_ words: [String], vault: TestVault) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let result = try shell("/bin/bash", """
            source <(bmvault completion bash) || exit 9
            COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
            _bmvault
            printf '%s\\n' "${COMPREPLY[@]}"
            """, vault: vault)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(words): \(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("bash completes commands, options and files from the table, and BOOK to titles only while unlocked")
    func bash() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune"])
        try vault.succeed(["book", "add", "Dune Messiah"])
        try vault.succeed(["book", "add", "Émile"])
        #expect(try bashCompletes(["bmvault", "no"], vault: vault) == ["note"])
        #expect(try bashCompletes(["bmvault", "se"], vault: vault) == ["session", "search"])
        #expect(try bashCompletes(["bmvault", "--vault", "/x", "note", ""], vault: vault) == ["add"], "a global option's value is skipped")
        #expect(try bashCompletes(["bmvault", "note", "add", "--lo"], vault: vault) == ["--locator"])
        #expect(try bashCompletes(["bmvault", "note", "add", "du"], vault: vault) == ["Dune", "Dune\\ Messiah"], "titles, quoted for the shell")
        #expect(try bashCompletes(["bmvault", "list", "--book", "emi"], vault: vault) == ["Émile"], "folded, as BOOK is")
        #expect(try bashCompletes(["bmvault", "note", "add", "Dune", "th"], vault: vault).isEmpty, "TEXT is never completed")
        #expect(try bashCompletes(["bmvault", "__comp"], vault: vault).isEmpty, "the hidden helper is not offered")
        let folder = vault.root.appendingPathComponent("archive-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(try bashCompletes(["bmvault", "export", "--out", vault.root.path + "/archive-f"], vault: vault) == [folder.path])

        try vault.succeed(["lock"])
        #expect(try bashCompletes(["bmvault", "note", "add", "du"], vault: vault).isEmpty, "locked: no titles, and no prompt")
        let helper = try vault.run(["__complete-book", "du"])
        #expect(helper.status == 0 && helper.stdout.isEmpty && helper.stderr.isEmpty, "\(helper)")
        #expect(!(try vault.succeed(["--help"]).stdout.contains("__complete")))
    }

    @Test("zsh loads its script; fish completes commands, options and titles")
    func zshAndFish() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Solaris"])
        let zsh = try shell("/usr/bin/zsh", "autoload -U compinit && compinit -u && source <(bmvault completion zsh) && whence -w _bmvault", vault: vault)
        #expect(zsh.status == 0 && zsh.stdout == "_bmvault: function\n", "\(zsh)")

        let fish = try shell("/usr/bin/fish", """
            bmvault completion fish | source
            complete -C 'bmvault no'; echo ---
            complete -C 'bmvault note add --lo'; echo ---
            complete -C 'bmvault note add so'
            """, vault: vault)
        #expect(fish.status == 0 && fish.stderr.isEmpty, "\(fish)")
        let parts = fish.stdout.components(separatedBy: "---\n")
        #expect(parts.count == 3 && parts[0] == "note\tAdd notes: your own thoughts about a book.\n", "\(fish.stdout)")
        #expect(parts.count == 3 && parts[1].hasPrefix("--locator\t"), "\(fish.stdout)")
        #expect(parts.count == 3 && parts[2] == "Solaris\n", "\(fish.stdout)")
    }

    @Test("bmvault man renders with man -l, names every command and the exit statuses")
    func manPage() throws {
        let vault = try TestVault()
        let page = try vault.succeed(["man"]).stdout
        #expect(page.hasPrefix(".TH BMVAULT 1 "))
        let file = vault.root.appendingPathComponent("bmvault.1")
        try Data(page.utf8).write(to: file)
        var environment = vault.environment
        environment["MANWIDTH"] = "80"
        let rendered = try Binary.run("/usr/bin/man", ["--warnings", "-l", file.path], environment: environment)
        #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered.stderr)")
        for heading in ["NAME", "SYNOPSIS", "GLOBAL OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT"] {
            #expect(rendered.stdout.contains("\n\(heading)\n"), "\(heading)")
        }
        for command in ["bmvault note add", "bmvault book progress", "bmvault conflicts resolve", "bmvault completion", "bmvault version"] {
            #expect(rendered.stdout.contains("   \(command)\n"), "\(command)")
        }
        #expect(!rendered.stdout.contains("__complete"))
        #expect(rendered.stdout.contains("       77     The vault is locked"), "exit statuses from ExitCode")
        #expect(rendered.stdout.contains("bmvault show @last\n"), "examples from the table")
    }
}
