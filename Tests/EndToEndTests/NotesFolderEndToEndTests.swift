import Foundation
import Testing

/// Issue 46: `export --markdown-folder DIR` through the built binary, as a reader of a notes
/// app lives with it: their paragraphs around bmvault's part and their links to its block
/// ids survive every later export; only notes that changed are written; an edit inside
/// bmvault's part is reported (exit 1) and kept; the notes render in a real Markdown
/// renderer (Debian's python3-markdown) with YAML front matter (python3-yaml).
@Suite struct NotesFolderEndToEndTests {
    /// A vault with three books: two quotes and a note in one, a quote in another, nothing in the third.
    struct World {
        let vault: TestVault
        let folder: URL
        let dune: String, solaris: String, third: String
        let firstQuote: String, secondQuote: String, note: String, solarisQuote: String

        init() throws {
            vault = try TestVault()
            try vault.createUnlocked()
            folder = vault.root.appendingPathComponent("Obsidian/Books")
            dune = try vault.succeed(["book", "add", "Dune: Messiah?", "--author", "Frank Herbert"]).line
            solaris = try vault.succeed(["book", "add", "Solaris", "--author", "Stanisław Lem"]).line
            third = try vault.succeed(["book", "add", "The Third Book"]).line
            firstQuote = try vault.succeed(["quote", "add", dune, "--locator", "p. 42"],
                                           stdin: "The mystery of life isn't a problem to solve,\nbut a reality to experience.").line
            secondQuote = try vault.succeed(["quote", "add", dune, "--locator", "p. 77", "Fear is the mind-killer."]).line
            note = try vault.succeed(["note", "add", dune, "My *own* thought, #idea"]).line
            solarisQuote = try vault.succeed(["quote", "add", solaris, "--locator", "ch. 1", "We don't want to conquer the cosmos."]).line
            try vault.succeed(["book", "start", dune])
            try vault.succeed(["tag", "add", dune, "sci-fi"])
        }

        func file(_ name: String) -> URL { folder.appendingPathComponent(name) }
        func read(_ name: String) throws -> String { try String(contentsOf: file(name), encoding: .utf8) }
        func write(_ text: String, to name: String) throws { try text.write(to: file(name), atomically: false, encoding: .utf8) }

        @discardableResult
        func export(_ extra: [String] = [], status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
            let result = try vault.run(["export", "--markdown-folder", folder.path] + extra)
            #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
            return result
        }

        /// Every note's modification time, after setting them all an hour back: a file
        /// written by the next export then has a later one.
        func agedTimes() throws -> [String: Date] {
            var times: [String: Date] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let path = file(name).path
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
                times[name] = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            }
            return times
        }

        func rewritten(since times: [String: Date]) throws -> Set<String> {
            var changed = Set<String>()
            for (name, time) in times {
                guard let now = try? FileManager.default.attributesOfItem(atPath: file(name).path)[.modificationDate] as? Date else {
                    changed.insert(name)
                    continue
                }
                if now != time { changed.insert(name) }
            }
            return changed
        }

        /// What a `[[Note#^block]]` link points at, found as a notes app finds it: the note by
        /// its file name (without `.md`, ignoring case), the block as the lines before the
        /// `^block` line up to the blank line before them. Nil when either is missing.
        func resolve(_ link: String) throws -> String? {
            guard link.hasPrefix("[["), link.hasSuffix("]]"), let hash = link.range(of: "#^") else { return nil }
            let name = String(link[link.index(link.startIndex, offsetBy: 2)..<hash.lowerBound])
            let block = String(link[hash.upperBound..<link.index(link.endIndex, offsetBy: -2)])
            guard let match = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .first(where: { $0.lowercased() == (name + ".md").lowercased() }) else { return nil }
            let lines = try read(match).split(separator: "\n", omittingEmptySubsequences: false)
            guard let at = lines.firstIndex(of: Substring("^" + block)), at >= 2 else { return nil }
            var start = at - 2
            while start > 0, !lines[start - 1].isEmpty { start -= 1 }
            return lines[start...(at - 2)].joined(separator: "\n")
        }
    }

    /// `^bm-` and the first 12 digits of the id's random part.
    static func block(_ id: String) -> String { "bm-" + randomPart(of: id).prefix(12) }

    @Test func theReadersTextAndLinksSurviveEveryChangeAndOnlyChangedNotesAreWritten() throws {
        let world = try World()
        let first = try world.export()
        #expect(first.stderr.hasPrefix("Notes folder \(world.folder.path): 3 notes written, 0 updated, 0 unchanged.\n"), "\(first)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: world.folder.path).sorted()
                == [".bmvault-notes.json", "Dune Messiah.md", "Solaris.md", "The Third Book.md"])
        let dune = try world.read("Dune Messiah.md")
        #expect(dune.contains("\n> The mystery of life isn't a problem to solve,\n> but a reality to experience.\n>\n> — p. 42\n\n^\(Self.block(world.firstQuote))\n"))
        #expect(dune.contains("\n> [!note]\n> My *own* thought, #idea\n\n^\(Self.block(world.note))\n"))
        #expect(dune.contains("\nstatus: reading\n") && dune.contains("\ntags:\n  - \"sci-fi\"\n") && dune.contains("\nbmvault-id: \(world.dune)\n"))

        // The reader writes around bmvault's part, adds a property of their own, and links to quotes.
        let edited = dune.replacingOccurrences(of: "---\n\n<!-- bmvault:begin", with: "---\n\n## My summary\n\nA paragraph of mine.\n\n<!-- bmvault:begin")
            .replacingOccurrences(of: "\nbmvault-id:", with: "\ncssclasses:\n  - wide\nbmvault-id:") + "\n## Afterwards\n\nAnother paragraph of mine.\n"
        try world.write(edited, to: "Dune Messiah.md")
        let links = [
            "first": "[[Dune Messiah#^\(Self.block(world.firstQuote))]]",
            "solaris": "[[Solaris#^\(Self.block(world.solarisQuote))]]",
            "note": "[[Dune Messiah#^\(Self.block(world.note))]]",
        ]
        try world.write("# Links\n\n" + links.values.sorted().map { "- \($0)\n" }.joined(), to: "My links.md")
        for link in links.values { #expect(try world.resolve(link) != nil, "\(link)") }

        // Nothing changed in the journal: nothing is written.
        var times = try world.agedTimes()
        #expect(try world.export().stderr.hasPrefix("Notes folder \(world.folder.path): 0 notes written, 0 updated, 3 unchanged.\n"))
        #expect(try world.rewritten(since: times) == [])

        // The journal changes: a quote added, one edited, a note deleted, a quote moved, a book retitled.
        let added = try world.vault.succeed(["quote", "add", world.dune, "--locator", "p. 90", "Added after the first export."]).line
        try world.vault.succeed(["edit", world.firstQuote, "The mystery of life is a reality to experience."])
        try world.vault.succeed(["delete", world.note])
        try world.vault.succeed(["move", world.secondQuote, "--to", world.solaris])
        try world.vault.succeed(["book", "edit", world.solaris, "--title", "Solaris (a novel)"])
        times = try world.agedTimes()
        let second = try world.export()
        #expect(second.stderr.hasPrefix("Notes folder \(world.folder.path): 0 notes written, 2 updated, 1 unchanged.\n"), "\(second)")
        #expect(try world.rewritten(since: times) == [".bmvault-notes.json", "Dune Messiah.md", "Solaris.md"])

        // Every link still resolves, to the same quote (its new text); the reader's text is intact.
        #expect(try world.resolve(links["first"]!) == "> The mystery of life is a reality to experience.\n>\n> — p. 42")
        #expect(try world.resolve(links["solaris"]!)?.contains("We don't want to conquer the cosmos.") == true)
        // The deleted note is gone, and with it its block; the moved quote kept its block id in its new note.
        #expect(try world.resolve(links["note"]!) == nil)
        #expect(try world.resolve("[[Solaris#^\(Self.block(world.secondQuote))]]") == "> Fear is the mind-killer.\n>\n> — p. 77")
        #expect(try world.resolve("[[Dune Messiah#^\(Self.block(world.secondQuote))]]") == nil)
        #expect(try world.resolve("[[Dune Messiah#^\(Self.block(added))]]")?.contains("Added after the first export.") == true)
        let now = try world.read("Dune Messiah.md")
        #expect(now.contains("---\n\n## My summary\n\nA paragraph of mine.\n\n<!-- bmvault:begin"))
        #expect(now.hasSuffix("<!-- bmvault:end -->\n\n## Afterwards\n\nAnother paragraph of mine.\n"))
        #expect(now.contains("\ncssclasses:\n  - wide\nbmvault-id: \(world.dune)\n"))
        // The retitled book's note keeps its name (links name it) and shows the new title.
        #expect(try world.read("Solaris.md").contains("\ntitle: \"Solaris (a novel)\"\n"))
        #expect(try world.read("My links.md").hasPrefix("# Links\n"))

        // The reader edits inside bmvault's part, and the journal changes again: reported, kept, exit 1.
        let inside = now.replacingOccurrences(of: "> The mystery of life is a reality to experience.", with: "> The mystery of life, as I remember it.")
        try world.write(inside, to: "Dune Messiah.md")
        try world.vault.succeed(["quote", "add", world.dune, "--locator", "p. 99", "Another one."])
        try world.vault.succeed(["quote", "add", world.third, "--locator", "p. 1", "The third book's first quote."])
        times = try world.agedTimes()
        let reported = try world.export(status: 1)
        #expect(reported.stdout == "Edited in the notes folder: Dune Messiah.md (left as it is)\n", "\(reported)")
        #expect(!reported.stderr.contains("Dune"))
        #expect(reported.stderr.contains("Notes folder \(world.folder.path): 0 notes written, 1 updated, 1 unchanged.\n"))
        #expect(reported.stderr.hasSuffix("Error: every other note was written; 1 note left as it was (listed above): --show-edits shows what differs, --overwrite-edited writes bmvault's parts anyway (your text outside them stays)\n"))
        #expect(try world.read("Dune Messiah.md") == inside)
        #expect(try world.rewritten(since: times) == [".bmvault-notes.json", "The Third Book.md"])

        // --show-edits prints the difference; --overwrite-edited writes bmvault's part, and keeps the reader's around it.
        let shown = try world.export(["--show-edits"], status: 1)
        #expect(shown.stdout.hasPrefix("Edited in the notes folder: Dune Messiah.md (left as it is)\n--- Dune Messiah.md (in the folder)\n+++ Dune Messiah.md (from bmvault)\n"), "\(shown)")
        #expect(shown.stdout.contains("\n-> The mystery of life, as I remember it.\n+> The mystery of life is a reality to experience.\n"))
        #expect(shown.stdout.contains("\n+> Another one.\n"))
        #expect(try world.read("Dune Messiah.md") == inside)
        try world.export(["--overwrite-edited"])
        let overwritten = try world.read("Dune Messiah.md")
        #expect(overwritten.contains("> The mystery of life is a reality to experience.") && overwritten.contains("> Another one."))
        #expect(overwritten.contains("A paragraph of mine.") && overwritten.hasSuffix("Another paragraph of mine.\n"))
        try world.export()
    }

    @Test func theNotesRenderWithYAMLFrontMatterBlockquotesAndHiddenMarkers() throws {
        let world = try World()
        try world.vault.succeed(["quote", "add", world.solaris, "--locator", "p. 3"], stdin: "A quote with %% and <!-- inside\n\nand a second paragraph")
        try world.export()
        let check = #"""
        import sys, html.parser, markdown, yaml
        class Visible(html.parser.HTMLParser):
            def __init__(self):
                super().__init__(); self.text = []; self.comments = []; self.quotes = 0
            def handle_starttag(self, tag, attrs):
                if tag == "blockquote": self.quotes += 1
            def handle_data(self, data): self.text.append(data)
            def handle_comment(self, data): self.comments.append(data)
        for path in sys.argv[1:]:
            text = open(path, encoding="utf-8").read()
            assert text.startswith("---\n"), path
            front, body = text[4:].split("\n---\n", 1)
            properties = yaml.safe_load(front)
            page = Visible(); page.feed(markdown.markdown(body))
            visible = "".join(page.text)
            print(path.rsplit("/", 1)[-1], properties["title"], properties["bmvault-id"], ",".join(properties.get("authors", [])),
                  str(properties.get("started", "")), page.quotes, "bmvault:begin" in visible or "bmvault:end" in visible,
                  sum(c.strip().startswith("bmvault:begin") for c in page.comments), sum(c.strip() == "bmvault:end" for c in page.comments),
                  "A quote with %% and <!-- inside" in visible, sep="|")
        """#
        let names = ["Dune Messiah.md", "Solaris.md", "The Third Book.md"]
        let rendered = try Binary.run("/usr/bin/python3", ["-c", check] + names.map { world.file($0).path }, environment: world.vault.environment)
        #expect(rendered.status == 0, "\(rendered)")
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        #expect(rendered.stdout.split(separator: "\n") == [
            "Dune Messiah.md|Dune: Messiah?|\(world.dune)|Frank Herbert|\(today)|3|False|1|1|False",
            "Solaris.md|Solaris|\(world.solaris)|Stanisław Lem||2|False|1|1|True",
            "The Third Book.md|The Third Book|\(world.third)|||0|False|1|1|False",
        ], "\(rendered)")
    }

    @Test func aFolderThatIsNotAnExportsIsRefusedAndOptionsGoWithTheirKind() throws {
        let world = try World()
        try FileManager.default.createDirectory(at: world.folder, withIntermediateDirectories: true)
        try world.write("The reader's own note on Dune.", to: "Dune Messiah.md")
        let refused = try world.export(status: 1)
        #expect(refused.stderr.contains("has files and is not one bmvault exported to"), "\(refused)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: world.folder.path) == ["Dune Messiah.md"])
        try world.export(["--into-existing"])
        #expect(try world.read("Dune Messiah.md") == "The reader's own note on Dune.")
        #expect(try world.read("Dune Messiah (2).md").contains("bmvault-id: \(world.dune)"))
        #expect(((try FileManager.default.attributesOfItem(atPath: world.file("Solaris.md").path))[.posixPermissions] as? Int) == 0o600)

        for arguments in [["--markdown-folder", world.folder.path, "--out", world.vault.root.appendingPathComponent("a").path],
                          ["--markdown-folder", world.folder.path, "--with-files"],
                          ["--markdown-folder", world.folder.path, "--include-deleted"],
                          ["--out", world.vault.root.appendingPathComponent("b").path, "--show-edits"],
                          ["--out", world.vault.root.appendingPathComponent("c").path, "--overwrite-edited"],
                          ["--into-existing"], []] {
            let result = try world.vault.run(["export"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
        }
    }
}
