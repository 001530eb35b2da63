import Foundation
import Testing

/// Writing in $EDITOR: the note is saved, and its buffer never outlives the editor nor
/// leaves the private runtime directory.
@Suite struct EditorTests {
    /// A vault with a private XDG_RUNTIME_DIR and a scripted editor that records the buffer
    /// path and what it was given, then writes `text` (or fails with `status`).
    private func editorVault(writing text: String, status: Int = 0) throws -> (TestVault, URL) {
        let vault = try TestVault()
        let runtime = vault.root.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let log = vault.root.appendingPathComponent("editor.log")
        let editor = vault.root.appendingPathComponent("editor.sh")
        try """
            #!/bin/sh
            echo "$1" > '\(log.path)'
            cat "$1" > '\(log.path).given'
            printf '%s\\n' '\(text)' > "$1"
            exit \(status)
            """.write(to: editor, atomically: true, encoding: .utf8)
        vault.environment["XDG_RUNTIME_DIR"] = runtime.path
        // Read by sh, not executed: a process another test starts meanwhile may hold the
        // file open for writing (inherited), which makes executing it fail with ETXTBSY.
        vault.environment["EDITOR"] = "/bin/sh '\(editor.path)'"
        return (vault, log)
    }

    /// Runs bmvault on a terminal (util-linux `script`), so it opens the editor rather than
    /// reading stdin; under `timeout` (SIGKILL 2 s after SIGTERM, which bmvault passes to the
    /// editor while it waits), so a hang fails the test instead of holding the suite.
    private func onTerminal(_ vault: TestVault, _ arguments: [String]) throws -> CommandResult {
        let command = (["/usr/bin/timeout", "-k", "2", "60", Binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try Binary.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: vault.environment)
    }

    @Test func noteFromTheEditorIsSavedAndItsBufferShredded() throws {
        let (vault, log) = try editorVault(writing: "Written in the editor")
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try onTerminal(vault, ["note", "add", "emma", "--locator", "p. 5"])
        #expect(result.status == 0, "\(result)")

        let bodies = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        #expect(bodies.first?["body"] as? String == "Written in the editor")
        #expect(bodies.first?["locator"] as? String == "p. 5")

        let buffer = try String(contentsOf: log, encoding: .utf8).trimmingCharacters(in: .newlines)
        let runtime = try #require(vault.environment["XDG_RUNTIME_DIR"])
        #expect(buffer.hasPrefix(runtime + "/bmvault-edit-"), "buffer at \(buffer)")
        #expect(!FileManager.default.fileExists(atPath: buffer), "the buffer outlived the editor")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty, "something was left in the runtime dir")
    }

    @Test func editStartsFromTheCurrentText() throws {
        let (vault, log) = try editorVault(writing: "Second thoughts")
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let id = try vault.succeed(["note", "add", "emma", "First thoughts"]).line
        let result = try onTerminal(vault, ["edit", id])
        #expect(result.status == 0, "\(result)")
        let given = try String(contentsOf: URL(fileURLWithPath: log.path + ".given"), encoding: .utf8)
        #expect(given == """
            First thoughts

            # bmvault: a note on "Emma". Lines starting with "# bmvault:" are removed.
            # bmvault: Save an empty note (or quit without saving) to cancel; nothing is kept.

            """, "the text, then what is being written, as comment lines")
        #expect((try vault.json(["show", id, "--json"]) as? [String: Any])?["body"] as? String == "Second thoughts")
    }

    @Test func aDashAsTextReadsStandardInputEvenAtATerminal() throws {
        let (vault, _) = try editorVault(writing: "never used")
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let id = try vault.succeed(["note", "add", "emma", "-"], stdin: "Kept out of the history\n").line
        #expect((try vault.json(["show", id, "--json"]) as? [String: Any])?["body"] as? String == "Kept out of the history")
        try vault.succeed(["edit", id, "-"], stdin: "Still out of it\n")
        #expect((try vault.json(["show", id, "--json"]) as? [String: Any])?["body"] as? String == "Still out of it")
        let typed = try Binary.run("/bin/sh", ["-c", "printf 'Typed at a terminal\\n' | /usr/bin/script -qec \"'\(Binary.path)' note add emma -\" /dev/null"],
                                   environment: vault.environment)
        #expect(typed.status == 0, "\(typed)")
        let bodies = try #require(try vault.json(["list", "--json"]) as? [[String: Any]]).compactMap { $0["body"] as? String }
        #expect(bodies.contains("Typed at a terminal"), "\(bodies)")
    }

    @Test func anEditorThatFailsSavesNothing() throws {
        let (vault, _) = try editorVault(writing: "half a thought", status: 3)
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try onTerminal(vault, ["note", "add", "emma"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("the editor exited with status 3; nothing was saved"))
        #expect((try vault.json(["list", "--json"]) as? [[String: Any]])?.isEmpty == true)
    }

    @Test func withoutAPrivateRuntimeDirectoryTheEditorIsRefused() throws {
        let (vault, log) = try editorVault(writing: "never written")
        vault.environment["XDG_RUNTIME_DIR"] = "/tmp"   // shared and world-writable: refused
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try onTerminal(vault, ["note", "add", "emma"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("private $XDG_RUNTIME_DIR"))
        #expect(!FileManager.default.fileExists(atPath: log.path), "the editor ran")
    }

    @Test func withoutEDITORTheSystemsEditorOrViIsUsedAndWithoutThoseItIsAUsageError() throws {
        let (vault, log) = try editorVault(writing: "From the system editor")
        vault.environment["EDITOR"] = nil
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        // A PATH whose first `editor` is a copy of the scripted editor.
        let bin = vault.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: vault.root.appendingPathComponent("editor.sh"), to: bin.appendingPathComponent("editor"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin.appendingPathComponent("editor").path)
        vault.environment["PATH"] = bin.path + ":/usr/bin:/bin"
        let fallback = try onTerminal(vault, ["note", "add", "emma"])
        #expect(fallback.status == 0, "\(fallback)")
        #expect(FileManager.default.fileExists(atPath: log.path), "editor from $PATH ran")
        #expect(try vault.notes().first?["body"] as? String == "From the system editor")

        vault.environment["PATH"] = "/nonexistent"
        let result = try Binary.run("/usr/bin/script", ["-qec", "'\(Binary.path)' note add emma", "/dev/null"], environment: vault.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.contains("neither $VISUAL nor $EDITOR set, and no editor or vi on $PATH"))
    }

    @Test func aQuotesBufferSaysWhereItGoesAndOnlyBmvaultsLinesAreRemoved() throws {
        let (vault, log) = try editorVault(writing: "unused")
        // An editor that keeps the buffer and adds a Markdown heading and a line above the comments.
        let keeping = vault.root.appendingPathComponent("keeping.sh")
        try """
            #!/bin/sh
            echo "$1" > '\(log.path)'
            cat "$1" > '\(log.path).given'
            { printf '# A heading of mine\\nThe words.\\n'; cat "$1"; } > "$1.new" && mv "$1.new" "$1"
            """.write(to: keeping, atomically: true, encoding: .utf8)
        vault.environment["EDITOR"] = "/bin/sh '\(keeping.path)'"
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try onTerminal(vault, ["quote", "add", "emma", "--locator", "p. 5"])
        #expect(result.status == 0, "\(result)")
        let buffer = try String(contentsOf: log, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(buffer.hasSuffix("/quote.md"), "a quote's buffer is quote.md: \(buffer)")
        #expect(try String(contentsOf: URL(fileURLWithPath: log.path + ".given"), encoding: .utf8).contains(
            "# bmvault: a quote on \"Emma\" at p. 5. Lines starting with \"# bmvault:\" are removed.\n"))
        #expect(try vault.notes().first?["body"] as? String == "# A heading of mine\nThe words.", "the reader's own # line stays")
    }

    @Test func anEmptyBufferCancelsAndSaysSo() throws {
        let (vault, _) = try editorVault(writing: "")
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try onTerminal(vault, ["note", "add", "emma"])
        #expect(result.status == 1 && result.stdout.contains("the editor's buffer was empty: cancelled, nothing was saved"), "\(result)")
        #expect(try vault.notes().isEmpty)
        let id = try vault.succeed(["note", "add", "emma", "kept as it was"]).line
        let emptied = try onTerminal(vault, ["edit", id])
        #expect(emptied.status == 1, "\(emptied)")
        #expect((try vault.json(["show", id, "--json"]) as? [String: Any])?["body"] as? String == "kept as it was")
    }

    /// An editor that leaves a FIFO where its buffer was (issue 40): bmvault used to wait on
    /// it for ever (and, passing SIGTERM to the editor, could not even be stopped).
    @Test func aFIFOLeftWhereTheBufferWasIsRefusedNotWaitedOn() throws {
        let (vault, _) = try editorVault(writing: "")
        vault.environment["EDITOR"] = "/bin/sh -c 'rm \"$1\" && mkfifo \"$1\"' fifo-editor"
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let result = try onTerminal(vault, ["note", "add", "emma"])
        #expect(result.status == 1 && result.stdout.contains("the editor left something other than a file where its buffer was (a FIFO?); nothing was saved"),
                "\(result)")
        #expect(try vault.notes().isEmpty)
        let runtime = try #require(vault.environment["XDG_RUNTIME_DIR"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty, "the buffer's folder was left")
    }

    /// A buffer directory as a killed bmvault leaves it: the lock file (no longer held) and
    /// the buffer with its comment lines.
    private func leaveDraft(_ text: String, in vault: TestVault, name: String = "bmvault-edit-KILLED") throws -> URL {
        let runtime = URL(fileURLWithPath: try #require(vault.environment["XDG_RUNTIME_DIR"]))
        let draft = runtime.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: draft, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data().write(to: draft.appendingPathComponent(".lock"))
        try Data((text + "\n\n# bmvault: a note on \"Emma\". Lines starting with \"# bmvault:\" are removed.\n").utf8)
            .write(to: draft.appendingPathComponent("note.md"))
        return draft
    }

    @Test func aDraftLeftByAKilledEditIsOfferedBackAndWipedEitherWay() throws {
        let (vault, log) = try editorVault(writing: "unused")
        // An editor that saves the buffer as it was given.
        let keeping = vault.root.appendingPathComponent("keeping.sh")
        try "#!/bin/sh\necho \"$1\" > '\(log.path)'\ncat \"$1\" > '\(log.path).given'\n".write(to: keeping, atomically: true, encoding: .utf8)
        vault.environment["EDITOR"] = "/bin/sh '\(keeping.path)'"
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        let runtime = try #require(vault.environment["XDG_RUNTIME_DIR"])

        _ = try leaveDraft("Words typed before the kill", in: vault)
        let recovered = try Terminal.run(["note", "add", "emma"], answers: [("Recover it into this buffer? [y/N] ", "y")], environment: vault.environment)
        #expect(recovered.status == 0, "\(recovered)")
        #expect(recovered.stdout.contains("A draft from an interrupted edit was found (1 line)."), "the question names no content: \(recovered)")
        #expect(!recovered.stdout.contains("Words typed"))
        #expect(try vault.notes().map { $0["body"] as? String } == ["Words typed before the kill"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty, "the draft was wiped")

        _ = try leaveDraft("Not wanted", in: vault)
        let declined = try Terminal.run(["note", "add", "emma"], answers: [("Recover it into this buffer? [y/N] ", "n")], environment: vault.environment)
        #expect(declined.status == 1 && declined.stdout.contains("cancelled, nothing was saved"), "the buffer was empty: \(declined)")
        #expect(try vault.notes().count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty, "declined, the draft is wiped too")

        // A buffer another bmvault is editing right now (its lock held) is neither offered nor touched.
        let live = try leaveDraft("Being written elsewhere", in: vault, name: "bmvault-edit-LIVE")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl, sys, time; f = open(sys.argv[1], 'w'); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(30)",
                            live.appendingPathComponent(".lock").path]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        usleep(300_000)
        let alongside = try Terminal.run(["note", "add", "emma", "typed"], answers: [], environment: vault.environment)
        #expect(alongside.status == 0)
        let untouched = try Terminal.run(["note", "add", "emma"], answers: [], environment: vault.environment)
        #expect(!untouched.stdout.contains("A draft from an interrupted edit"), "\(untouched)")
        #expect(FileManager.default.fileExists(atPath: live.appendingPathComponent("note.md").path), "a live edit's buffer is left alone")
    }
}
