import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `bmvault file add|list|open|export|verify|remove` and `book progress --at`, through the
/// built binary, real SQLite, the private Secret Service of the test session and real book
/// files (EPUBs made by `zip`, PDFs written by hand; ``BookFileSamples``): the book found or
/// made from a file's metadata, nothing of the book in the clear in the vault, one copy per
/// content, linked files that move or become unreadable, damaged files refused with nothing
/// changed, `kill -9` in the middle of an add, the locator, the decrypted copy `file open`
/// leaves, and the v16 and v17 fixtures (Docs/FILES.md).
@Suite struct FileEndToEndTests {
    // MARK: - A vault of the test's own

    /// A new, unlocked vault with its own log (XDG_STATE_HOME), runtime directory and TMPDIR,
    /// and the folders `books` (the reader's files) and `out` (exports), all under its root.
    private func makeVault() throws -> TestVault {
        let vault = try TestVault()
        for name in ["state", "runtime", "tmp", "books", "out"] {
            let folder = vault.root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        }
        vault.environment["XDG_STATE_HOME"] = vault.stateHome.path
        vault.environment["XDG_RUNTIME_DIR"] = vault.runtime.path
        vault.environment["TMPDIR"] = vault.root.appendingPathComponent("tmp").path
        try vault.createUnlocked()
        return vault
    }

    /// The error line of a refused command: exit `status`, nothing on standard output, one
    /// line on standard error (no failure report after it: a reader's mistake is no crash).
    private func expectOneLineError(_ result: CommandResult, status: Int32, containing fragment: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.hasSuffix("\n"), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line only: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(fragment), "\(result)", sourceLocation: sourceLocation)
    }

    // MARK: - 1. A file added without a book

    @Test func anEPUBAddedAloneMakesItsBookFromItsMetadataAndLeavesNoPlaintextInTheVault() throws {
        let vault = try makeVault()
        let chapter = SweepCanary("The heron counts BMV-CANARY-\(UUID().uuidString) silver umbrellas at dawn")
        let title = SweepCanary("Lighthouse \(UUID().uuidString.prefix(18))")
        let path = vault.books.appendingPathComponent("lighthouse.epub")
        let epub = [UInt8](try BookFileSamples.epub(at: path, title: title.text, author: "Mira Ostrova", text: chapter.text))
        // The EPUB holds both in the clear (its members are stored, not deflated): a copy kept
        // in the clear anywhere would show them.
        let inChapter = try #require(CanarySearch.find(Array(chapter.text.utf8), in: epub))
        #expect(CanarySearch.find(Array(title.text.utf8), in: epub) != nil)
        let windows: [(String, [UInt8])] = [("its first 64 bytes", Array(epub[0..<64])),
                                            ("64 bytes around the chapter's text", Array(epub[(inChapter - 16)..<(inChapter + 48)])),
                                            ("its last 64 bytes", Array(epub.suffix(64)))]

        let added = try vault.run(["--debug", "file", "add", path.path])
        #expect(added.status == 0, "\(added)")
        let books = try vault.bookList()
        try #require(books.count == 1, "\(books)")
        #expect(books[0]["title"] as? String == title.text)
        #expect(books[0]["authors"] as? [String] == ["Mira Ostrova"])
        let bookID = try #require(books[0]["id"] as? String)
        let files = try vault.fileList()
        try #require(files.count == 1, "\(files)")
        let file = files[0]
        let fileID = try #require(file["id"] as? String)
        #expect(file["book"] as? String == bookID)
        #expect(file["bookTitle"] as? String == title.text)
        #expect(file["format"] as? String == "epub")
        #expect(int64(file["size"]) == Int64(epub.count))
        #expect(file["sha256"] as? String == (try sha256(path)))
        #expect(file["kept"] as? String == "stored")
        #expect(file["presence"] as? String == "present")
        #expect((file["metadata"] as? [String: Any])?["title"] as? String == title.text)
        // What it made, said once each: the book (by its short id away from a terminal, no
        // title) and the file.
        let shortBook = try vault.short(bookID)
        #expect(added.stderr.contains("Added book \(shortBook) from the file's metadata.\n"), "\(added)")
        #expect(added.stderr.contains(", file \(randomPart(of: fileID).prefix(8)) kept encrypted for book \(shortBook).\n"), "\(added)")
        #expect(added.stdout.isEmpty, "\(added)")

        // One blob, named by neither the file's checksum nor its title.
        let blobs = vault.blobs()
        try #require(blobs.count == 1, "\(blobs)")
        #expect(!blobs[0].contains(file["sha256"] as? String ?? "?") && !blobs[0].lowercased().contains("lighthouse"))
        let blob = try Data(contentsOf: vault.blobDirectory.appendingPathComponent(blobs[0]))
        #expect(blob.count > epub.count, "the blob holds all of the file, sealed")

        let diagnostics = try vault.run(["diagnostics"])
        let diagnosticsJSON = try vault.run(["diagnostics", "--json"])
        #expect(diagnostics.status == 0 && diagnosticsJSON.status == 0, "\(diagnostics)\n\(diagnosticsJSON)")
        let log = try String(contentsOf: vault.stateHome.appendingPathComponent("bmvault/bmvault.log"), encoding: .utf8)
        #expect(log.contains("file.added"), "the log the search covers is the one bmvault wrote to")

        for canary in [chapter, title] {
            let search = CanarySearch(canary)
            search.searchTree(vault.directory, as: "vault")
            search.searchTree(vault.stateHome, as: "state")
            search.searchTree(vault.runtime, as: "runtime")
            search.searchTree(vault.root.appendingPathComponent("tmp"), as: "tmp")
            for (label, result) in [("file add", added), ("diagnostics", diagnostics), ("diagnostics --json", diagnosticsJSON)] {
                search.search("\(label) stdout", result.stdout)
                search.search("\(label) stderr", result.stderr)
            }
            #expect(search.hits.isEmpty, "\(canary.text): \(search.hits)")
            #expect(search.searched.contains("vault/vault.db") && search.searched.contains("vault/files/\(blobs[0])"), "\(search.searched)")
        }
        // Nor any run of the raw file's bytes, in any file under the vault.
        for (name, bytes) in try vault.everyFile(under: vault.directory) {
            for (window, needle) in windows {
                #expect(CanarySearch.find(needle, in: bytes) == nil, "\(window) of the EPUB are in \(name)")
            }
        }
        // The searches find what is there: the reader's own file holds all of it.
        for canary in [chapter, title] {
            let control = CanarySearch(canary)
            control.searchTree(vault.books, as: "books")
            #expect(control.hits.contains { $0.artifact == "books/lighthouse.epub" }, "\(control.hits)")
        }
        let original = try #require(try vault.everyFile(under: vault.books).first { $0.0 == "lighthouse.epub" })
        #expect(windows.allSatisfy { CanarySearch.find($0.1, in: original.1) != nil })
    }

    // MARK: - 2. Export

    @Test func exportWritesTheSameBytesAndNeverReplacesAFile() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("book.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Persuasion", author: "Jane Austen", text: "Anne Elliot walks to Uppercross.")
        let id = try #require(try vault.add(path)["id"] as? String)

        let copy = vault.out.appendingPathComponent("copy.epub")
        let exported = try vault.run(["file", "export", id, "--out", copy.path])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stderr.contains("(not encrypted)"), "\(exported)")
        #expect(try Data(contentsOf: copy) == epub)
        // The id as listings show it names it too, and the copy is the vault's: the original gone, it is still there.
        try FileManager.default.removeItem(at: path)
        let second = vault.out.appendingPathComponent("second.epub")
        try vault.succeed(["file", "export", String(randomPart(of: id).prefix(8)), "--out", second.path])
        #expect(try Data(contentsOf: second) == epub)

        // A file that exists is never replaced, whatever it holds.
        let existing = vault.out.appendingPathComponent("mine.epub")
        let mine = Data("the reader's own file\n".utf8)
        try mine.write(to: existing)
        let refused = try vault.run(["file", "export", id, "--out", existing.path])
        expectOneLineError(refused, status: 1, containing: "already exists")
        #expect(try Data(contentsOf: existing) == mine)
        let alsoCopy = try vault.run(["file", "export", id, "--out", copy.path])
        #expect(alsoCopy.status != 0, "\(alsoCopy)")
        #expect(try Data(contentsOf: copy) == epub)
        // Nor is a folder made for it.
        let nowhere = vault.out.appendingPathComponent("no-such-folder/copy.epub")
        expectOneLineError(try vault.run(["file", "export", id, "--out", nowhere.path]), status: 66, containing: "folder of the --out file does not exist")
        #expect(!FileManager.default.fileExists(atPath: nowhere.deletingLastPathComponent().path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.out.path).sorted() == ["copy.epub", "mine.epub", "second.epub"])
    }

    // MARK: - 3. One copy per content

    @Test func theSameContentTwiceIsKeptOnceAndAnotherBookGetsItWithoutASecondCopy() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("walden.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Walden", author: "Henry David Thoreau", text: "Simplify, simplify.")
        let first = try vault.add(path)
        #expect(first["bookAdded"] as? Bool == true && first["contentAdded"] as? Bool == true)
        let blobs = try vault.blobBytes()
        #expect(blobs.count == 1)

        // The same bytes under another name: nothing changes.
        let renamed = vault.books.appendingPathComponent("Thoreau - Walden (copy).epub")
        try FileManager.default.copyItem(at: path, to: renamed)
        let again = try vault.run(["file", "add", renamed.path])
        #expect(again.status == 0, "\(again)")
        #expect(again.stderr.contains("is already a file of book") && again.stderr.contains("nothing was changed"), "\(again)")
        #expect(try vault.blobBytes() == blobs)
        #expect(try vault.fileList().count == 1)
        #expect(try vault.bookList().count == 1)

        // For another book: attached, no second copy.
        let other = try vault.succeed(["book", "add", "Walden, annotated"]).line
        let attached = try vault.run(["file", "add", renamed.path, "--book", other])
        #expect(attached.status == 0, "\(attached)")
        #expect(attached.stderr.contains("the same content was already kept, so no second copy"), "\(attached)")
        #expect(try vault.blobBytes() == blobs, "one blob for the content, whichever book has it")
        let files = try vault.fileList()
        try #require(files.count == 2, "\(files)")
        #expect(Set(files.compactMap { $0["book"] as? String }) == [try #require(first["book"] as? String), other])
        #expect(Set(files.compactMap { $0["sha256"] as? String }).count == 1)
        #expect(files.allSatisfy { $0["kept"] as? String == "stored" && $0["presence"] as? String == "present" })
        let othersFile = try #require(files.first { $0["book"] as? String == other }?["id"] as? String)
        let copy = vault.out.appendingPathComponent("other.epub")
        try vault.succeed(["file", "export", othersFile, "--out", copy.path])
        #expect(try Data(contentsOf: copy) == epub)
    }

    @Test func aDifferentEditionIsASecondFileOfTheSameBook() throws {
        let vault = try makeVault()
        let first = vault.books.appendingPathComponent("first.epub")
        let second = vault.books.appendingPathComponent("revised.epub")
        try BookFileSamples.epub(at: first, title: "The Quiet Lighthouse Keeper", author: "Mira Ostrova",
                                 identifier: "urn:uuid:11111111-2222-4333-8444-555555555555", text: "The first edition.")
        // Other bytes, another identifier (an ISBN): the same title and author.
        try BookFileSamples.epub(at: second, title: "The Quiet Lighthouse Keeper", author: "Mira Ostrova",
                                 identifier: "9780306406157", text: "The second edition, revised and corrected.")
        let one = try vault.add(first)
        let two = try vault.add(second)
        #expect(two["bookAdded"] as? Bool == false && two["contentAdded"] as? Bool == true, "\(two)")
        #expect(two["book"] as? String == one["book"] as? String)
        let books = try vault.bookList()
        #expect(books.count == 1, "\(books)")
        let book = try #require(one["book"] as? String)
        let files = try vault.fileList(book: book)
        #expect(files.count == 2 && Set(files.compactMap { $0["sha256"] as? String }).count == 2, "\(files)")
        #expect(try vault.fileList().count == 2)
        #expect(vault.blobs().count == 2)
    }

    @Test func contentFirstLinkedThenAddedIsStoredAndSaysSo() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("emma.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Emma", author: "Jane Austen", text: "Emma Woodhouse, handsome, clever, and rich.")
        let linked = try vault.add(path, ["--link"])
        #expect(linked["linked"] as? Bool == true)
        #expect(vault.blobs().isEmpty, "a linked file is not copied")

        let stored = try vault.run(["file", "add", path.path])
        #expect(stored.status == 0, "\(stored)")
        #expect(!stored.stderr.contains("nothing was changed"), "it was stored: \(stored)")
        #expect(stored.stderr.contains("kept encrypted"), "\(stored)")
        let files = try vault.fileList()
        try #require(files.count == 1, "\(files)")
        #expect(files[0]["kept"] as? String == "stored")
        #expect(vault.blobs().count == 1)
        // The stored copy is the vault's own: with the file moved away, it is still whole.
        try FileManager.default.moveItem(at: path, to: vault.books.appendingPathComponent("moved-away.epub"))
        #expect(try vault.run(["file", "verify"]).status == 0)
        let copy = vault.out.appendingPathComponent("emma.epub")
        try vault.succeed(["file", "export", try #require(files[0]["id"] as? String), "--out", copy.path])
        #expect(try Data(contentsOf: copy) == epub)
    }

    // MARK: - 4. Linked files

    @Test func aLinkedFileThatMovedIsFoundRelinkedAndNeverDeleted() throws {
        let vault = try makeVault()
        let shelf = vault.books.appendingPathComponent("shelf")
        try FileManager.default.createDirectory(at: shelf, withIntermediateDirectories: true)
        let path = shelf.appendingPathComponent("middlemarch.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Middlemarch", author: "George Eliot", text: "Dorothea Brooke had that kind of beauty.")
        let added = try vault.add(path, ["--link"])
        #expect(added["linked"] as? Bool == true)
        let id = try #require(added["id"] as? String)
        let short = String(randomPart(of: id).prefix(8))
        #expect(vault.blobs().isEmpty, "no copy of a linked file")

        let listed = try vault.succeed(["file", "list"]).stdout
        #expect(listed.contains("\(short)  EPUB") && listed.contains("  linked  present, on this device only  "), "\(listed)")
        var file = try #require(try vault.fileList().first)
        #expect(file["kept"] as? String == "linked")
        #expect(file["presence"] as? String == "present")
        #expect(file["linkPath"] as? String == path.path)
        #expect(file["onThisDevice"] as? Bool == true)
        #expect(try vault.run(["file", "verify"]).status == 0)

        // Moved, with a decoy of the same size (another byte) beside it: found by size, then checksum.
        let moved = vault.books.appendingPathComponent("moved/deeper")
        try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
        var decoy = epub
        decoy[decoy.count / 2] ^= 0xff
        try decoy.write(to: moved.appendingPathComponent("a-decoy.epub"))
        let newPath = moved.appendingPathComponent("Middlemarch (renamed).epub")
        try FileManager.default.moveItem(at: path, to: newPath)

        let missing = try vault.run(["file", "verify"])
        #expect(missing.status == 65, "\(missing)")
        #expect(missing.stdout.contains("\(short)  EPUB  MISSING"), "\(missing)")
        #expect(missing.stderr.hasPrefix("Error: 1 book file missing, unreadable or changed"), "\(missing)")
        #expect(try vault.fileList().first?["presence"] as? String == "missing")
        #expect(try vault.succeed(["file", "list"]).stdout.contains("  linked  MISSING  "))
        let gone = try vault.run(["file", "export", id, "--out", vault.out.appendingPathComponent("copy.epub").path])
        expectOneLineError(gone, status: 66, containing: "is not where it was linked; `bmvault file verify --search DIR` looks for it")

        let found = try vault.run(["file", "verify", "--search", vault.books.path])
        #expect(found.status == 65, "found but not re-linked without --repair: \(found)")
        #expect(found.stdout.contains("moved to \(newPath.path) (--repair re-links it)"), "\(found)")
        let foundJSON = try vault.run(["file", "verify", "--search", vault.books.path, "--json"])
        #expect(foundJSON.status == 65)
        let checks = try #require(try JSONSerialization.jsonObject(with: Data(foundJSON.stdout.utf8)) as? [[String: Any]])
        #expect(checks.count == 1 && checks[0]["state"] as? String == "moved" && checks[0]["movedTo"] as? String == newPath.path
                && checks[0]["repaired"] as? Bool == false, "\(checks)")
        #expect(try vault.fileList().first?["linkPath"] as? String == path.path, "no repair without --repair")

        let repaired = try vault.run(["file", "verify", "--search", vault.books.path, "--repair"])
        #expect(repaired.status == 0, "\(repaired)")
        #expect(repaired.stdout.contains("moved; re-linked to \(newPath.path)"), "\(repaired)")
        file = try #require(try vault.fileList().first)
        #expect(file["linkPath"] as? String == newPath.path)
        #expect(file["presence"] as? String == "present")
        let later = try vault.run(["file", "verify"])
        #expect(later.status == 0 && later.stdout.contains("\(short)  EPUB  intact"), "\(later)")

        // Nothing was deleted, moved or made: the file and the decoy are where they were.
        #expect(try Data(contentsOf: newPath) == epub)
        #expect(try Data(contentsOf: moved.appendingPathComponent("a-decoy.epub")) == decoy)
        #expect(!FileManager.default.fileExists(atPath: path.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: moved.path).sorted() == ["Middlemarch (renamed).epub", "a-decoy.epub"])
        #expect(vault.blobs().isEmpty)
    }

    // MARK: - 5. A linked file that can no longer be read

    /// As root, `chmod 000` stops no read, so the scenario runs as an unprivileged user
    /// (nobody, through `setpriv`): a vault of its own, opened the headless way
    /// (`--no-keyring` and BMVAULT_PASSPHRASE_COMMAND; the session keyring is root's).
    /// As another user, it runs as that user.
    @Test func aLinkedFileWhosePermissionWasTakenAwayIsUnreadableAndNotDeleted() throws {
        let vault = try TestVault()   // its root only, and its removal
        let asRoot = getuid() == 0
        let home = vault.root.appendingPathComponent("reader")
        let books = home.appendingPathComponent("books")
        for folder in [home, books, home.appendingPathComponent("state"), home.appendingPathComponent("config")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let path = books.appendingPathComponent("north-and-south.epub")
        let epub = try BookFileSamples.epub(at: path, title: "North and South", author: "Elizabeth Gaskell", text: "Edith! said Margaret gently.")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: vault.root.path)
        if asRoot {
            let owned = try Binary.run("/usr/bin/chown", ["-R", "65534:65534", home.path], environment: ProcessInfo.processInfo.environment)
            try #require(owned.status == 0, "\(owned)")
        }
        let environment = [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "HOME": home.path,
            "XDG_STATE_HOME": home.appendingPathComponent("state").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "BMVAULT_HOME": home.appendingPathComponent("vault").path, "BMVAULT_PASSPHRASE_COMMAND": HeadlessTests.command,
        ]
        func bmvault(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
            guard asRoot else { return try Binary.run(Binary.path, arguments, stdin: stdin, environment: environment) }
            return try Binary.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", Binary.path] + arguments,
                                  stdin: stdin, environment: environment)
        }
        let version = try bmvault(["--version"])
        try #require(version.status == 0, "the unprivileged user cannot run \(Binary.path) (is a folder above it private?): \(version)")
        let created = try bmvault(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: TestVault.passphrase + "\n")
        try #require(created.status == 0, "\(created)")
        let added = try bmvault(["--no-keyring", "file", "add", "--link", path.path, "--json"])
        try #require(added.status == 0, "\(added)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let short = String(randomPart(of: id).prefix(8))
        let intact = try bmvault(["--no-keyring", "file", "verify"])
        #expect(intact.status == 0 && intact.stdout.contains("\(short)  EPUB  intact"), "\(intact)")

        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path.path)
        let verify = try bmvault(["--no-keyring", "file", "verify"])
        #expect(verify.status == 65, "\(verify)")
        #expect(verify.stdout.contains("\(short)  EPUB  UNREADABLE: Permission denied"), "\(verify)")
        #expect(verify.stderr.hasPrefix("Error: 1 book file missing, unreadable or changed"), "\(verify)")
        let verifyJSON = try bmvault(["--no-keyring", "file", "verify", "--json"])
        #expect(verifyJSON.status == 65)
        let checks = try JSONSerialization.jsonObject(with: Data(verifyJSON.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(checks.first?["state"] as? String == "unreadable" && int64(checks.first?["errno"]) == Int64(EACCES), "\(verifyJSON)")
        let list = try bmvault(["--no-keyring", "file", "list"])
        #expect(list.status == 0 && list.stdout.contains("  linked  UNREADABLE  "), "\(list)")
        let listJSON = try bmvault(["--no-keyring", "file", "list", "--json"])
        let listed = try JSONSerialization.jsonObject(with: Data(listJSON.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(listed.first?["presence"] as? String == "unreadable", "\(listJSON)")
        let copy = home.appendingPathComponent("copy.epub")
        expectOneLineError(try bmvault(["--no-keyring", "file", "export", id, "--out", copy.path]), status: 77, containing: "cannot be read: Permission denied")
        #expect(!FileManager.default.fileExists(atPath: copy.path), "no copy of what could not be read")
        // A search finds nothing to re-link (it is not missing) and deletes nothing.
        let searched = try bmvault(["--no-keyring", "file", "verify", "--search", books.path, "--repair"])
        #expect(searched.status == 65, "\(searched)")

        // Permission given back: the same file, untouched, intact again.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path.path)
        #expect(try Data(contentsOf: path) == epub)
        #expect(try bmvault(["--no-keyring", "file", "verify"]).status == 0)
    }

    // MARK: - 6. Damaged files

    @Test func aDamagedOrUnknownFileIsRefusedWithOneLineAndTheVaultUnchanged() throws {
        let vault = try makeVault()
        let canary = "BMV-CANARY-\(UUID().uuidString)"
        let good = vault.books.appendingPathComponent("good.epub")
        let epub = try BookFileSamples.epub(at: good, title: "Cranford", author: "Elizabeth Gaskell", text: "In the first place, \(canary).")
        _ = try vault.add(good)
        try vault.succeed(["note", "add", "cranford", "Amazons, all of them."])

        var generator = SystemRandomNumberGenerator()
        let random = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }.map { $0 == 0x25 || $0 == 0x50 ? 0 : $0 })
        let zip = vault.books.appendingPathComponent("staging-zip")
        try FileManager.default.createDirectory(at: zip, withIntermediateDirectories: true)
        try Data("not a book\n".utf8).write(to: zip.appendingPathComponent("readme.txt"))
        let plainZip = vault.books.appendingPathComponent("plain-zip.epub")
        let zipped = try Binary.run("/bin/sh", ["-c", #"cd "$1" && zip -X -q "$2" readme.txt"#, "sh", zip.path, plainZip.path],
                                    environment: ProcessInfo.processInfo.environment)
        try #require(zipped.status == 0, "\(zipped)")
        let damaged: [(String, Data?)] = [
            ("truncated.epub", epub.prefix(epub.count / 2)),
            ("garbage.pdf", random),
            ("broken-after-its-header.pdf", Data("%PDF-1.7\n".utf8) + random),
            ("empty.epub", Data()),
            ("plain-zip.epub", nil),
        ]
        for case let (name, bytes?) in damaged {
            try bytes.write(to: vault.books.appendingPathComponent(name))
        }

        for (name, _) in damaged {
            let before = try vault.snapshot()
            let refused = try vault.run(["file", "add", vault.books.appendingPathComponent(name).path])
            let after = try vault.snapshot(afterARefusal: true)
            expectOneLineError(refused, status: 65, containing: "nothing was changed")
            #expect(!refused.stderr.contains(canary), "\(name): \(refused)")
            #expect(after == before, "\(name) changed the vault")
            #expect(try vault.snapshot() == before, "\(name) changed what the vault lists")
            // With a book named, the same.
            let named = try vault.run(["file", "add", vault.books.appendingPathComponent(name).path, "--book", "cranford"])
            #expect(named.status == 65, "\(name): \(named)")
            #expect(try vault.snapshot(afterARefusal: true) == before)
        }
        let before = try vault.snapshot()
        let missing = try vault.run(["file", "add", vault.books.appendingPathComponent("no-such-file.epub").path])
        expectOneLineError(missing, status: 66, containing: "nothing was changed")
        #expect(try vault.snapshot(afterARefusal: true) == before)
        #expect(try vault.fileList().count == 1)
        #expect(try vault.run(["file", "verify"]).status == 0)
        // The comparison sees a change: a good file added changes the state.
        let other = vault.books.appendingPathComponent("other.epub")
        try BookFileSamples.epub(at: other, title: "Ruth", author: "Elizabeth Gaskell", text: "There is an old town.")
        _ = try vault.add(other, ["--book", "cranford"])
        #expect(try vault.snapshot(afterARefusal: true) != before)
    }

    // MARK: - 7. kill -9 during file add

    @Test func fileAddKilledMidwayLeavesNoRowWithoutItsWholeBlobAndTheNextAddSweeps() throws {
        let vault = try makeVault()
        let pdf = vault.books.appendingPathComponent("large.pdf")
        try BookFileSamples.largePDF(at: pdf, size: 50_000_000, title: "A Large Book", author: "Big Writer")
        /// Every blob seen under its final name after a kill: (run, name, size).
        var finalBlobs: [(String, String, Int)] = []
        func look(_ run: String) throws {
            for name in vault.blobs() where !name.hasPrefix(".incoming-") {
                let size = try FileManager.default.attributesOfItem(atPath: vault.blobDirectory.appendingPathComponent(name).path)[.size] as? Int
                finalBlobs.append((run, name, size ?? -1))
            }
            // Whatever was killed, the vault reads, and every file it lists is whole.
            let files = try vault.fileList()
            #expect(files.count <= 1, "\(run): \(files)")
            #expect(try vault.bookList().count <= 1, "\(run): the book was added twice")
            let verified = try vault.run(["file", "verify"])
            #expect(verified.status == 0, "\(run): \(verified)")
            for file in files {
                #expect(file["presence"] as? String == "present", "\(run): \(file)")
                let copy = vault.out.appendingPathComponent("\(run).pdf")
                let exported = try vault.run(["file", "export", try #require(file["id"] as? String), "--out", copy.path])
                #expect(exported.status == 0, "\(run): \(exported)")
                #expect(FileManager.default.contentsEqual(atPath: copy.path, andPath: pdf.path), "\(run): the export differs")
                try? FileManager.default.removeItem(at: copy)
            }
        }

        // Killed once its blob is written and flushed, before the rename: an incoming blob, no row.
        let written = try vault.run(["file", "add", pdf.path], environment: ["BMVAULT_TEST_CRASH_AT": "file-add:blob-written"])
        #expect(written.status == 128 + SIGKILL, "\(written)")
        #expect(vault.blobs().count == 1 && vault.blobs().allSatisfy { $0.hasPrefix(".incoming-") }, "\(vault.blobs())")
        #expect(try vault.fileList().isEmpty)
        #expect(try vault.bookList().isEmpty, "the book its metadata named went with the transaction")
        try look("blob-written")
        // Killed in its transaction, the blob in place: a blob no row names (the earlier one swept).
        let commit = try vault.run(["file", "add", pdf.path], environment: ["BMVAULT_TEST_CRASH_AT": "file-add:before-commit"])
        #expect(commit.status == 128 + SIGKILL, "\(commit)")
        #expect(vault.blobs().count == 1 && !vault.blobs()[0].hasPrefix(".incoming-"), "\(vault.blobs())")
        #expect(try vault.fileList().isEmpty)
        #expect(try vault.bookList().isEmpty)
        try look("before-commit")

        // Killed at random moments: a file added is removed again, so that each run adds anew.
        var kills = 0
        for (run, delay) in RandomKill.delays(seed: 19, upTo: 450_000).enumerated() {
            let landed = try vault.runKilled(["file", "add", pdf.path], after: delay)
            if landed { kills += 1 }
            try look("run \(run), killed after \(delay) µs: \(landed)")
            let files = try vault.fileList()
            if !landed { #expect(files.count == 1, "an add that finished added its file") }
            if let id = files.first?["id"] as? String { try vault.succeed(["file", "remove", id]) }
        }
        #expect(kills > 0, "no kill landed while file add ran: the random runs tested nothing")

        // The next add sweeps whatever no row names; its own blob is the one left.
        let added = try vault.add(pdf)
        #expect(added["contentAdded"] as? Bool == true)
        let blobs = vault.blobs()
        try #require(blobs.count == 1, "orphans left after the next add: \(blobs)")
        #expect(!blobs[0].hasPrefix(".incoming-"))
        let whole = try FileManager.default.attributesOfItem(atPath: vault.blobDirectory.appendingPathComponent(blobs[0]).path)[.size] as? Int
        for (run, name, size) in finalBlobs {
            #expect(size == whole, "\(run): blob \(name) under its final name holds \(size) bytes, a whole one \(whole ?? -1)")
        }
        try look("after the sweep")
        #expect(try vault.run(["check"]).status == 0)
    }

    // MARK: - A stored copy damaged or gone

    /// What `file verify` says of a blob changed, cut short or deleted behind bmvault's back,
    /// and that `file export` then gives no copy at all (Docs/FILES.md: exit 65, and what it
    /// wrote is removed).
    @Test func aDamagedOrMissingBlobIsReportedAndNeverExported() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("shirley.epub")
        try BookFileSamples.epub(at: path, title: "Shirley", author: "Charlotte Brontë", text: "Of late years an abundant shower of curates.")
        let id = try #require(try vault.add(path)["id"] as? String)
        let short = String(randomPart(of: id).prefix(8))
        let blob = vault.blobDirectory.appendingPathComponent(try #require(vault.blobs().first))
        let whole = try Data(contentsOf: blob)
        let out = vault.out.appendingPathComponent("shirley.epub")

        var flipped = whole
        flipped[whole.count / 2] ^= 0x01
        for (damage, bytes) in [("one byte changed", flipped), ("cut short", whole.prefix(whole.count - 40)),
                                ("run on", whole + Data([0]))] {
            try bytes.write(to: blob)
            let verify = try vault.run(["file", "verify"])
            #expect(verify.status == 65, "\(damage): \(verify)")
            #expect(verify.stdout.contains("\(short)  EPUB  DAMAGED"), "\(damage): \(verify)")
            let exported = try vault.run(["file", "export", id, "--out", out.path])
            expectOneLineError(exported, status: 65, containing: "file verify")
            // Issue 40 (low): it said "a linked file was changed" of a stored copy.
            #expect(exported.stderr.contains("book file \(id): its stored copy in the vault's files folder is damaged") && !exported.stderr.contains("linked"),
                    "\(damage): \(exported)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "\(damage): a copy of a damaged blob was left")
        }

        try FileManager.default.removeItem(at: blob)
        let verify = try vault.run(["file", "verify"])
        #expect(verify.status == 65 && verify.stdout.contains("\(short)  EPUB  MISSING: its stored copy is gone"), "\(verify)")
        #expect(try vault.fileList().first?["presence"] as? String == "missing")
        #expect(try vault.succeed(["file", "list"]).stdout.contains("  stored  MISSING  "))
        expectOneLineError(try vault.run(["file", "export", id, "--out", out.path]), status: 66, containing: "its stored copy is gone")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        expectOneLineError(try vault.run(["file", "open", id, "--print-path"]), status: 66, containing: "`bmvault file verify` lists")

        // Put back, it is whole again: nothing was deleted or re-made meanwhile.
        try whole.write(to: blob)
        #expect(try vault.run(["file", "verify"]).status == 0)
        try vault.succeed(["file", "export", id, "--out", out.path])
        #expect(try Data(contentsOf: out) == Data(contentsOf: path))
    }

    // MARK: - Adds at once

    /// Each `file add` sweeps the file store as it starts, while others are writing theirs:
    /// the lock each writer holds until its row commits keeps every blob.
    @Test func addsAtOnceLoseNoBlob() throws {
        let vault = try makeVault()
        let paths = (0..<9).map { vault.books.appendingPathComponent("book-\($0).pdf") }
        for (index, path) in paths.enumerated() {
            try BookFileSamples.largePDF(at: path, size: 3_000_000, title: "Concurrent \(index)", author: "Writer \(index % 3)")
        }
        let environment = vault.environment
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for path in paths[(worker * 3)..<(worker * 3 + 3)] {
                let result = try? Binary.run(Binary.path, ["file", "add", path.path], environment: environment)
                if result?.status != 0 { failures.record("\(path.lastPathComponent): \(result?.description ?? "did not run")") }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let files = try vault.fileList()
        #expect(files.count == paths.count, "\(files.count) files listed")
        #expect(vault.blobs().count == paths.count && !vault.blobs().contains { $0.hasPrefix(".incoming-") }, "\(vault.blobs())")
        #expect(try vault.run(["file", "verify"]).status == 0)
        for file in files {
            let title = try #require(file["bookTitle"] as? String)
            let copy = vault.out.appendingPathComponent("\(title).pdf")
            try vault.succeed(["file", "export", try #require(file["id"] as? String), "--out", copy.path])
            let original = try #require(paths.first { $0.lastPathComponent == "book-\(title.split(separator: " ").last ?? "").pdf" })
            #expect(FileManager.default.contentsEqual(atPath: copy.path, andPath: original.path), "\(title)")
        }
    }

    // MARK: - 8. Remove

    @Test func removeTakesTheBlobWithTheLastBookOnlyAndNeverALinkedFile() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("sylvia.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Sylvia's Lovers", author: "Elizabeth Gaskell", text: "Monkshaven was the name.")
        let first = try vault.add(path)
        let other = try vault.succeed(["book", "add", "Another shelf"]).line
        let second = try vault.add(path, ["--book", other])
        let blobs = try vault.blobBytes()
        #expect(blobs.count == 1)

        let removed = try vault.run(["file", "remove", try #require(first["id"] as? String)])
        #expect(removed.status == 0, "\(removed)")
        #expect(try vault.blobBytes() == blobs, "another book still has it")
        let left = try vault.fileList()
        #expect(left.compactMap { $0["id"] as? String } == [try #require(second["id"] as? String)])
        let copy = vault.out.appendingPathComponent("copy.epub")
        try vault.succeed(["file", "export", try #require(second["id"] as? String), "--out", copy.path])
        #expect(try Data(contentsOf: copy) == epub)

        try vault.succeed(["file", "remove", try #require(second["id"] as? String)])
        #expect(vault.blobs().isEmpty, "the last book's file went, and its blob with it")
        #expect(try vault.fileList().isEmpty)
        #expect(try vault.bookList().count == 2, "the books stay")
        expectOneLineError(try vault.run(["file", "remove", try #require(second["id"] as? String)]), status: 66, containing: "has id")

        // A linked file: detached, never touched where it lies.
        let linkedPath = vault.books.appendingPathComponent("linked.epub")
        let linkedBytes = try BookFileSamples.epub(at: linkedPath, title: "Ruth", author: "Elizabeth Gaskell", text: "There is an old town.")
        let linked = try vault.add(linkedPath, ["--link"])
        let detached = try vault.run(["file", "remove", try #require(linked["id"] as? String)])
        #expect(detached.status == 0, "\(detached)")
        #expect(try Data(contentsOf: linkedPath) == linkedBytes)
        #expect(try vault.fileList().isEmpty)
        #expect(vault.blobs().isEmpty)
    }

    // MARK: - 9. The place in a file

    /// A book file removed longer ago than the retention loses, at `purge`, the place the
    /// reader had in it and (no book having it any more) the metadata the file gave and its
    /// key; the row stays, removed. One removed more recently, or still on another book,
    /// keeps them until its own time comes.
    @Test func aFileRemovedLongAgoIsPurgedOfWhatItSaid() throws {
        let vault = try makeVault()
        let old = vault.books.appendingPathComponent("old.epub"), recent = vault.books.appendingPathComponent("recent.epub")
        try BookFileSamples.epub(at: old, title: "Removed Long Ago", author: "An Author Of Length", text: "words")
        try BookFileSamples.epub(at: recent, title: "Removed Yesterday", text: "other words")
        let oldFile = try #require(try vault.add(old)["id"] as? String)
        let recentFile = try #require(try vault.add(recent)["id"] as? String)
        for (id, book) in [(oldFile, "removed long ago"), (recentFile, "removed yesterday")] {
            try vault.succeed(["book", "progress", book, "--at", "p. 12"])
            try vault.succeed(["file", "remove", id])
        }
        _ = try vault.sqlite("UPDATE book_file SET removed_at = removed_at - 200 * 86400000 WHERE id = '\(oldFile)';")
        func column(_ sql: String, _ id: String) throws -> String {
            try vault.sqlite("SELECT \(sql) FROM book_file b JOIN file f ON f.id = b.file_id WHERE b.id = '\(id)';")
        }
        let before = try Int(column("length(f.metadata)", oldFile)) ?? 0
        #expect(try column("b.locator IS NOT NULL AND f.file_key IS NOT NULL", oldFile) == "1")

        try vault.succeed(["lock"])                                   // purge needs no key
        #expect(try vault.succeed(["purge"]).stderr == "Purged 1 deleted record older than 90 days.\n")
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(try column("b.locator IS NULL AND f.file_key IS NULL AND b.removed_at IS NOT NULL", oldFile) == "1")
        #expect(try column("length(f.metadata)", oldFile) == "0" && before > 0, "the metadata is gone")
        #expect(try column("b.locator IS NOT NULL AND f.file_key IS NOT NULL", recentFile) == "1", "not yet its time")
        #expect(try vault.succeed(["purge"]).stderr == "Purged 0 deleted records older than 90 days.\n", "purged once")
        try vault.succeed(["check"])
    }

    /// A deleted book keeps its files (they come back with it): listings say the book is in
    /// the trash, and stop saying so once it is back.
    @Test func aDeletedBooksFilesAreListedAsInTheTrash() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("trash.epub")
        try BookFileSamples.epub(at: path, title: "A Book Deleted", text: "words")
        let added = try vault.add(path)
        let book = try #require(added["book"] as? String)
        try vault.succeed(["delete", book])
        #expect(try vault.fileList().first?["bookDeleted"] as? Bool == true)
        #expect(try vault.succeed(["file", "list"]).stdout.contains("\"A Book Deleted\" (book in the trash)"))
        try vault.succeed(["undelete", book])
        #expect(try vault.fileList().first?["bookDeleted"] as? Bool == false)
        #expect(try !vault.succeed(["file", "list"]).stdout.contains("trash"))
    }

    @Test func progressAtRecordsTheLocatorInTheBooksOnlyFileOrTheOneNamed() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("mary-barton.epub")
        try BookFileSamples.epub(at: path, title: "Mary Barton", author: "Elizabeth Gaskell", identifier: "urn:uuid:22222222-2222-4333-8444-555555555555",
                                 text: "There are some fields near Manchester.")
        let added = try vault.add(path)
        let book = try #require(added["book"] as? String)
        let fileID = try #require(added["id"] as? String)
        func locators() throws -> [String: String] {
            Dictionary(uniqueKeysWithValues: try vault.fileList().compactMap { file in
                (file["id"] as? String).map { ($0, file["locator"] as? String ?? "none") }
            })
        }
        func progress(_ id: String) throws -> Double? {
            (try vault.bookList().first { $0["id"] as? String == id }?["progress"] as? NSNumber)?.doubleValue
        }

        let cfi = try vault.run(["book", "progress", book, "--at", "epubcfi(/6/4!/4/2)"])
        #expect(cfi.status == 0, "\(cfi)")
        #expect(try locators() == [fileID: "epubcfi(/6/4!/4/2)"])
        #expect(try progress(book) == 0, "a CFI does not move the book's progress")
        #expect(try vault.succeed(["file", "list"]).stdout.contains("  at epubcfi(/6/4!/4/2)\n"))

        let percent = try vault.run(["book", "progress", book, "--at", "42%"])
        #expect(percent.status == 0, "\(percent)")
        #expect(try locators() == [fileID: "42%"])
        #expect(try progress(book) == 42)

        // A second file (another edition): which one must be said.
        let revised = vault.books.appendingPathComponent("mary-barton-revised.epub")
        try BookFileSamples.epub(at: revised, title: "Mary Barton", author: "Elizabeth Gaskell", identifier: "9780306406157",
                                 text: "There are some fields near Manchester, revised.")
        let secondID = try #require(try vault.add(revised)["id"] as? String)
        #expect(try vault.fileList(book: book).count == 2)
        let before = try vault.snapshot()
        let unclear = try vault.run(["book", "progress", book, "--at", "p. 12"])
        expectOneLineError(unclear, status: 64, containing: "--file")
        #expect(unclear.stderr.contains(fileID) && unclear.stderr.contains(secondID), "\(unclear)")
        #expect(try vault.snapshot(afterARefusal: true) == before, "nothing changed")
        let unclearPercent = try vault.run(["book", "progress", book, "--at", "80%"])
        #expect(unclearPercent.status == 64)
        #expect(try progress(book) == 42, "nor the progress, with a percent")
        let named = try vault.run(["book", "progress", book, "--at", "p. 12", "--file", secondID])
        #expect(named.status == 0, "\(named)")
        #expect(try locators() == [fileID: "42%", secondID: "p. 12"])
        #expect(try progress(book) == 42)

        // Another book's file is not this book's.
        let otherPath = vault.books.appendingPathComponent("other.epub")
        try BookFileSamples.epub(at: otherPath, title: "Wives and Daughters", author: "Elizabeth Gaskell", text: "To begin with the old rigmarole of childhood.")
        let otherFile = try #require(try vault.add(otherPath)["id"] as? String)
        #expect(try vault.run(["book", "progress", book, "--at", "p. 3", "--file", otherFile]).status != 0)
        #expect(try locators()[otherFile] == "none")

        // A book with no file.
        let bare = try vault.succeed(["book", "add", "No file yet"]).line
        let beforeBare = try vault.snapshot()
        let none = try vault.run(["book", "progress", bare, "--at", "10%"])
        expectOneLineError(none, status: 66, containing: "no file")
        #expect(try vault.snapshot(afterARefusal: true) == beforeBare)
        #expect(try progress(bare) == 0)
    }

    // MARK: - 10. file open

    @Test func openDecryptsIntoAPrivateRuntimeFolderThatTheNextCommandEmpties() throws {
        let vault = try makeVault()
        let path = vault.books.appendingPathComponent("villette.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Villette", author: "Charlotte Brontë", text: "My godmother lived in a handsome house.")
        let id = try #require(try vault.add(path)["id"] as? String)
        let vaultID = try #require((try vault.json(["status", "--json"]) as? [String: Any])?["vaultId"] as? String)
        let folder = vault.runtime.appendingPathComponent("bmvault-open/\(vaultID)")

        let opened = try vault.run(["file", "open", id, "--print-path"])
        #expect(opened.status == 0, "\(opened)")
        let copy = folder.appendingPathComponent("\(randomPart(of: id).prefix(8)).epub")
        #expect(opened.stdout == copy.path + "\n")
        #expect(try Data(contentsOf: copy) == epub)
        #expect(try permissions(copy) == 0o600)
        #expect(try permissions(folder) == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: folder.path)[.ownerAccountID] as? Int == Int(getuid()))
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.root.appendingPathComponent("tmp").path).isEmpty, "nothing in TMPDIR")

        // The next command of the vault removes it.
        try vault.succeed(["file", "list"])
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        #expect(!FileManager.default.fileExists(atPath: folder.path))

        // Without a private runtime folder: refused, nothing written anywhere.
        let shared = vault.root.appendingPathComponent("shared-runtime")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: shared.path)
        for runtime in [nil, shared.path, "relative/runtime"] {
            vault.environment["XDG_RUNTIME_DIR"] = runtime
            let refused = try vault.run(["file", "open", id, "--print-path"])
            expectOneLineError(refused, status: 69, containing: "$XDG_RUNTIME_DIR")
        }
        vault.environment["XDG_RUNTIME_DIR"] = vault.runtime.path
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
        #expect(try vault.everyFile(under: vault.runtime).isEmpty, "no file in the runtime folder")
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.root.appendingPathComponent("tmp").path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/bmvault-open/\(vaultID)"))
    }

    // MARK: - 11. The fixtures

    /// The v16 fixture (made by bmvault 0.16.0, before book files) upgrades to the newest
    /// schema, lists no file, and takes one.
    @Test func aV16VaultUpgradesAndTakesBookFiles() throws {
        let fixture = try FixtureVault(version: 16)
        let vault = try TestVault()
        try vault.install(fixture)
        let unlocked = try vault.unlock(fixture)
        #expect(unlocked.stderr.contains("Upgrading the vault from schema 16 to"), "\(unlocked)")
        #expect(try vault.schemaVersion() == Schema.latest && Schema.latest >= 17)
        #expect(try vault.fileList().isEmpty)
        let listed = try vault.succeed(["file", "list"])
        #expect(listed.stdout.isEmpty && listed.stderr.contains("No book files yet"), "\(listed)")
        #expect(try vault.run(["file", "verify"]).status == 0)
        try vault.expectLiveRecords(of: fixture)

        let book = try #require(fixture.liveBooks.first?["id"] as? String)
        let path = vault.root.appendingPathComponent("added.epub")
        let epub = try BookFileSamples.epub(at: path, title: "Added After The Upgrade", text: "A new chapter.")
        let added = try vault.add(path, ["--book", book])
        #expect(added["book"] as? String == book)
        let copy = vault.root.appendingPathComponent("copy.epub")
        try vault.succeed(["file", "export", try #require(added["id"] as? String), "--out", copy.path])
        #expect(try Data(contentsOf: copy) == epub)
    }

    /// The v17 fixture (bmvault 0.17.0: an EPUB stored, its blob beside vault.sql, attached
    /// to two books, with a locator) opens, and its file comes back byte for byte.
    @Test func aV17VaultsStoredFileComesBack() throws {
        let fixture = try FixtureVault(version: 17)
        let vault = try TestVault()
        try vault.install(fixture)
        #expect(vault.blobs().count == 1, "the fixture's blob is installed")
        try vault.unlock(fixture)
        let expected = try #require(fixture.expected["files"] as? [[String: Any]])
        let files = try vault.fileList()
        #expect(files.compactMap { $0["id"] as? String } == expected.compactMap { $0["id"] as? String })
        for (got, want) in zip(files, expected) {
            #expect(got["book"] as? String == want["book"] as? String)
            #expect(got["sha256"] as? String == want["sha256"] as? String)
            #expect(int64(got["size"]) == int64(want["size"]))
            #expect(got["kept"] as? String == "stored" && got["presence"] as? String == "present")
            #expect(got["locator"] as? String == want["locator"] as? String)
            #expect((got["metadata"] as? [String: Any])?["title"] as? String == "Le Petit Prince")
        }
        let verified = try vault.run(["file", "verify"])
        #expect(verified.status == 0, "\(verified)")

        let first = try #require(expected.first)
        let out = vault.root.appendingPathComponent("prince.epub")
        try vault.succeed(["file", "export", try #require(first["id"] as? String), "--out", out.path])
        #expect(try sha256(out) == first["sha256"] as? String)
        let opf = try Binary.run("/usr/bin/unzip", ["-p", out.path, "content.opf"], environment: ProcessInfo.processInfo.environment)
        #expect(opf.status == 0, "\(opf)")
        #expect(opf.stdout.contains("<dc:title>Le Petit Prince</dc:title>"), "\(opf)")
        let chapter = try Binary.run("/usr/bin/unzip", ["-p", out.path, "c1.xhtml"], environment: ProcessInfo.processInfo.environment)
        #expect(chapter.stdout.contains("On ne voit bien qu’avec le cœur."), "\(chapter)")
        #expect(vault.blobs().count == 1)
    }

    // MARK: - 12. Archives

    /// `export` lists each book's files; `export --with-files` also writes their plain
    /// copies, which `import` stores again in another vault under the same ids, byte for
    /// byte, once; a dry run stores nothing; a copy changed after the export is refused
    /// with nothing imported; a blob gone leaves the archive without its copy, and says so.
    @Test func anArchiveCarriesTheFilesWithFilesIntoAnotherVault() throws {
        let vault = try makeVault()
        let epubPath = vault.books.appendingPathComponent("emma.epub")
        let epub = try BookFileSamples.epub(at: epubPath, title: "Emma", author: "Jane Austen", text: "Emma Woodhouse, handsome, clever, and rich.")
        let added = try vault.add(epubPath)
        let epubID = try #require(added["id"] as? String)
        let book = try #require(added["book"] as? String)
        let pdfPath = vault.books.appendingPathComponent("emma.pdf")
        let pdf = BookFileSamples.pdf(title: "Emma", author: "Jane Austen")
        try pdf.write(to: pdfPath)
        let pdfID = try #require(try vault.add(pdfPath, ["--book", book])["id"] as? String)
        try vault.succeed(["book", "progress", book, "--at", "loc 7", "--file", epubID])

        func journal(_ archive: URL) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: archive.appendingPathComponent("journal.json"))) as? [String: Any])
        }
        func files(_ archive: URL) throws -> [[String: Any]] {
            let books = try #require(try journal(archive)["books"] as? [[String: Any]])
            return try #require(books.first?["files"] as? [[String: Any]])
        }

        // Listed, without copies.
        let listed = vault.out.appendingPathComponent("listed")
        let listing = try vault.succeed(["export", "--out", listed.path])
        #expect(listing.stderr.contains("Listed 2 book files (--with-files also writes their plain copies)."), "\(listing)")
        let listedFiles = try files(listed)
        #expect(listedFiles.map { $0["id"] as? String } == [epubID, pdfID])
        #expect(listedFiles.allSatisfy { $0["path"] is NSNull })
        let epubChecksum = try sha256(epubPath)
        #expect(listedFiles.first?["locator"] as? String == "loc 7" && listedFiles.first?["sha256"] as? String == epubChecksum)
        #expect(!FileManager.default.fileExists(atPath: listed.appendingPathComponent("files").path))

        // Carried.
        let carried = vault.out.appendingPathComponent("carried")
        let carrying = try vault.succeed(["export", "--out", carried.path, "--with-files"])
        #expect(carrying.stderr.contains("Listed 2 book files, with 2 plain copies under files/."), "\(carrying)")
        let copies = try files(carried).map { try #require($0["path"] as? String) }
        #expect(try Data(contentsOf: carried.appendingPathComponent(copies[0])) == epub)
        #expect(try Data(contentsOf: carried.appendingPathComponent(copies[1])) == pdf)
        #expect(copies.allSatisfy { $0.hasPrefix("files/emma-") }, "\(copies)")
        #expect(try permissions(carried.appendingPathComponent(copies[0])) == 0o600)
        let manifest = try String(contentsOf: carried.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(manifest.contains("\"\(copies[0])\"") && manifest.contains(epubChecksum))

        // Into another vault: listed only, a dry run, then for real, then again.
        let other = try makeVault()
        func imported(_ arguments: [String]) throws -> [String: Any] {
            try #require(try other.json(["import"] + arguments + ["--json"]) as? [String: Any])
        }
        let onlyListed = try imported([listed.path, "--dry-run"])
        #expect(onlyListed["filesNotCarried"] as? Int == 2 && onlyListed["filesAttached"] as? Int == 0, "\(onlyListed)")
        let dry = try imported([carried.path, "--dry-run"])
        #expect(dry["filesAttached"] as? Int == 2 && dry["filesStored"] as? Int == 2, "\(dry)")
        #expect(other.blobs().isEmpty, "a dry run stores no blob: \(other.blobs())")
        #expect(try other.fileList().isEmpty)
        let real = try imported([carried.path])
        #expect(real["filesAttached"] as? Int == 2 && real["filesStored"] as? Int == 2, "\(real)")
        let otherFiles = try other.fileList()
        #expect(otherFiles.map { $0["id"] as? String } == [epubID, pdfID])
        #expect(otherFiles.first?["locator"] as? String == "loc 7" && otherFiles.allSatisfy { $0["kept"] as? String == "stored" })
        #expect(other.blobs().count == 2)
        let back = other.out.appendingPathComponent("emma.epub")
        try other.succeed(["file", "export", epubID, "--out", back.path])
        #expect(try Data(contentsOf: back) == epub)
        let again = try imported([carried.path])
        #expect(again["filesAttached"] as? Int == 0 && again["filesStored"] as? Int == 0, "\(again)")
        #expect(other.blobs().count == 2, "importing twice stores nothing twice")
        for blob in other.blobs() {
            let bytes = try Data(contentsOf: other.blobDirectory.appendingPathComponent(blob))
            #expect(bytes.range(of: Data("Emma Woodhouse".utf8)) == nil, "a blob holds the book in the clear")
        }

        // A vault that attached the same EPUB to the book itself (its own id) keeps that one and
        // takes the PDF: one attachment per content and book.
        let fourth = try makeVault()
        try fourth.succeed(["import", listed.path])
        try fourth.succeed(["file", "add", epubPath.path, "--book", book])
        let merged = try #require(try fourth.json(["import", carried.path, "--json"]) as? [String: Any])
        #expect(merged["filesAttached"] as? Int == 1 && merged["filesStored"] as? Int == 1, "\(merged)")
        let fourthFiles = try fourth.fileList()
        #expect(fourthFiles.count == 2 && fourthFiles.contains { $0["id"] as? String == pdfID } && !fourthFiles.contains { $0["id"] as? String == epubID },
                "\(fourthFiles)")

        // A copy changed after the export (same size): refused, with --force too, nothing imported.
        var changed = epub
        changed[changed.count / 2] ^= 0x01
        try changed.write(to: carried.appendingPathComponent(copies[0]))
        let third = try makeVault()
        let beforeThird = try third.snapshot()
        let beforeThirdBytes = try third.databaseBytesIgnoringChangeCounter()
        let refused = try third.run(["import", carried.path])
        expectOneLineError(refused, status: 65, containing: "differs from manifest.json")
        let forced = try third.run(["import", carried.path, "--force"])
        expectOneLineError(forced, status: 65, containing: "is not the book file journal.json lists")
        #expect(!forced.stderr.contains("emma"), "the copy is named without its title: \(forced)")
        // An import's rollback journal bumps the change counter alone (as every refused import does).
        #expect(try third.databaseBytesIgnoringChangeCounter() == beforeThirdBytes)
        let afterThird = try third.snapshot()
        #expect(afterThird.blobs == beforeThird.blobs && afterThird.listings == beforeThird.listings)
        #expect(third.blobs().isEmpty)

        // A blob gone: the archive is written, listing the file without a copy, and the export says so.
        try FileManager.default.removeItem(at: vault.blobDirectory.appendingPathComponent(try #require(vault.blobs().first)))
        let partial = vault.out.appendingPathComponent("partial")
        let short = try vault.run(["export", "--out", partial.path, "--with-files"])
        #expect(short.status == 65, "\(short)")
        #expect(short.stderr.contains(": no plain copy (gone, damaged, or kept on another device"), "\(short)")
        #expect(short.stderr.contains("Error: the archive was written, but without the plain copies of 1 book file"), "\(short)")
        #expect(try files(partial).filter { $0["path"] is NSNull }.count == 1)
    }

    /// The golden archive with book files (Tests/Fixtures/archives/v2-book-files, made once
    /// by bmvault 0.17.0 with `--with-files`): every later bmvault attaches its files, under
    /// their ids, byte for byte, with the locator, once.
    @Test func theGoldenArchiveWithBookFilesImports() throws {
        let archive = GoldenArchive.root.appendingPathComponent("v2-book-files/archive")
        let listed = (try GoldenArchive.journal(archive)["books"] as? [[String: Any]] ?? []).flatMap { $0["files"] as? [[String: Any]] ?? [] }
        try #require(listed.count == 2, "the fixture lists an EPUB and a PDF")
        let vault = try makeVault()
        let imported = try #require(try vault.json(["import", archive.path, "--json"]) as? [String: Any])
        #expect(imported["filesAttached"] as? Int == 2 && imported["filesStored"] as? Int == 2, "\(imported)")
        let files = try vault.fileList()
        #expect(Set(files.compactMap { $0["id"] as? String }) == Set(listed.compactMap { $0["id"] as? String }))
        for entry in listed {
            let id = try #require(entry["id"] as? String)
            let file = try #require(files.first { $0["id"] as? String == id })
            #expect(file["sha256"] as? String == entry["sha256"] as? String && file["format"] as? String == entry["format"] as? String)
            #expect(file["locator"] as? String == entry["locator"] as? String)
            let out = vault.out.appendingPathComponent(id + "." + (entry["format"] as? String ?? ""))
            try vault.succeed(["file", "export", id, "--out", out.path])
            #expect(try Data(contentsOf: out) == Data(contentsOf: archive.appendingPathComponent(try #require(entry["path"] as? String))))
        }
        #expect(files.contains { $0["locator"] as? String == "epubcfi(/6/2!/4/2/1:0)" })
        let again = try #require(try vault.json(["import", archive.path, "--json"]) as? [String: Any])
        #expect(again["filesAttached"] as? Int == 0, "\(again)")
        #expect(vault.blobs().count == 2)
    }

    // MARK: - Helpers

    private func sha256(_ file: URL) throws -> String {
        let result = try Binary.run("/usr/bin/sha256sum", [file.path], environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "\(result)")
        return String(result.stdout.prefix(64))
    }

    private func permissions(_ file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int ?? -1) & 0o777
    }
}

/// What a refused command must leave as it was: the database's bytes (vault.db and its
/// -wal; -shm is SQLite's scratch memory), every blob, and what the vault lists.
fileprivate struct FileVaultState: Equatable {
    var database: [String: Data]
    var blobs: [String: Data]
    var listings: [String]
}

fileprivate extension TestVault {
    var books: URL { root.appendingPathComponent("books") }
    var out: URL { root.appendingPathComponent("out") }
    var stateHome: URL { root.appendingPathComponent("state") }
    var runtime: URL { root.appendingPathComponent("runtime") }
    var blobDirectory: URL { directory.appendingPathComponent("files") }

    /// The names in `files/` (blobs and incoming ones), sorted; none when there is no such folder.
    func blobs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: blobDirectory.path)) ?? []).sorted()
    }

    func blobBytes() throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try blobs().map { ($0, try Data(contentsOf: blobDirectory.appendingPathComponent($0))) })
    }

    /// `file add PATH --json ARGUMENTS`, which must succeed.
    func add(_ path: URL, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try json(["file", "add", path.path, "--json"] + arguments, sourceLocation: sourceLocation) as? [String: Any],
                     sourceLocation: sourceLocation)
    }

    func fileList(book: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try #require(try json(["file", "list", "--json"] + (book.map { ["--book", $0] } ?? []), sourceLocation: sourceLocation) as? [[String: Any]],
                     sourceLocation: sourceLocation)
    }

    func bookList(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try #require(try json(["book", "list", "--json"], sourceLocation: sourceLocation) as? [[String: Any]], sourceLocation: sourceLocation)
    }

    /// The vault as a refused command must leave it. The listings are taken first (opening
    /// the vault may checkpoint its -wal), then the bytes; `afterARefusal`: the bytes only,
    /// straight after the refused command, then the listings.
    func snapshot(afterARefusal: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> FileVaultState {
        func listings() throws -> [String] {
            try [["list", "--json"], ["book", "list", "--json"], ["file", "list", "--json"]].map {
                try succeed($0, sourceLocation: sourceLocation).stdout
            }
        }
        let before = afterARefusal ? nil : try listings()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("vault.db") && !$0.hasSuffix("-shm") }
        let database = Dictionary(uniqueKeysWithValues: try names.map { ($0, try Data(contentsOf: directory.appendingPathComponent($0))) })
        return FileVaultState(database: database, blobs: try blobBytes(), listings: try before ?? listings())
    }

    /// Every regular file under `folder`, by path relative to it, with its bytes.
    func everyFile(under folder: URL) throws -> [(String, [UInt8])] {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        return try paths.sorted().compactMap { relative in
            let path = folder.appendingPathComponent(relative).path
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (relative, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }
}
