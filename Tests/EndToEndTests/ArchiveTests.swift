import Foundation
import Testing

/// `bmvault export` and `bmvault import` as a reader runs them: archives a person can read
/// with `less` and `jq`, that a well-kept JSON Schema validator accepts, that round-trip
/// exactly, and that never change the vault when they are malformed.
@Suite struct ArchiveTests {
    /// Content that is hard to carry: Markdown-significant characters, other scripts, emoji,
    /// indentation, a long quote.
    static let trickyNote = "\n\n# not a heading\n> not a quote\n---\n  two spaces, `code`, *stars*, _under_, [link](x), <b>, &amp;, \\\\, $5, a | b\n\n1. not a list\n— not a locator\ntrailing \nend"
    static let longQuote = String(repeating: "Le désert est beau parce qu'il cache un puits quelque part. 🐑 ", count: 300)

    /// A vault with a bit of everything, unlocked; returns it and its ids.
    static func populated() throws -> (vault: TestVault, book: String, note: String) {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "# Title > with --- `marks` and Война и мир 📚", "--author", "שלום \"Shalom\"", "--author", "Léon"]).line
        let other = try vault.succeed(["book", "add", "Солярис"]).line
        try vault.succeed(["book", "progress", book, "42.5"])
        try vault.succeed(["session", "add", book, "--pages", "12", "--start", "2026-01-02T21:00:00Z", "--end", "2026-01-02T22:10:00Z"])
        let note = try vault.succeed(["note", "add", book, "--locator", "p. 1 #2"], stdin: trickyNote).line
        try vault.succeed(["quote", "add", other, "--locator", "гл. 6"], stdin: longQuote)
        try vault.succeed(["note", "add", other, "RTL مرحبا بالعالم and emoji 👩🏽‍💻🇫🇷"])
        let doomed = try vault.succeed(["note", "add", other, "deleted afterwards"]).line
        try vault.succeed(["delete", doomed])
        let edited = try vault.succeed(["note", "add", other, "first draft"]).line
        try vault.succeed(["edit", edited, "second draft"])
        return (vault, book, note)
    }

    /// Every file of an archive by path, manifest.json without its exportedAt line.
    static func contents(_ archive: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: archive.path) where path != "books" {
            var text = try String(contentsOf: archive.appendingPathComponent(path), encoding: .utf8)
            if path == "manifest.json" { text = text.split(separator: "\n").filter { !$0.contains("\"exportedAt\"") }.joined(separator: "\n") }
            files[path] = text
        }
        return files
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1
    }

    @Test(arguments: [true, false])
    func exportThenImportThenExportIsIdentical(includeDeleted: Bool) throws {
        let (vault, _, _) = try Self.populated()
        let first = vault.root.appendingPathComponent("first")
        let flag = includeDeleted ? ["--include-deleted"] : []
        let exported = try vault.succeed(["export", "--out", first.path] + flag)
        #expect(exported.stdout.isEmpty)
        let lines = exported.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(exported)")
        #expect(lines.last == "Warning: the archive is not encrypted; anyone who can read \(first.path) can read your journal.")
        #expect(lines.first == "Exported 2 books, 1 session, \(includeDeleted ? 4 : 3) notes and 1 quote to \(first.path).")

        let fresh = try TestVault()
        try fresh.createUnlocked()
        let imported = try fresh.succeed(["import", first.path])
        #expect(imported.stdout.contains("Added:      2 books, 1 session, \(includeDeleted ? 4 : 3) notes, 1 quote\n"), "\(imported)")
        let second = fresh.root.appendingPathComponent("second")
        try fresh.succeed(["export", "--out", second.path] + flag)
        #expect(try Self.contents(first) == Self.contents(second))
        #expect(try Self.contents(first).keys.filter { $0.hasPrefix("books/") }.count == 2)
    }

    @Test func theArchiveIsPrivateAndReadsWithLessAndJq() throws {
        let (vault, _, note) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        #expect(Self.mode(archive.path) == 0o700 && Self.mode(archive.appendingPathComponent("books").path) == 0o700)
        for path in try FileManager.default.subpathsOfDirectory(atPath: archive.path) where path != "books" {
            #expect(Self.mode(archive.appendingPathComponent(path).path) == 0o600, "\(path)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.root.path).sorted() == ["archive", "vault"], "no staging directory left")
        let journal = archive.appendingPathComponent("journal.json").path
        let body = try Binary.run("/usr/bin/jq", ["-r", "--arg", "id", note, ".notes[] | select(.id == $id) | .body", journal], environment: vault.environment)
        #expect(body.status == 0 && body.stdout == Self.trickyNote + "\n")
        let titles = try Binary.run("/usr/bin/jq", ["-r", ".books[].title", journal], environment: vault.environment)
        #expect(titles.stdout == "# Title > with --- `marks` and Война и мир 📚\nСолярис\n")
        let pages = try Binary.run("/usr/bin/jq", ["[.sessions[] | .pagesRead] | add", journal], environment: vault.environment)
        #expect(pages.stdout == "12\n")
        let markdown = try FileManager.default.contentsOfDirectory(atPath: archive.appendingPathComponent("books").path).sorted()
        let page = try Binary.run("/usr/bin/less", ["-FX", archive.appendingPathComponent("books/" + markdown[0]).path],
                                  environment: vault.environment.merging(["LESSSECURE": "1"]) { $1 })
        #expect(page.status == 0)
        #expect(page.stdout.contains("## Notes and quotes") && page.stdout.contains("<!-- bmvault:note \(note) "), "\(page)")
        // Written as typed, with references (`text=references`) for the leading line breaks and
        // the trailing space an editor would lose, and so for every `&`.
        #expect(page.stdout.contains(" text=references -->\n&#10;&#10;# not a heading\n> not a quote\n---\n  two spaces, `code`, *stars*, _under_, [link](x), <b>, &amp;amp;,"), "\(page)")
    }

    @Test func realExportsAndTheGoldenFixturesMatchTheSchema() throws {
        guard let python = SchemaValidator.python else {
            Issue.record("no .build/test-venv with jsonschema: run Scripts/test, which makes it, to validate archives against Schemas/archive")
            return
        }
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path, "--include-deleted"])
        var archives = [(archive, GoldenArchive.versions.max() ?? 1)]
        for version in GoldenArchive.versions { archives.append((GoldenArchive.directory(version), version)) }
        for (directory, version) in archives {
            let result = try SchemaValidator.validate(directory, version: version, python: python, environment: vault.environment)
            #expect(result.status == 0 && result.stdout == "valid\n", "\(directory.path): \(result)")
        }
        // The validator does reject what breaks the schema.
        let broken = vault.root.appendingPathComponent("broken")
        try FileManager.default.copyItem(at: archive, to: broken)
        let journal = broken.appendingPathComponent("journal.json")
        let text = try String(contentsOf: journal, encoding: .utf8)
        try text.replacingOccurrences(of: "\"pagesRead\" : 12", with: "\"pagesRead\" : -12").write(to: journal, atomically: true, encoding: .utf8)
        #expect(try SchemaValidator.validate(broken, version: GoldenArchive.versions.max() ?? 1, python: python, environment: vault.environment).status != 0)
    }

    /// A killed export leaves its unfinished copy (plaintext) beside the archive; the next
    /// export to the same place removes it, and says so; one still being written is left
    /// alone (issue 23, low).
    @Test func anInterruptedExportsLeftoverGoesWithTheNextOne() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Solaris"])
        try vault.succeed(["note", "add", "solaris", "Zebra canary"])
        let out = vault.root.appendingPathComponent("export")
        let killed = try vault.run(["export", "--out", out.path], environment: ["BMVAULT_TEST_CRASH_AT": "export:before-commit"])
        #expect(killed.status == 137, "\(killed)")
        let leftovers = { try FileManager.default.contentsOfDirectory(atPath: vault.root.path).filter { $0.hasPrefix("export.partial-") } }
        #expect(try leftovers().count == 1)
        // Another export, still running, holds its copy's lock: that one is not a leftover.
        let live = vault.root.appendingPathComponent("export.partial-00112233aabbccdd")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: false)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-x", live.path, "sleep", "30"]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        usleep(300_000)

        let exported = try vault.run(["export", "--out", out.path])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stderr.contains("Removed 1 unfinished copy left beside \(out.path) by an interrupted export."), "\(exported)")
        #expect(try leftovers() == ["export.partial-00112233aabbccdd"], "the killed export's copy is gone, the live one kept")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("journal.json").path))
    }

    @Test func aDryRunReportsAndChangesNothing() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let fresh = try TestVault()
        try fresh.createUnlocked()
        let before = try fresh.databaseBytes()
        let dry = try fresh.succeed(["import", archive.path, "--dry-run"])
        #expect(dry.stdout == """
            Dry run: nothing was changed.
            Would add:       2 books, 1 session, 3 notes, 1 quote
            Would update:    0 books, 0 notes, 0 quotes
            Unchanged:       0 records
            Would conflict:  0

            """, "\(dry)")
        #expect(try fresh.databaseBytes() == before)
        let json = try fresh.json(["import", archive.path, "--dry-run", "--json"]) as? [String: Any]
        #expect((json?["added"] as? [String: Int])?["notes"] == 3 && json?["dryRun"] as? Bool == true)
        #expect(try fresh.databaseBytes() == before)
        let status = try fresh.json(["status", "--json"]) as? [String: Any]
        #expect((status?["counts"] as? [String: Int])?["books"] == 0)
    }

    @Test func importingTwiceAddsNothingAndWritesNoOperation() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path, "--include-deleted"])
        func pending() throws -> Int {
            ((try vault.json(["status", "--json"]) as? [String: Any])?["outbox"] as? [String: Int])?["pending"] ?? -1
        }
        let before = try pending()
        let again = try vault.succeed(["import", archive.path])
        #expect(again.stdout.contains("Added:      0 books, 0 sessions, 0 notes, 0 quotes\nUpdated:    0 books, 0 notes, 0 quotes\nUnchanged:  8 records\nConflicts:  0\n"), "\(again)")
        #expect(try pending() == before)
    }

    /// An import alone with the vault writes with a rollback journal, straight into the
    /// file. Killed just before its commit, after pages went into the file, it leaves a hot
    /// journal; the next command rolls it back, so the vault is exactly as it was, and back
    /// in WAL mode; the import can simply be run again.
    @Test func anImportKilledBeforeItsCommitLeavesTheVaultAsItWas() throws {
        let source = try TestVault()
        try source.createUnlocked()
        let book = try source.succeed(["book", "add", "Long Quotes"]).line
        // Four quotes of ~900 KB: several MiB of pages, more than SQLite's page cache holds.
        let passage = String(repeating: "A long passage copied out by hand, sentence after sentence. ", count: 15_000)
        for index in 0..<4 {
            try source.succeed(["quote", "add", book, "--locator", "p. \(index + 1)"], stdin: "\(index) \(passage)")
        }
        let archive = source.root.appendingPathComponent("archive")
        try source.succeed(["export", "--out", archive.path])

        let target = try TestVault()
        try target.createUnlocked()
        try target.succeed(["book", "add", "Already here"])
        let before = try target.journalDump()
        let sizeBefore = try target.databaseBytes().count
        let crashed = try target.run(["import", archive.path], environment: ["BMVAULT_TEST_CRASH_AT": "import:before-commit"])
        try #require(crashed.status == 137, "expected death by SIGKILL:\n\(crashed)")
        let names = try FileManager.default.contentsOfDirectory(atPath: target.directory.path)
        #expect(names.contains("vault.db-journal") && !names.contains("vault.db-wal"), "\(names)")
        #expect(try target.databaseBytes().count > sizeBefore + 2_000_000, "no page reached the file before the crash")

        try target.succeed(["status"])
        #expect(try target.journalDump() == before)
        #expect(try target.databaseBytes().count == sizeBefore)
        #expect(try target.sqlite("PRAGMA journal_mode;") == "wal")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: target.directory.path)).contains("vault.db-journal"))
        let again = try target.succeed(["import", archive.path])
        #expect(again.stdout.contains("Added:      1 book, 0 sessions, 0 notes, 4 quotes\n"), "\(again)")
        #expect(try target.sqlite("PRAGMA journal_mode;") == "wal")
    }

    @Test func anEditedMarkdownFileUpdatesItsNoteAndAddsNewParagraphs() throws {
        let (vault, book, note) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let books = archive.appendingPathComponent("books")
        // Find the note's file by its marker; its name ends in the start of the book id's random part.
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: books.path).first { name in
            (try? String(contentsOf: books.appendingPathComponent(name), encoding: .utf8))?.contains("<!-- bmvault:note \(note) ") == true
        })
        #expect(name.hasSuffix("-\(randomPart(of: book).prefix(8)).md"), "\(name) for \(book)")
        let file = books.appendingPathComponent(name)
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "trailing&#32;\nend", with: "trailing&#32;\nend, edited in the Markdown")
        text += "\nA paragraph I added.\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let result = try vault.succeed(["import", archive.path])
        #expect(result.stdout.contains("Added:      0 books, 0 sessions, 1 note, 0 quotes\nUpdated:    0 books, 1 note, 0 quotes\n"), "\(result)")
        #expect(result.stderr.contains("Read 1 edited Markdown file in place of journal.json for its book."))
        let shown = try vault.json(["show", note, "--json"]) as? [String: Any]
        #expect(shown?["body"] as? String == Self.trickyNote + ", edited in the Markdown")
        let again = try vault.succeed(["import", archive.path])
        #expect(again.stdout.contains("Added:      0 books, 0 sessions, 0 notes, 0 quotes\nUpdated:    0 books, 0 notes, 0 quotes\n"), "\(again)")
    }

    /// What is done to a good archive to spoil it, and what the one error line must name.
    struct Spoiler: CustomTestStringConvertible, Sendable {
        let name: String
        let force: Bool
        let spoil: @Sendable (URL) throws -> Void
        let expected: String
        var testDescription: String { name }
    }

    static func rewrite(_ file: URL, _ change: (String) -> String) throws {
        try change(try String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
    }

    static let spoilers: [Spoiler] = [
        Spoiler(name: "bad JSON", force: true, spoil: { archive in
            try rewrite(archive.appendingPathComponent("journal.json")) { $0.replacingOccurrences(of: "\"version\" : 1\n    }", with: "\"version\" : 1,\n    }") }
        }, expected: #"^Error: journal\.json line \d+: expected a string key; nothing was imported$"#),
        Spoiler(name: "bad UTF-8", force: true, spoil: { archive in
            let file = archive.appendingPathComponent("journal.json")
            var bytes = [UInt8](try Data(contentsOf: file))
            let needle = Array("second draft".utf8)
            let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
            bytes[at] = 0xFF
            try Data(bytes).write(to: file)
        }, expected: #"^Error: journal\.json line \d+: the text is not valid UTF-8; nothing was imported$"#),
        Spoiler(name: "a missing field", force: true, spoil: { archive in
            try rewrite(archive.appendingPathComponent("journal.json")) { $0.replacingOccurrences(of: "      \"body\" : \"second draft\",\n", with: "") }
        }, expected: #"^Error: journal\.json line \d+: record [0-9a-f-]{36}: body is missing; nothing was imported$"#),
        Spoiler(name: "a note for an unknown book", force: true, spoil: { archive in
            try rewrite(archive.appendingPathComponent("journal.json")) { text in
                var lines = text.components(separatedBy: "\n")
                let index = try! #require(lines.lastIndex { $0.contains("\"bookId\"") })
                lines[index] = "      \"bookId\" : \"0193f2a1-7c4e-7abc-8def-0123456789ab\","
                return lines.joined(separator: "\n")
            }
        }, expected: #"^Error: journal\.json line \d+: record [0-9a-f-]{36} belongs to book 0193f2a1-7c4e-7abc-8def-0123456789ab, which is neither in the archive nor in the vault; nothing was imported$"#),
        Spoiler(name: "a truncated file", force: true, spoil: { archive in
            let file = archive.appendingPathComponent("journal.json")
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count * 2 / 3).write(to: file)
        }, expected: #"^Error: journal\.json line \d+: the file ends too early \(was it cut short\?\); nothing was imported$"#),
        Spoiler(name: "a checksum mismatch", force: false, spoil: { archive in
            try rewrite(archive.appendingPathComponent("journal.json")) { $0.replacingOccurrences(of: "second draft", with: "second draft!") }
        }, expected: #"^Error: the file of entry \d+ in manifest\.json's files \(counted from 1\) is missing or differs from manifest\.json \(size or SHA-256\): the archive was changed or damaged; nothing was imported; --force imports it anyway$"#),
        Spoiler(name: "a newer format version", force: true, spoil: { archive in
            try rewrite(archive.appendingPathComponent("manifest.json")) { $0.replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 9") }
        }, expected: #"^Error: this archive has format version 9, newer than the 2 this bmvault [0-9.]+ reads; upgrade bmvault; nothing was imported$"#),
        // Issue 23: a version no change could ever follow would plant an uneditable record on every device.
        Spoiler(name: "a version past the range in journal.json", force: true, spoil: { archive in
            try rewrite(archive.appendingPathComponent("journal.json")) { $0.replacingOccurrences(of: "\"version\" : 2\n", with: "\"version\" : 9223372036854775807\n") }
        }, expected: #"^Error: journal\.json line \d+: record [0-9a-f-]{36}: version is not a whole number from 1 to 9007199254740991; nothing was imported$"#),
        Spoiler(name: "a version past the range in a Markdown marker", force: true, spoil: { archive in
            let books = archive.appendingPathComponent("books")
            for name in try FileManager.default.contentsOfDirectory(atPath: books.path) {
                try rewrite(books.appendingPathComponent(name)) { $0.replacingOccurrences(of: " version=2 ", with: " version=9223372036854775807 ") }
            }
        }, expected: #"^Error: books/…-[0-9a-f]{8}\.md line \d+: record [0-9a-f-]{36}: version is not a whole number from 1 to 9007199254740991; nothing was imported$"#),
        Spoiler(name: "a version past the range in front matter", force: true, spoil: { archive in
            let books = archive.appendingPathComponent("books")
            for name in try FileManager.default.contentsOfDirectory(atPath: books.path) {
                try rewrite(books.appendingPathComponent(name)) { $0.replacingOccurrences(of: "\nversion: 2\n", with: "\nversion: 9223372036854775808\n") }
            }
        }, expected: #"^Error: books/…-[0-9a-f]{8}\.md line \d+: record [0-9a-f-]{36}: version is not a whole number from 1 to 9007199254740991; nothing was imported$"#),
        // Issue 23: a manifest path reached the terminal raw in the checksum error, escape sequences and all.
        Spoiler(name: "a manifest path with a terminal escape", force: false, spoil: { archive in
            try rewrite(archive.appendingPathComponent("manifest.json")) {
                $0.replacingOccurrences(of: "\"files\" : {\n", with: "\"files\" : {\n    \"\\u001b]0;owned\\u0007x\" : { \"bytes\" : 1, \"sha256\" : \"\(String(repeating: "0", count: 64))\" },\n")
            }
        }, expected: #"^Error: manifest\.json: files is an entry without a safe path, bytes and sha256; nothing was imported$"#),
        // Issue 23 (low): top-level members read twice or not at all; a manifest that is a folder.
        Spoiler(name: "a second notes member", force: true, spoil: { archive in
            try rewrite(archive.appendingPathComponent("journal.json")) { $0.replacingOccurrences(of: "\n  \"notes\" : [", with: "\n  \"notes\" : [],\n  \"notes\" : [") }
        }, expected: #"^Error: journal\.json line \d+: the top-level member "notes" appears twice; nothing was imported$"#),
        Spoiler(name: "a manifest that is a folder", force: false, spoil: { archive in
            try FileManager.default.removeItem(at: archive.appendingPathComponent("manifest.json"))
            try FileManager.default.createDirectory(at: archive.appendingPathComponent("manifest.json"), withIntermediateDirectories: false)
        }, expected: #"^Error: manifest\.json line 1: not a regular file \(a pipe, a device or a folder\); nothing was imported$"#),
        Spoiler(name: "a Markdown note without its end marker", force: false, spoil: { archive in
            let books = archive.appendingPathComponent("books")
            for name in try FileManager.default.contentsOfDirectory(atPath: books.path) {
                try rewrite(books.appendingPathComponent(name)) { $0.replacingOccurrences(of: "<!-- /bmvault:note -->\n", with: "") }
            }
        }, expected: #"^Error: books/…-[0-9a-f]{8}\.md line \d+: this note has no end marker before the next one; nothing was imported$|^Error: books/…-[0-9a-f]{8}\.md line \d+: the file ends too early \(was it cut short\?\); nothing was imported$"#),
    ]

    @Test(arguments: spoilers)
    func aMalformedArchiveIsOneLineExit65AndTheVaultIsUnchanged(_ spoiler: Spoiler) throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        try spoiler.spoil(archive)
        let target = try TestVault()
        try target.createUnlocked()
        try target.succeed(["book", "add", "Already here"])
        let before = try target.databaseBytesIgnoringChangeCounter()
        for arguments in [["import", archive.path] + (spoiler.force ? ["--force"] : []), ["import", archive.path, "--dry-run"] + (spoiler.force ? ["--force"] : [])] {
            // A dry run never leaves WAL mode: not even SQLite's change counter moves.
            let exactly = try target.databaseBytes()
            let result = try target.run(arguments)
            #expect(result.status == 65, "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.range(of: spoiler.expected, options: .regularExpression) != nil,
                    "\(result.stderr)")
            #expect(try target.databaseBytesIgnoringChangeCounter() == before)
            if arguments.contains("--dry-run") { #expect(try target.databaseBytes() == exactly) }
        }
    }

    /// Issue 23: an import whose merge stopped while parsed batches still waited crashed
    /// (exit 132, "semaphore object deallocated while in use") instead of exiting 65, about
    /// every other run: here a duplicate id far into a journal.json of 3,000 notes, imported
    /// again and again.
    @Test func aMergeThatStopsWithBatchesWaitingExits65EveryTime() throws {
        let (vault, _, note) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let file = archive.appendingPathComponent("journal.json")
        var journal = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let template = try #require((journal["notes"] as? [[String: Any]])?.first { $0["id"] as? String == note })
        var notes: [[String: Any]] = []
        for index in 0..<3_000 {
            var copy = template
            copy["id"] = String(note.prefix(24)) + String(format: "%012x", index)
            notes.append(copy)
        }
        notes[2_000]["id"] = notes[10]["id"]
        journal["notes"] = notes
        try JSONSerialization.data(withJSONObject: journal, options: [.prettyPrinted]).write(to: file)

        for round in 0..<8 {
            let target = try TestVault()
            try target.createUnlocked()
            let before = try target.databaseBytesIgnoringChangeCounter()
            let result = try target.run(["import", archive.path, "--force"])
            #expect(result.status == 65, "round \(round): \(result)")
            #expect(result.stderr.contains("a second record with id \(notes[10]["id"] as? String ?? "")"), "round \(round): \(result)")
            #expect(try target.databaseBytesIgnoringChangeCounter() == before)
        }
    }

    /// Issue 23: nothing inside an archive is followed through a link, and no FIFO or device
    /// is waited on: each is one line and exit 65, quickly, with the vault unchanged. The path
    /// the reader typed may be a link.
    @Test func linksAndPipesInsideAnArchiveAreRefusedNotFollowed() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let target = try TestVault()
        try target.createUnlocked()
        func bounded(_ arguments: [String]) throws -> CommandResult {
            try Binary.run("/usr/bin/timeout", ["20", Binary.path] + arguments, environment: target.environment)
        }
        func copy(_ name: String) throws -> URL {
            let copy = vault.root.appendingPathComponent(name)
            try FileManager.default.copyItem(at: archive, to: copy)
            return copy
        }
        let before = try target.databaseBytesIgnoringChangeCounter()

        // journal.json as a FIFO: refused at once.
        let piped = try copy("piped")
        try FileManager.default.removeItem(at: piped.appendingPathComponent("journal.json"))
        #expect(mkfifo(piped.appendingPathComponent("journal.json").path, 0o600) == 0)
        let pipe = try bounded(["import", piped.path, "--force"])
        #expect(pipe.status == 65, "\(pipe)")
        #expect(pipe.stderr == "Error: journal.json line 1: not a regular file (a pipe, a device or a folder); nothing was imported\n", "\(pipe)")
        let typedPipe = try bounded(["import", piped.appendingPathComponent("journal.json").path])
        #expect(typedPipe.status == 65, "\(typedPipe)")

        // books/ as a link to a folder elsewhere: refused.
        let outside = vault.root.appendingPathComponent("outside")
        try FileManager.default.copyItem(at: archive.appendingPathComponent("books"), to: outside)
        let linkedBooks = try copy("linked-books")
        try FileManager.default.removeItem(at: linkedBooks.appendingPathComponent("books"))
        try FileManager.default.createSymbolicLink(atPath: linkedBooks.appendingPathComponent("books").path, withDestinationPath: outside.path)
        let books = try bounded(["import", linkedBooks.path, "--force"])
        #expect(books.status == 65, "\(books)")
        #expect(books.stderr.hasPrefix("Error: books line 1: a link where the archive's folder belongs"), "\(books)")
        #expect(try target.databaseBytesIgnoringChangeCounter() == before)

        // A Markdown book file as a link to one elsewhere: not read (with no journal.json,
        // the Markdown is the archive, so nothing is left to import).
        let linkedFile = try copy("linked-file")
        try FileManager.default.removeItem(at: linkedFile.appendingPathComponent("journal.json"))
        try FileManager.default.removeItem(at: linkedFile.appendingPathComponent("manifest.json"))
        for name in try FileManager.default.contentsOfDirectory(atPath: linkedFile.appendingPathComponent("books").path) {
            let link = linkedFile.appendingPathComponent("books").appendingPathComponent(name)
            try FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: outside.appendingPathComponent(name).path)
        }
        let file = try bounded(["import", linkedFile.path])
        #expect(file.status == 65, "\(file)")
        #expect(try target.databaseBytesIgnoringChangeCounter() == before)

        // The journal.json the reader names may be a link: it is their own choice of file.
        let typed = vault.root.appendingPathComponent("typed.json")
        try FileManager.default.createSymbolicLink(atPath: typed.path, withDestinationPath: archive.appendingPathComponent("journal.json").path)
        #expect(try bounded(["import", typed.path]).status == 0)
    }

    /// Issue 23: hostile Markdown (300,000 blank lines in one note; 25 million one-character
    /// lines in one note, 50 MB; 12 million added paragraphs) is read line by line in linear
    /// time, within 64 MiB, and what breaks a bound is refused with exit 65. Memory is the
    /// child's peak RSS (getrusage); the time bound only catches a hang or a quadratic walk.
    @Test func hostileMarkdownIsReadInLinearTimeAndBoundedMemory() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Hostile"]).line
        try vault.succeed(["note", "add", book, "first line"])
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let bookFile = try #require(try FileManager.default.contentsOfDirectory(atPath: archive.appendingPathComponent("books").path).first)
        let markdown = try String(contentsOf: archive.appendingPathComponent("books").appendingPathComponent(bookFile), encoding: .utf8)
        let measure = #"""
            import resource, subprocess, sys
            result = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=float(sys.argv[1]))
            print(result.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, result.stderr.decode()[-300:].strip())
            """#
        let cases: [(name: String, inner: String, status: Int32)] = [
            ("blank", "first line" + String(repeating: "\n", count: 300_000) + "last line", 0),
            ("short", "first line\n" + String(repeating: "x\n", count: 25_000_000), 65),
            ("paras", "first line\n<!-- /bmvault:note -->\n\n" + String(repeating: "p\n\n", count: 12_000_000)
                + "<!-- bmvault:note 00000000-0000-7000-8000-000000000000 -->\nx", 65),
        ]
        for hostile in cases {
            let copy = vault.root.appendingPathComponent(hostile.name)
            try FileManager.default.copyItem(at: archive, to: copy)
            for name in ["journal.json", "manifest.json"] { try FileManager.default.removeItem(at: copy.appendingPathComponent(name)) }
            let range = try #require(markdown.range(of: "first line"))
            try markdown.replacingCharacters(in: range, with: hostile.inner)
                .write(to: copy.appendingPathComponent("books").appendingPathComponent(bookFile), atomically: false, encoding: .utf8)
            let target = try TestVault()
            try target.createUnlocked()
            let result = try Binary.run("/usr/bin/python3", ["-c", measure, "120", Binary.path, "import", copy.path, "--dry-run"],
                                        environment: target.environment)
            let fields = result.stdout.split(separator: " ", maxSplits: 2)
            #expect(result.status == 0 && fields.count >= 2, "\(hostile.name): \(result)")
            guard fields.count >= 2, let status = Int32(fields[0]), let peakKiB = Int(fields[1]) else { continue }
            #expect(status == hostile.status, "\(hostile.name): \(result.stdout)")
            #expect(peakKiB <= 64 * 1024, "\(hostile.name): peak RSS \(peakKiB) KiB")
            try? FileManager.default.removeItem(at: copy)
        }
    }

    /// A record at the last version number (an archive may hold one) reads, and a change to
    /// it fails with exit 65 and changes nothing, instead of trapping.
    @Test func aRecordAtTheLastVersionNumberCannotChangeButNeverTraps() throws {
        let (vault, book, note) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        try Self.rewrite(archive.appendingPathComponent("journal.json")) { text in
            var lines = text.components(separatedBy: "\n")
            for anchor in [note, book] {
                let start = try! #require(lines.firstIndex { $0.contains("\"id\" : \"\(anchor)\"") })
                let at = try! #require(lines[start...].firstIndex { $0.contains("\"version\" : ") })
                lines[at] = lines[at].replacingOccurrences(of: #"\d+"#, with: "9007199254740991", options: .regularExpression)
            }
            return lines.joined(separator: "\n")
        }
        let fresh = try TestVault()
        try fresh.createUnlocked()
        try fresh.succeed(["import", archive.path, "--force"])
        #expect(try fresh.succeed(["show", note]).stdout.contains("(version 9007199254740991)"))
        let before = try fresh.databaseBytesIgnoringChangeCounter()
        for arguments in [["edit", note, "changed"], ["delete", note], ["book", "progress", book, "90"]] {
            let result = try fresh.run(arguments)
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.stderr.hasSuffix("has reached the highest version number (9007199254740991) and cannot change again; nothing was changed\n"),
                    "\(arguments): \(result)")
        }
        #expect(try fresh.databaseBytesIgnoringChangeCounter() == before)
    }

    /// Issue 40 (low): the checksum error repeated the path the manifest gave the entry,
    /// text the archive chose; it names the entry by its place in the manifest instead.
    @Test func aChecksumErrorNamesTheEntryNotItsPath() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let planted = "Zebra canary: run rm -rf ~ now.txt"
        try Data("hello".utf8).write(to: archive.appendingPathComponent(planted))
        try Self.rewrite(archive.appendingPathComponent("manifest.json")) {
            $0.replacingOccurrences(of: "\"files\" : {", with: "\"files\" : {\n    \"\(planted)\" : { \"bytes\" : 5, \"sha256\" : \"\(String(repeating: "0", count: 64))\" },")
        }
        let fresh = try TestVault()
        try fresh.createUnlocked()
        let refused = try fresh.run(["import", archive.path])
        #expect(refused.status == 65, "\(refused)")
        // Entries in byte order: README.md, then the planted one.
        #expect(refused.stderr == "Error: the file of entry 2 in manifest.json's files (counted from 1) is missing or differs from manifest.json (size or SHA-256): the archive was changed or damaged; nothing was imported; --force imports it anyway\n", "\(refused)")
        #expect(!refused.stderr.contains("Zebra") && !refused.stdout.contains("Zebra"))
    }

    /// Issue 23 (low): a file-size limit killed bmvault with SIGXFSZ (exit 153) in the middle
    /// of an export; now it is one line and exit 1, and no partial archive is left.
    @Test func aFileSizeLimitIsAnErrorNotASignal() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("limited")
        let result = try Binary.run("/bin/sh", ["-c", "ulimit -f 4; exec \"$0\" export --out \"$1\"", Binary.path, archive.path],
                                    environment: vault.environment)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("File too large"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: archive.path))
    }

    /// Issue 22: format 2 writes the reader's Markdown as Markdown, shows each note's date
    /// and what a conflict copy is, and the Markdown alone still gives back every exact text.
    @Test func theReadersMarkdownRendersAndComesBackExactly() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "The Left Hand of Darkness"]).line
        let markdown = "I *loved* this, see [the map](https://example.org/map).\n\n- one\n- two\n\n#idea AT&T &amp; \\*not emphasis\\*"
        let plain = try vault.succeed(["note", "add", book, "-", "--locator", "p. 8"], stdin: markdown).line
        let tricky = try vault.succeed(["note", "add", book, "-"], stdin: Self.trickyNote).line
        let quote = try vault.succeed(["quote", "add", book, "-", "--locator", "p. 233"], stdin: "Light is the left hand of darkness\n— and darkness the right").line
        let contested = try vault.succeed(["note", "add", book, "A *first* thought"]).line
        let first = vault.root.appendingPathComponent("first")
        try vault.succeed(["export", "--out", first.path])
        // A conflict: a note changed in the vault and, differently, in the archive's Markdown.
        try vault.succeed(["edit", contested, "A *second* thought, in the vault"])
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: first.appendingPathComponent("books").path).first)
        try Self.rewrite(first.appendingPathComponent("books/" + file)) { $0.replacingOccurrences(of: "A *first* thought", with: "A *first* thought, edited in the file") }
        try vault.succeed(["import", first.path])
        let copies = try #require(try vault.json(["conflicts", "--json"]) as? [[String: Any]])
        #expect(copies.count == 1)
        let second = vault.root.appendingPathComponent("second")
        try vault.succeed(["export", "--out", second.path])
        let text = try String(contentsOf: second.appendingPathComponent("books/" + file), encoding: .utf8)
        #expect(text.contains("version=1 -->\n" + markdown + "\n\n— p. 8\n<!-- /bmvault:note -->"), "\(text)")
        #expect(text.contains(" text=references -->\n> Light is the left hand of darkness\n> &#8212; and darkness the right\n>\n> — p. 233\n"))
        #expect(text.contains(" text=references -->\n&#10;&#10;# not a heading\n"))
        let captions = text.split(separator: "\n").filter { $0.hasPrefix("### ") }
        #expect(captions.count == 5, "\(captions)")
        let date = #"\d{4}-\d\d-\d\d \d\d:\d\d \(\+00:00\)"#
        #expect(captions.filter { $0.range(of: "^### (Note|Quote) · \(date)( · edited \(date))?$", options: .regularExpression) != nil }.count == 4,
                "\(captions)")
        let copyCaption = "conflict copy of note \(randomPart(of: contested).prefix(8)): two devices changed it, both versions are kept"
        #expect(captions.contains { $0.range(of: "^### Note · \(date)", options: .regularExpression) != nil && $0.hasSuffix(copyCaption) }, "\(captions)")
        // The Markdown alone (no journal.json) gives back every text exactly.
        try FileManager.default.removeItem(at: second.appendingPathComponent("journal.json"))
        let fresh = try TestVault()
        try fresh.createUnlocked()
        try fresh.succeed(["import", second.path])
        for id in [plain, tricky, quote, contested] {
            let original = try #require(try vault.json(["show", id, "--json"]) as? [String: Any])
            let imported = try #require(try fresh.json(["show", id, "--json"]) as? [String: Any])
            #expect(imported["body"] as? String == original["body"] as? String && imported["body"] != nil, "\(id)")
            #expect(imported["locator"] as? String == original["locator"] as? String, "\(id)")
        }
        let copy = try #require(copies.first?["id"] as? String)
        let importedCopy = try #require(try fresh.json(["show", copy, "--json"]) as? [String: Any])
        #expect((importedCopy["body"] as? String)?.contains("edited in the file") == true && importedCopy["conflictReason"] as? String == "both-edited")
    }

    @Test func forceImportsAnArchiveThatDiffersFromItsManifest() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        try Self.rewrite(archive.appendingPathComponent("README.md")) { $0 + "\nMy own remark.\n" }
        let fresh = try TestVault()
        try fresh.createUnlocked()
        #expect(try fresh.run(["import", archive.path]).status == 65)
        try fresh.succeed(["import", archive.path, "--force"])
    }

    @Test func exportRefusesAnExistingDirectoryAndALockedVault() throws {
        let (vault, _, _) = try Self.populated()
        let archive = vault.root.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        let exists = try vault.run(["export", "--out", archive.path])
        #expect(exists.status == 1 && exists.stderr == "Error: the --out directory already exists; export writes a new directory (nothing was written)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: archive.path).isEmpty)
        let missing = try vault.run(["export"])
        #expect(missing.status == 64 && missing.stderr.hasPrefix("Error: export needs --out DIR"))
        try vault.succeed(["lock"])
        #expect(try vault.run(["export", "--out", vault.root.appendingPathComponent("other").path]).status == 77)
        #expect(try vault.run(["import", archive.path]).status == 77)
        #expect(!FileManager.default.fileExists(atPath: vault.root.appendingPathComponent("other").path))
    }

    /// A disk that fails under an export (BMVAULT_TEST_IO_FAULTS, debug builds): one line
    /// naming the call and the file, exit 1, and no archive, finished or not.
    @Test(arguments: [("syncfs:EIO", "Error: syncfs of the archive failed: Input/output error\n"),
                      ("create:ENOSPC", "Error: create of journal.json failed: No space left on device\n")])
    func aFailingDiskLeavesNoArchive(fault: String, message: String) throws {
        let (vault, _, _) = try Self.populated()
        let parent = vault.root.appendingPathComponent("exports")
        let failed = try vault.run(["export", "--out", parent.appendingPathComponent("archive").path],
                                   environment: ["BMVAULT_TEST_IO_FAULTS": fault])
        #expect(failed.status == 1 && failed.stderr == message, "\(failed)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == [])
    }

    @Test func theGoldenArchiveOfEveryFormatVersionImportsEveryRecord() throws {
        // One golden archive for every format version, up to the one this build writes.
        let empty = try TestVault()
        try empty.createUnlocked()
        let current = empty.root.appendingPathComponent("current")
        try empty.succeed(["export", "--out", current.path])
        let written = try #require((try GoldenArchive.journal(current)["archive"] as? [String: Any])?["formatVersion"] as? Int)
        #expect(GoldenArchive.versions == Array(1...written), "make Tests/Fixtures/archives/v\(written) with Tests/Fixtures/make-archive-fixture")
        for version in GoldenArchive.versions {
            let fixture = GoldenArchive.directory(version)
            let vault = try TestVault()
            try vault.createUnlocked()
            try vault.succeed(["import", fixture.path])
            let again = try vault.succeed(["import", fixture.path])
            #expect(again.stdout.contains("Added:      0 books, 0 sessions, 0 notes, 0 quotes\nUpdated:    0 books, 0 notes, 0 quotes\n"))
            let exported = vault.root.appendingPathComponent("exported")
            try vault.succeed(["export", "--out", exported.path, "--include-deleted"])
            let original = try GoldenArchive.journal(fixture)
            let now = try GoldenArchive.journal(exported)
            for section in ["books", "notes", "quotes", "sessions"] {
                let before = try #require(original[section] as? [[String: Any]])
                let after = try #require(now[section] as? [[String: Any]])
                #expect(before.count == after.count, "v\(version) \(section)")
                let byID = Dictionary(uniqueKeysWithValues: after.map { ($0["id"] as? String ?? "", $0) })
                for record in before {
                    let id = record["id"] as? String ?? ""
                    let imported = try #require(byID[id], "v\(version): \(section) record \(id) was not imported")
                    for (key, value) in record {
                        #expect(String(describing: imported[key] ?? "missing") == String(describing: value), "v\(version) \(section) \(id) \(key)")
                    }
                }
            }
            let conflicts = try vault.json(["conflicts", "--json"]) as? [[String: Any]]
            #expect(conflicts?.count == 2)
            // Its Markdown alone (as the reader may keep it in a notes app) gives every live
            // note and quote back with its exact text, read as that version wrote it.
            let markdownOnly = vault.root.appendingPathComponent("markdown-only-v\(version)")
            try FileManager.default.copyItem(at: fixture, to: markdownOnly)
            try FileManager.default.removeItem(at: markdownOnly.appendingPathComponent("journal.json"))
            let fromMarkdown = try TestVault()
            try fromMarkdown.createUnlocked()
            try fromMarkdown.succeed(["import", markdownOnly.path])
            let read = try #require(try fromMarkdown.json(["list", "--json"]) as? [[String: Any]])
            let bodies = Dictionary(uniqueKeysWithValues: read.map { ($0["id"] as? String ?? "", $0["body"] as? String) })
            for section in ["notes", "quotes"] {
                let live = try #require(original[section] as? [[String: Any]]).filter { $0["deletedAt"] is NSNull }
                #expect(!live.isEmpty)
                for record in live {
                    let id = record["id"] as? String ?? ""
                    #expect(bodies[id] == record["body"] as? String, "v\(version) \(section) \(id) from its Markdown")
                }
            }
            // An archive this build writes in the same format is the same text, but for when it
            // was made (the vault's TZ is UTC, as the fixture's was: notes and sessions show local
            // times). A later bmvault that changes what is shown only, within one format version,
            // leaves out here what it changed: README.md, since bmvault 0.16 documented the
            // optional `comment` and `importKey` members format 2 gained; and the line under a
            // book's title, since the bmvault after 0.18.1 rounds its percent and shows the
            // status's local day (issue 41).
            let formatVersion = { (journal: [String: Any]) in (journal["archive"] as? [String: Any])?["formatVersion"] as? Int }
            if formatVersion(original) == formatVersion(now) {
                let byline = #/^(by .+ · )?[0-9.]+% read( · .*)?$/#
                let unchanging = { (files: [String: String]) in
                    files.filter { !["manifest.json", "README.md"].contains($0.key) }.mapValues { text in
                        text.split(separator: "\n", omittingEmptySubsequences: false).filter { (try? byline.wholeMatch(in: $0)) == nil }
                            .joined(separator: "\n")
                    }
                }
                #expect(try unchanging(Self.contents(fixture)) == unchanging(Self.contents(exported)))
                for path in try Self.contents(exported).keys where path.hasPrefix("books/") {
                    let text = try String(contentsOf: exported.appendingPathComponent(path), encoding: .utf8)
                    let id = try #require(text.split(separator: "\n").first { $0.hasPrefix("id: ") }).dropFirst(4)
                    #expect(path.hasSuffix("-\(randomPart(of: String(id)).prefix(8)).md"), "\(path) for \(id)")
                }
            }
        }
    }

    @Test("index.md links every book by status; an edited index.md does not stop an import")
    func indexLinksEveryBookByStatus() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Dune", "--author", "Frank Herbert"])
        try vault.succeed(["book", "add", "Emma"])
        try vault.succeed(["book", "add", "[Brackets] & *stars*"])
        try vault.succeed(["book", "start", "dune"])
        try vault.succeed(["book", "finish", "emma"])
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let index = try String(contentsOf: archive.appendingPathComponent("index.md"), encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: archive.appendingPathComponent("books").path)
        let dune = try #require(files.first { $0.hasPrefix("dune-") })
        let emma = try #require(files.first { $0.hasPrefix("emma-") })
        let other = try #require(files.first { $0.hasPrefix("brackets-stars-") })
        #expect(index == """
            # Books

            ## Reading

            - [Dune](<books/\(dune)>) — Frank Herbert

            ## Finished

            - [Emma](<books/\(emma)>)

            ## Other books

            - [\\[Brackets\\] & \\*stars\\*](<books/\(other)>)

            """, "\(index)")
        try (index + "\nMy own line.\n").write(to: archive.appendingPathComponent("index.md"), atomically: true, encoding: .utf8)
        let target = try TestVault()
        try target.createUnlocked()
        let imported = try target.run(["import", archive.path])
        #expect(imported.status == 0, "\(imported)")
    }

    @Test("Sessions show in the Markdown in local time, with the offset and the length; the marker keeps UTC")
    func sessionsInLocalTime() throws {
        // Five and a half hours east of UTC (tzdata, which Scripts/install installs).
        let vault = try TestVault(environment: ["TZ": "Asia/Kolkata"])
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Emma"])
        try vault.succeed(["session", "add", "emma", "--pages", "20", "--start", "2026-12-03 09:05", "--end", "2026-12-03 10:35"])
        try vault.succeed(["session", "add", "emma", "--pages", "1", "--start", "2026-12-03 23:50", "--end", "2026-12-04 00:05"])
        let archive = vault.root.appendingPathComponent("archive")
        try vault.succeed(["export", "--out", archive.path])
        let books = archive.appendingPathComponent("books")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: books.path).first)
        let text = try String(contentsOf: books.appendingPathComponent(name), encoding: .utf8)
        #expect(text.contains("- 2026-12-03 09:05–10:35 (+05:30), 1 h 30 min, 20 pages <!-- bmvault:session "), "\(text)")
        #expect(text.contains(" started=2026-12-03T03:35:00.000Z ended=2026-12-03T05:05:00.000Z pages=20 -->"), "the marker keeps UTC")
        #expect(text.contains("title: \"Emma\"\naliases:\n  - \"Emma\"\n"), "the title as an alias, for a note tool's [[Emma]]")
        #expect(text.contains("- 2026-12-03 23:50–2026-12-04 00:05 (+05:30), 15 min, 1 page <!-- bmvault:session "), "across midnight")
        // Read back exactly, whatever the time zone of the machine that imports it.
        let target = try TestVault(environment: ["TZ": "UTC"])
        try target.createUnlocked()
        try target.succeed(["import", archive.path])
        let sessions = try #require(try target.json(["session", "list", "--json"]) as? [[String: Any]])
        #expect(sessions.compactMap { $0["startedAt"] as? String } == ["2026-12-03T03:35:00.000Z", "2026-12-03T18:20:00.000Z"])
    }

    @Test("import - reads journal.json from standard input, piped or redirected; a bad one is one line, exit 65")
    func importFromStandardInput() throws {
        let (source, _, _) = try Self.populated()
        let archive = source.root.appendingPathComponent("archive")
        try source.succeed(["export", "--out", archive.path])
        let journal = try String(contentsOf: archive.appendingPathComponent("journal.json"), encoding: .utf8)
        let target = try TestVault()
        try target.createUnlocked()
        let piped = try Binary.run("/bin/sh", ["-c", "cat '\(archive.path)/journal.json' | '\(Binary.path)' import -"], environment: target.environment)
        #expect(piped.status == 0 && piped.stdout.hasPrefix("Added:      2 books"), "through a pipe: \(piped)")
        #expect(try target.notes().map { $0["body"] as? String } == (try source.notes().map { $0["body"] as? String }))
        let again = try target.succeed(["import", "-"], stdin: journal)
        #expect(again.stdout.contains("Added:      0 books, 0 sessions, 0 notes, 0 quotes"), "\(again)")
        let bad = try target.run(["import", "-"], stdin: "{ not json")
        #expect(bad.status == 65 && bad.stderr.split(separator: "\n").count == 1 && bad.stderr.hasPrefix("Error: journal.json line 1"), "\(bad)")
    }
}

/// The golden archives in Tests/Fixtures/archives (one per format version, each made once
/// by the bmvault that first wrote that version; never regenerated).
enum GoldenArchive {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/archives")
    }

    static let versions: [Int] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.compactMap { $0.hasPrefix("v") ? Int($0.dropFirst()) : nil }.sorted()
    }()

    static func directory(_ version: Int) -> URL { root.appendingPathComponent("v\(version)/archive") }

    static func journal(_ archive: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: archive.appendingPathComponent("journal.json"))) as? [String: Any])
    }
}

/// Python's `jsonschema`, from the venv Scripts/test makes.
enum SchemaValidator {
    static var python: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent(".build/test-venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static func schema(version: Int) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/archive/v\(version).schema.json").path
    }

    /// Validates journal.json (the schema's root) and manifest.json (`$defs/manifest`) of an
    /// archive against the schema of its format `version`, and that the archive carries that
    /// schema file unchanged.
    static func validate(_ archive: URL, version: Int, python: String, environment: [String: String]) throws -> CommandResult {
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1], encoding="utf-8"))
            Draft202012Validator.check_schema(schema)
            archive = sys.argv[2]
            assert json.load(open(archive + "/archive.schema.json", encoding="utf-8")) == schema, "the archive's schema differs"
            Draft202012Validator(schema).validate(json.load(open(archive + "/journal.json", encoding="utf-8")))
            manifest = dict(schema, **{"$ref": "#/$defs/manifest"})
            for key in ("required", "properties", "type", "title", "description"):
                manifest.pop(key, None)
            Draft202012Validator(manifest).validate(json.load(open(archive + "/manifest.json", encoding="utf-8")))
            print("valid")
            """
        return try Binary.run(python, ["-c", script, schema(version: version), archive.path], environment: environment)
    }

}
