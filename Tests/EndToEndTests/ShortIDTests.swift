import Foundation
import Testing

/// Issue 22, naming records: short ids in listings, `show` and messages, accepted back by
/// every command; `@last`, `@last~N` and `@last-book`; and a short id in a vault of 10,000
/// notes.
@Suite("Short ids and @last", .serialized)
struct ShortIDTests {
    @Test("Listings, show and messages name records by short ids, which every command takes back")
    func shortIDsEverywhere() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "The Left Hand of Darkness"]).line
        let added = try vault.succeed(["note", "add", "left hand", "Estraven's loyalty", "--locator", "p. 8"])
        let note = added.line
        #expect(note.count == 36, "standard output keeps the full id")
        let short = try vault.short(note), bookShort = try vault.short(book)
        #expect(short.count == 6 && randomPart(of: note).hasPrefix(short), "\(short) for \(note)")
        #expect(added.stderr == "Added a note to book \(bookShort): \(short).\n",
                "off a terminal the message names the book by id, never by title or locator: \(added)")
        #expect(try vault.succeed(["show", short]).stdout.hasPrefix("id:       \(short)  (\(note))\n"))

        #expect(try vault.succeed(["list"]).stdout.hasPrefix("\(short)  note  "))
        #expect(try vault.succeed(["book", "list"]).stdout.hasPrefix("\(bookShort)  0%"))
        #expect(try vault.succeed(["search", "loyalty"]).stdout.hasPrefix("\(short)  note  "))
        #expect((try vault.json(["list", "--json"]) as? [[String: Any]])?.first?["id"] as? String == note, "--json keeps full ids")

        // Accepted back: as ID, in upper case, as BOOK, by edit, delete and undelete.
        #expect(try vault.succeed(["edit", short.uppercased(), "Estraven's loyalty, and Genly's"]).stderr.hasPrefix("Saved note \(short) (version 2)"))
        let second = try vault.succeed(["note", "add", bookShort, "by the book's short id"]).line
        #expect((try vault.json(["show", second, "--json"]) as? [String: Any])?["bookId"] as? String == book)
        #expect(try vault.succeed(["delete", short]).stderr == "Deleted note \(short).\n")
        #expect(try vault.run(["show", short]).status == 66, "a deleted record is not shown")
        #expect(try vault.succeed(["undelete", short]).stderr == "Brought back note \(short).\n")
        #expect(try vault.succeed(["show", short, "--json"]).stdout.contains("Genly"))

        // A prefix of the full id still works; something that is neither is one line, exit 64.
        #expect((try vault.json(["show", String(note.prefix(13)), "--json"]) as? [String: Any])?["id"] as? String == note)
        let malformed = try vault.run(["show", "not-an-id"])
        #expect(malformed.status == 64 && malformed.stderr
                == "Error: ID must be a record id, a short id (6 or more characters), a unique prefix of at least 4, or @last, @last~N, @last-book\n")
    }

    @Test("@last, @last~N and @last-book name the latest entries; beyond them is exit 66")
    func latestEntries() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let dune = try vault.succeed(["book", "add", "Dune"]).line
        let emma = try vault.succeed(["book", "add", "Emma"]).line
        let first = try vault.succeed(["note", "add", "dune", "first"]).line
        let second = try vault.succeed(["quote", "add", "emma", "second", "--locator", "ch. 1"]).line
        let third = try vault.succeed(["note", "add", "dune", "third"]).line
        func shown(_ reference: String) throws -> String? {
            let record = try #require(try vault.json(["show", reference, "--json"]) as? [String: Any])
            return ((record["book"] as? [String: Any]) ?? record)["id"] as? String
        }
        #expect(try shown("@last") == third)
        #expect(try shown("@LAST~0") == third)
        #expect(try shown("@last~1") == second)
        #expect(try shown("@last~2") == first)
        #expect(try shown("@last-book") == dune)
        let beyond = try vault.run(["show", "@last~3"])
        #expect(beyond.status == 66 && beyond.stderr == "Error: @last~3 names no note or quote: the journal has fewer\n", "\(beyond)")
        #expect(try vault.run(["show", "@last~x"]).status == 64)

        try vault.succeed(["edit", "@last", "third, edited"])
        #expect((try vault.json(["show", third, "--json"]) as? [String: Any])?["body"] as? String == "third, edited")
        let fourth = try vault.succeed(["note", "add", "@last-book", "fourth, in the last entry's book"]).line
        #expect((try vault.json(["show", fourth, "--json"]) as? [String: Any])?["bookId"] as? String == dune)
        try vault.succeed(["delete", "@last"])
        #expect(try shown("@last") == third, "a deleted entry is not the last")
        try vault.succeed(["move", "@last~1", "--to", "dune"])
        #expect((try vault.json(["show", second, "--json"]) as? [String: Any])?["bookId"] as? String == dune)
        _ = emma

        let asBook = try vault.run(["note", "add", "@last", "never saved"])
        #expect(asBook.status == 65 && asBook.stderr == "Error: @last is a note or quote; this command works on a book (@last-book)\n", "\(asBook)")
        #expect(try vault.notes().count == 3, "nothing was saved")

        let empty = try TestVault()
        try empty.createUnlocked()
        try empty.succeed(["book", "add", "Dune"])
        #expect(try empty.run(["show", "@last"]).status == 66)
        #expect(try empty.run(["note", "add", "@last-book", "x"]).status == 66)
    }

    @Test("In a vault of 10,000 notes, every listed short id is unique and names its record, 6 characters mostly")
    func tenThousandNotes() throws {
        let vault = try TestVault()
        let generator = URL(fileURLWithPath: Binary.path).deletingLastPathComponent().appendingPathComponent("bmvault-bench-journal").path
        let made = try Binary.run(generator, ["--vault", vault.directory.path, "--annotations", "10000", "--passphrase-stdin"],
                                  stdin: TestVault.passphrase + "\n", environment: vault.environment)
        #expect(made.status == 0, "\(made)")
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")

        let listing = try vault.succeed(["list"]).stdout
        let shorts = listing.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty }.map { String($0.prefix { $0 != " " }) }
        let full = try #require(try vault.json(["list", "--json"]) as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(shorts.count == full.count && full.count > 9_000, "\(shorts.count) short, \(full.count) full")
        #expect(Set(shorts).count == shorts.count, "short ids are unique")
        for (short, id) in zip(shorts, full) where !(short.count >= 6 && randomPart(of: id).hasPrefix(short)) {
            Issue.record("\(short) is not the start of \(id)'s random part")
            break
        }
        let six = shorts.filter { $0.count == 6 }
        #expect(six.count > full.count * 9 / 10, "\(six.count) of \(full.count) need only 6 characters")
        // Short forms counted one by one (the first 5,000 of a listing), read from the index
        // of every random part (the rest), and asked alone agree, and each names its record.
        for index in [0, 500, full.count - 1] {
            #expect(try vault.short(full[index]) == shorts[index])
            #expect((try vault.json(["show", shorts[index], "--json"]) as? [String: Any])?["id"] as? String == full[index])
        }
        // Where two listed notes' random parts share their first six, those six name neither.
        let shared = try #require(Dictionary(grouping: shorts) { $0.prefix(6) }.first { $0.value.count > 1 }?.key,
                                  "the seeded journal has notes whose random parts share six digits")
        let ambiguous = try vault.run(["show", String(shared)])
        #expect(ambiguous.status == 64 && ambiguous.stderr.hasPrefix("Error: ID matches "), "\(ambiguous)")
    }
}
