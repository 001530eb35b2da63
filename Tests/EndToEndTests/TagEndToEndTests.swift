import Foundation
import Testing

/// Issue 21, tags on books, notes and quotes, through the built binary: `--tag` on `note
/// add`, `quote add` and `book add`, `tag add|remove|list`, `--tag` on `list`, `search` and
/// `book list`, `show`, the archive, purge, rekey, and two devices.
@Suite("Tags", .serialized)
struct TagEndToEndTests {
    func tags(_ device: TestVault, _ id: String) throws -> [String] {
        let shown = try #require(try device.json(["show", id, "--json"]) as? [String: Any])
        let record = (shown["book"] as? [String: Any]) ?? shown
        return try #require(record["tags"] as? [String])
    }

    func listed(_ device: TestVault, _ arguments: [String]) throws -> [String] {
        let records = try #require(try device.json(arguments + ["--json"]) as? [[String: Any]])
        return records.compactMap { $0["id"] as? String }
    }

    @Test("Tags are given, matched without case or accents, filtered by, and taken away all or none")
    func giveFilterAndTakeAway() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let dune = try vault.succeed(["book", "add", "Dune", "--tag", "SciFi", "--tag", "#classic"]).line
        let solaris = try vault.succeed(["book", "add", "Solaris"]).line
        let note = try vault.succeed(["note", "add", "dune", "the spice", "--tag", "Désert"]).line
        let quote = try vault.succeed(["quote", "add", "dune", "fear is the mind-killer", "--locator", "p. 8", "--tag", "fear"]).line
        let plain = try vault.succeed(["note", "add", "solaris", "the ocean"]).line
        #expect(try tags(vault, dune) == ["classic", "SciFi"], "one leading # is dropped; ordered ignoring case")
        #expect(try tags(vault, plain) == [])

        #expect(try vault.succeed(["tag", "add", quote, "desert", "reread", "Reread"]).stderr == "\(try vault.short(quote)) tagged: 2 tags given, 3 tags in all.\n",
                "Reread is reread: given once")
        #expect(try vault.succeed(["tag", "add", note, "DESERT"]).stderr == "\(try vault.short(note)) has those tags already (1 tag in all); nothing was changed.\n")
        #expect(try tags(vault, quote) == ["desert", "fear", "reread"])
        try vault.succeed(["tag", "add", "solaris", "SCIFI"])          // a book by what BOOK takes
        #expect(try tags(vault, solaris) == ["SCIFI"])

        #expect(Set(try listed(vault, ["list", "--tag", "desert"])) == [note, quote])
        #expect(try listed(vault, ["list", "--tag", "fear", "--kind", "quote"]) == [quote])
        let oneBook = try #require(try vault.json(["list", "--book", "dune", "--json"]) as? [[String: Any]])
        #expect(oneBook.map { $0["tags"] as? [String] ?? ["?"] } == [["Désert"], ["desert", "fear", "reread"]],
                "a one-book listing reads that book's tags")
        #expect(Set(try listed(vault, ["search", "the", "--tag", "désert"])) == [note, quote])
        #expect(try listed(vault, ["search", "spice", "--tag", "fear"]).isEmpty)
        #expect(try listed(vault, ["book", "list", "--tag", "scifi"]) == [dune, solaris])
        let none = try vault.succeed(["list", "--tag", "nothing"])
        #expect(none.stdout.isEmpty && none.stderr == "No notes or quotes match.\n")
        #expect(try vault.succeed(["book", "list", "--tag", "nothing"]).stderr == "No books match.\n")
        #expect(try vault.succeed(["list", "--tag", "desert"]).stdout.contains("  Dune  #Désert\n    the spice\n"))
        #expect(try vault.succeed(["show", dune]).stdout.contains("tags:     classic, SciFi\n"))

        for (arguments, status, message) in [
            (["tag", "add", note, "two words"], 65, "Error: a tag is one word of at most 64 characters, with no space or comma\n"),
            (["tag", "add", note, "a,b"], 65, "Error: a tag is one word of at most 64 characters, with no space or comma\n"),
            (["tag", "add", note, String(repeating: "x", count: 65)], 65, "Error: a tag is one word of at most 64 characters, with no space or comma\n"),
            (["note", "add", "dune", "never saved", "--tag", "bad tag"], 65, "Error: a tag is one word of at most 64 characters, with no space or comma\n"),
            (["tag", "remove", quote, "fear", "absent"], 66,
             "Error: \(quote) has no tag by that name (see `bmvault show \(quote)`); no tag was taken away\n"),
            (["list", "--tag", "a b"], 65, "Error: a tag is one word of at most 64 characters, with no space or comma\n"),
        ] {
            let result = try vault.run(arguments)
            #expect(result.status == Int32(status) && result.stderr == message, "\(arguments): \(result)")
        }
        #expect(try tags(vault, quote) == ["desert", "fear", "reread"], "a refused removal took nothing away")
        #expect(try listed(vault, ["list"]).count == 3, "a note with a bad tag was not saved")

        #expect(try vault.succeed(["tag", "remove", quote, "FEAR", "Reread"]).stderr == "\(try vault.short(quote)): tags taken away, 1 tag left.\n")
        #expect(try tags(vault, quote) == ["desert"])
        try vault.succeed(["tag", "add", quote, "Fear"])               // given back: the same tagging, spelled anew
        #expect(try tags(vault, quote) == ["desert", "Fear"])
        #expect(try vault.sqlite("SELECT count(*) FROM tagging WHERE record_id = '\(quote)';") == "3")

        let uses = try #require(try vault.json(["tag", "list", "--json"]) as? [[String: Any]])
        #expect(uses.map { $0["name"] as? String ?? "" } == ["classic", "Désert", "Fear", "SciFi"])
        #expect(uses.map { [$0["books"] as? Int ?? -1, $0["notes"] as? Int ?? -1, $0["quotes"] as? Int ?? -1] }
                == [[1, 0, 0], [0, 1, 1], [0, 0, 1], [2, 0, 0]])
        #expect(try vault.succeed(["tag", "list"]).stdout == "#classic  1 book\n#Désert  1 note, 1 quote\n#Fear  1 quote\n#SciFi  2 books\n")

        // A deleted note's tags are not listed, and come back with it.
        try vault.succeed(["delete", note])
        #expect(try listed(vault, ["list", "--tag", "desert"]) == [quote])
        try vault.succeed(["undelete", note])
        #expect(try tags(vault, note) == ["Désert"])
        #expect(try vault.succeed(["check"]).stdout.contains(", 7 tags, "))
    }

    @Test("Tags go through an export and an import; importing again gives none, and an archive never takes one away")
    func archiveRoundTrip() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Solaris", "--tag", "ocean", "--tag", "Lem"]).line
        let note = try vault.succeed(["note", "add", "solaris", "the ocean thinks", "--tag", "mind"]).line
        let quote = try vault.succeed(["quote", "add", "solaris", "we need mirrors", "--locator", "p. 72", "--tag", "mirror"]).line
        let archive = vault.root.appendingPathComponent("archive").path
        try vault.succeed(["export", "--out", archive])
        let journal = try String(contentsOfFile: archive + "/journal.json", encoding: .utf8)
        #expect(journal.contains("\"tags\" : [\n        \"Lem\",\n        \"ocean\"\n      ],\n      \"title\" : \"Solaris\""))
        #expect(journal.contains("\"tags\" : [\n        \"mind\"\n      ],\n      \"updatedAt\""))
        let markdown = try FileManager.default.contentsOfDirectory(atPath: archive + "/books").first.map {
            try String(contentsOfFile: archive + "/books/" + $0, encoding: .utf8)
        }
        #expect(markdown?.contains("tags:\n  - \"Lem\"\n  - \"ocean\"\n") == true, "\(markdown ?? "")")

        let restored = try TestVault()
        try restored.createUnlocked()
        let imported = try restored.succeed(["import", archive])
        #expect(imported.stdout.contains("Tagged:     4 tags\n"), "\(imported)")
        #expect(try tags(restored, book) == ["Lem", "ocean"] && tags(restored, note) == ["mind"] && tags(restored, quote) == ["mirror"])
        let again = try restored.succeed(["import", archive, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(summary["tagsGiven"] as? Int == 0, "\(summary)")

        try restored.succeed(["tag", "remove", note, "mind"])
        try restored.succeed(["tag", "add", note, "kept"])
        try restored.succeed(["import", archive])
        #expect(try tags(restored, note) == ["kept", "mind"], "the archive's tag comes back; the vault's own stays")
    }

    @Test("A purged record's tags are purged with it; a rekey re-seals tags, and check opens them")
    func purgeAndRekey() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Solaris", "--tag", "ocean"])
        let gone = try vault.succeed(["note", "add", "solaris", "deleted long ago", "--tag", "secret"]).line
        let kept = try vault.succeed(["note", "add", "solaris", "kept", "--tag", "kept"]).line
        try vault.succeed(["delete", gone])
        _ = try vault.sqlite("UPDATE annotation SET deleted_at = deleted_at - 200 * 86400000 WHERE id = '\(gone)';")
        try vault.succeed(["purge"])
        #expect(try vault.sqlite("SELECT length(name) FROM tagging WHERE record_id = '\(gone)';") == "0")
        #expect(try vault.sqlite("SELECT length(name) > 0 FROM tagging WHERE record_id = '\(kept)';") == "1")

        try vault.succeed(["rekey", "--passphrase-stdin", "--kdf", "interactive"], stdin: TestVault.passphrase + "\n")
        #expect(try tags(vault, kept) == ["kept"])
        #expect(try vault.succeed(["tag", "list"]).stdout == "#kept  1 note\n#ocean  1 book\n")
        try vault.succeed(["check"])
    }

    @Test("The same tag given on two devices shows once; taken away on one, it goes on both; a tag never makes a text conflict")
    func twoDevices() throws {
        let world = try SyncWorld()
        let deviceA = world.first
        let book = try deviceA.succeed(["book", "add", "Solaris"]).line
        let note = try deviceA.succeed(["note", "add", "solaris", "the ocean"]).line
        try deviceA.succeed(["sync"])
        let deviceB = try world.join()

        try deviceA.succeed(["tag", "add", note, "Ocean"])
        try deviceB.succeed(["tag", "add", note, "ocean", "mind"])
        try deviceB.succeed(["edit", note, "the ocean thinks"])
        try deviceB.succeed(["tag", "add", book, "lem"])
        for device in [deviceA, deviceB, deviceA] { try device.succeed(["sync"]) }
        for device in [deviceA, deviceB] {
            #expect(try tags(device, note) == ["mind", "Ocean"], "given first on A, so spelled as A did, on both")
            #expect(try tags(device, book) == ["lem"])
            #expect(try device.succeed(["show", note]).stdout.hasSuffix("\nthe ocean thinks\n"))
            #expect(try device.succeed(["conflicts"]).stdout == "No conflicts.\n", "a tag is not an edit of the text")
            #expect(try device.succeed(["tag", "list"]).stdout == "#lem  1 book\n#mind  1 note\n#Ocean  1 note\n")
        }

        try deviceB.succeed(["tag", "remove", note, "OCEAN"])          // both taggings, A's and B's own
        for device in [deviceB, deviceA] { try device.succeed(["sync"]) }
        for device in [deviceA, deviceB] {
            #expect(try tags(device, note) == ["mind"])
            #expect(try listed(device, ["list", "--tag", "ocean"]).isEmpty)
            #expect((try device.json(["outbox", "--json"]) as? [Any])?.isEmpty == true, "the outbox drained")
        }

        // A device joining now takes the tags in with everything else.
        let deviceC = try world.join()
        #expect(try tags(deviceC, note) == ["mind"] && tags(deviceC, book) == ["lem"])
    }
}
