import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Book files across devices (issue 19's sync), through the built binary and a folder
/// remote: a file's record (its book, format, checksum, metadata, the reader's place in it)
/// reaches the other devices, which list it as kept on another device; the place moves on
/// either device; the same file added on two devices is shown once; a removal reaches every
/// device. Through a remote that carries files, the bytes travel too, each checked before
/// it is kept, and a receive killed midway leaves nothing in the way (Docs/FILES.md,
/// Docs/SYNC.md).
@Suite("Book files across devices", .serialized)
struct FileSyncEndToEndTests {
    private func files(_ device: TestVault, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try #require(try device.json(["file", "list", "--json"], sourceLocation: sourceLocation) as? [[String: Any]],
                     sourceLocation: sourceLocation)
    }

    /// Blobs in a device's file store.
    private func blobs(_ device: TestVault) -> [String] {
        let folder = device.directory.appendingPathComponent("files")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    private func folder(_ device: TestVault, _ name: String) throws -> URL {
        let folder = device.root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("A book file's record syncs, its bytes stay on their device, its place moves on either, and a removal reaches all")
    func aBookFileSyncsAsARecord() throws {
        let world = try SyncWorld()
        let a = world.first
        let title = "The Heron \(UUID().uuidString.prefix(8))"
        let chapter = "BMV-CANARY-\(UUID().uuidString) the heron counts silver umbrellas"
        let path = try folder(a, "books").appendingPathComponent("heron.epub")
        let epub = try BookFileSamples.epub(at: path, title: title, author: "Mira Ostrova", text: chapter)
        try a.succeed(["file", "add", path.path])
        let added = try #require(try files(a).first)
        let id = try #require(added["id"] as? String)
        let book = try #require(added["book"] as? String)
        try a.succeed(["book", "progress", book, "--at", "p. 12"])
        try a.succeed(["sync"])

        // B joins: the record is there, with the place; the file is not.
        let b = try world.join()
        let listed = try files(b)
        #expect(listed.count == 1)
        #expect(listed.first?["id"] as? String == id && listed.first?["bookTitle"] as? String == title)
        #expect(listed.first?["sha256"] as? String == added["sha256"] as? String && listed.first?["size"] as? Int == epub.count)
        #expect(listed.first?["presence"] as? String == "elsewhere" && listed.first?["onThisDevice"] as? Bool == false, "\(listed)")
        #expect(listed.first?["locator"] as? String == "p. 12")
        #expect(try b.succeed(["file", "list"]).stdout.contains("stored  on another device"))
        #expect(blobs(b).isEmpty, "no blob travelled")
        let out = try folder(b, "out").appendingPathComponent("heron.epub")
        let elsewhere = try b.run(["file", "export", id, "--out", out.path])
        #expect(elsewhere.status == 66 && elsewhere.stderr.contains("kept on another device"), "\(elsewhere)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try b.succeed(["file", "verify"]).stdout.contains("on another device"))

        // The place, moved on B, reaches A; A's own copy still reads back byte for byte.
        try b.succeed(["book", "progress", book, "--at", "p. 40"])
        try b.succeed(["sync"])
        try a.succeed(["sync"])
        #expect(try files(a).first?["locator"] as? String == "p. 40")
        let back = try folder(a, "out").appendingPathComponent("heron.epub")
        try a.succeed(["file", "export", id, "--out", back.path])
        #expect(try Data(contentsOf: back) == epub)

        // The same file added on B too: kept there, shown once on both, readable on both.
        let copy = try folder(b, "books").appendingPathComponent("heron-copy.epub")
        try epub.write(to: copy)
        try b.succeed(["file", "add", copy.path])
        #expect(blobs(b).count == 1)
        for device in [b, a, b] { try device.succeed(["sync"]) }
        for device in [a, b] {
            let shown = try files(device)
            #expect(shown.count == 1 && shown.first?["id"] as? String == id, "\(shown)")
            #expect(shown.first?["presence"] as? String == "present" && shown.first?["locator"] as? String == "p. 40", "\(shown)")
        }
        try b.succeed(["file", "export", id, "--out", out.path])
        #expect(try Data(contentsOf: out) == epub, "B reads its own copy")

        // Nothing of the book in the clear on the remote.
        for file in FileManager.default.enumerator(at: world.folder, includingPropertiesForKeys: nil)?.compactMap({ $0 as? URL }) ?? [] {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            #expect(bytes.range(of: Data(chapter.utf8)) == nil && bytes.range(of: Data(title.utf8)) == nil, "\(file.lastPathComponent)")
        }

        // Removed on A: gone on B, with B's copy, at its next sync.
        try a.succeed(["file", "remove", id])
        for device in [a, b] { try device.succeed(["sync"]) }
        for device in [a, b] {
            #expect(try files(device).isEmpty)
            #expect(blobs(device).isEmpty, "no book needs the file any more")
            #expect((try device.json(["outbox", "--json"]) as? [Any])?.isEmpty == true, "the outbox drained")
        }
        let c = try world.join()
        #expect(try files(c).isEmpty, "a device joining now learns of the removal too")
        try c.succeed(["check"])
    }

    /// The blobs on a folder remote: `<folder>/bmvault-<vault id>/files/<content id>`.
    private func remoteBlobs(_ world: SyncWorld) throws -> [URL] {
        let root = try #require(try FileManager.default.contentsOfDirectory(atPath: world.folder.path).first { $0.hasPrefix("bmvault-") })
        let files = world.folder.appendingPathComponent(root).appendingPathComponent("files")
        return ((try? FileManager.default.contentsOfDirectory(atPath: files.path)) ?? []).sorted().map { files.appendingPathComponent($0) }
    }

    @Test("A remote that carries book files takes each device's files to the others, checked; a damaged one is refused")
    func aRemoteThatCarriesFiles() throws {
        let world = try SyncWorld()
        let a = world.first
        let chapter = "BMV-CANARY-\(UUID().uuidString) the heron counts silver umbrellas"
        let path = try folder(a, "books").appendingPathComponent("heron.epub")
        let epub = try BookFileSamples.epub(at: path, title: "The Heron", author: "Mira Ostrova", text: chapter)
        try a.succeed(["file", "add", path.path])
        let id = try #require(try files(a).first?["id"] as? String)
        try a.succeed(["sync"])
        #expect(try remoteBlobs(world).isEmpty, "a remote does not carry files unless asked")

        let usage = try a.run(["remote", "files", "shared", "maybe"])
        #expect(usage.status == 64 && usage.stderr.contains("on or off"), "\(usage)")
        #expect(try a.succeed(["remote", "files", "shared", "on"]).stderr.contains("carries book files"))
        #expect(try a.succeed(["remote", "list"]).stdout.contains("carries book files"))
        // An upload that fails is counted, leaves nothing on the remote, and the sync does not
        // end as if it had done everything; the next one sends it.
        let failed = try a.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "fail-file-writes"])
        #expect(failed.status == 75 && failed.stdout.contains("1 failure"), "\(failed)")
        #expect(try remoteBlobs(world).isEmpty)
        #expect(try a.succeed(["sync"]).stdout.contains("1 book file sent"))
        let carried = try remoteBlobs(world)
        #expect(carried.map(\.lastPathComponent) == blobs(a), "the blob goes as the file store keeps it, under its id")
        #expect(try Data(contentsOf: carried[0]).range(of: Data(chapter.utf8)) == nil, "sealed, never in the clear")
        #expect(try a.succeed(["sync"]).stdout.contains("sent") == false, "sent once")

        // B joins; its remote carries no files until B says so.
        let b = try world.join()
        #expect(try files(b).first?["presence"] as? String == "elsewhere")
        try b.succeed(["remote", "files", "origin", "on"])
        #expect(try b.succeed(["sync"]).stdout.contains("1 book file received"))
        #expect(try files(b).first?["presence"] as? String == "present" && blobs(b).count == 1)
        let out = try folder(b, "out").appendingPathComponent("heron.epub")
        try b.succeed(["file", "export", id, "--out", out.path])
        #expect(try Data(contentsOf: out) == epub)

        // A file B adds reaches A the same way.
        let second = try folder(b, "books").appendingPathComponent("lighthouse.epub")
        let lighthouse = try BookFileSamples.epub(at: second, title: "The Lighthouse", text: "a lamp turns all night")
        try b.succeed(["file", "add", second.path])
        #expect(try b.succeed(["sync"]).stdout.contains("1 book file sent"))
        #expect(try a.succeed(["sync"]).stdout.contains("1 book file received"))
        let lighthouseID = try #require(try files(a).first { $0["bookTitle"] as? String == "The Lighthouse" }?["id"] as? String)
        let back = try folder(a, "out").appendingPathComponent("lighthouse.epub")
        try a.succeed(["file", "export", lighthouseID, "--out", back.path])
        #expect(try Data(contentsOf: back) == lighthouse)

        // A blob damaged on the remote: a device joining now refuses it, keeps nothing of it,
        // says so and does not exit 0; the other file arrives.
        let damaged = try #require(try remoteBlobs(world).first)
        var bytes = try Data(contentsOf: damaged)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: damaged)
        let c = try world.join()
        try c.succeed(["remote", "files", "origin", "on"])
        let refused = try c.run(["sync"])
        #expect(refused.status == 1 && refused.stdout.contains("1 book file received, 1 book file refused"), "\(refused)")
        #expect(refused.stderr.hasPrefix("Error: the sync is not complete: 1 book file on the remotes did not check out"), "\(refused)")
        #expect(blobs(c).count == 1, "nothing kept of the damaged one, no incoming file left: \(blobs(c))")
        #expect(try files(c).map { $0["presence"] as? String ?? "" }.sorted() == ["elsewhere", "present"])
        try c.succeed(["check"])
        // The damaged blob left the remote with the refusal: the device that added the file
        // sends it again at its next sync, and C then has it whole.
        #expect(!FileManager.default.fileExists(atPath: damaged.path))
        let resent = try [a, b].map { try $0.succeed(["sync"]).stdout }
        #expect(resent.filter { $0.contains("1 book file sent") }.count == 1, "\(resent)")
        #expect(try c.succeed(["sync"]).stdout.contains("1 book file received"))
        #expect(try files(c).allSatisfy { $0["presence"] as? String == "present" })
    }

    /// A removed book file's blob stays on the remotes that carry files for the retention
    /// period (a device that has not synced may re-attach it), then the next sync takes it
    /// off; a removal that fails is a failure, tried again. A file still attached somewhere
    /// keeps its blob there, however long ago another attachment of it was removed.
    @Test("A removed book file's blob leaves the remotes once the retention has passed")
    func aRemovedFilesBlobLeavesTheRemotes() throws {
        let world = try SyncWorld()
        let a = world.first
        let books = try folder(a, "books")
        let heron = books.appendingPathComponent("heron.epub"), lamp = books.appendingPathComponent("lamp.epub")
        try BookFileSamples.epub(at: heron, title: "The Heron", text: "silver umbrellas")
        try BookFileSamples.epub(at: lamp, title: "The Lamp", text: "a lamp turns all night")
        try a.succeed(["file", "add", heron.path])
        try a.succeed(["file", "add", lamp.path])
        try a.succeed(["remote", "files", "shared", "on"])
        #expect(try a.succeed(["sync"]).stdout.contains("2 book files sent"))
        let b = try world.join()
        try b.succeed(["remote", "files", "origin", "on"])
        #expect(try b.succeed(["sync"]).stdout.contains("2 book files received"))
        let listed = try files(a)
        let heronFile = try #require(listed.first { $0["bookTitle"] as? String == "The Heron" }?["id"] as? String)
        let lampFile = try #require(listed.first { $0["bookTitle"] as? String == "The Lamp" }?["id"] as? String)
        let content = { (attachment: String) throws -> String in
            try a.sqlite("SELECT file_id FROM book_file WHERE id = '\(attachment)';").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let heronBlob = try content(heronFile), lampBlob = try content(lampFile)
        #expect(try Set(remoteBlobs(world).map(\.lastPathComponent)) == [heronBlob, lampBlob])

        // Removed today: the blob stays on the remote, and B's copy goes with the removal.
        try a.succeed(["file", "remove", heronFile])
        #expect(try !a.succeed(["sync"]).stdout.contains("taken off"))
        try b.succeed(["sync"])
        #expect(try remoteBlobs(world).map(\.lastPathComponent).contains(heronBlob))
        #expect(blobs(b).count == 1, "B keeps only the lamp's bytes: \(blobs(b))")

        // Past the retention (90 days): the removal of the blob fails once, then succeeds; the
        // lamp, attached again to a second book after its first attachment went long ago,
        // keeps its blob.
        let collected = try a.succeed(["book", "add", "Lamps, Collected"]).line
        try a.succeed(["file", "add", lamp.path, "--book", collected])
        try a.succeed(["file", "remove", lampFile])
        _ = try a.sqlite("UPDATE book_file SET removed_at = removed_at - 200 * 86400000 WHERE removed_at IS NOT NULL;")
        let failed = try a.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "fail-file-removes"])
        #expect(failed.status == 75 && failed.stdout.contains("1 failure"), "\(failed)")
        #expect(try remoteBlobs(world).map(\.lastPathComponent).contains(heronBlob))
        let removed = try #require(try a.json(["sync", "--json"]) as? [String: Any])
        #expect(removed["filesRemoved"] as? Int == 1 && removed["failures"] as? Int == 0, "\(removed)")
        #expect(try remoteBlobs(world).map(\.lastPathComponent) == [lampBlob])
        let again = try a.succeed(["sync"])
        #expect(!again.stdout.contains("taken off"), "taken off once: \(again.stdout)")
        // B, with the lamp's new attachment, still has its file; a device joining now gets it.
        try b.succeed(["sync"])
        let c = try world.join()
        try c.succeed(["remote", "files", "origin", "on"])
        #expect(try c.succeed(["sync"]).stdout.contains("1 book file received"))
        #expect(try files(c).map { $0["presence"] as? String } == ["present"])

        // A deleted book's file: once the book is purged (past the retention), its blob goes too.
        let shelf = books.appendingPathComponent("shelf.epub")
        try BookFileSamples.epub(at: shelf, title: "The Shelf", text: "dust on the shelf")
        try a.succeed(["file", "add", shelf.path])
        let shelfFile = try #require(try files(a).first { $0["bookTitle"] as? String == "The Shelf" }?["id"] as? String)
        let shelfBlob = try content(shelfFile)
        let shelfBook = try a.sqlite("SELECT book_id FROM book_file WHERE id = '\(shelfFile)';").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try a.succeed(["sync"]).stdout.contains("1 book file sent"))
        try a.succeed(["delete", shelfBook])
        try a.succeed(["sync"])
        #expect(try remoteBlobs(world).map(\.lastPathComponent).contains(shelfBlob), "in the trash, the book keeps its file")
        _ = try a.sqlite("UPDATE book SET deleted_at = deleted_at - 200 * 86400000 WHERE id = '\(shelfBook)';")
        try a.succeed(["purge"])
        let purged = try #require(try a.json(["sync", "--json"]) as? [String: Any])
        #expect(purged["filesRemoved"] as? Int == 1, "\(purged)")
        #expect(try !remoteBlobs(world).map(\.lastPathComponent).contains(shelfBlob))
        try a.succeed(["check"])
    }

    /// A sync killed while it receives a blob (written, not yet checked) leaves an incoming
    /// file no listing shows, which never stands in the way: the next sync receives the blob
    /// again, keeps it whole, and sweeps what the killed one left.
    @Test("A sync killed while it receives a book file leaves nothing in the way, and the next one finishes")
    func aReceiveKilledMidway() throws {
        let world = try SyncWorld()
        let a = world.first
        let path = try folder(a, "books").appendingPathComponent("heron.epub")
        let epub = try BookFileSamples.epub(at: path, title: "The Heron", text: "the heron counts silver umbrellas")
        try a.succeed(["file", "add", path.path])
        try a.succeed(["remote", "files", "shared", "on"])
        try a.succeed(["sync"])
        let b = try world.join()
        try b.succeed(["remote", "files", "origin", "on"])

        let killed = try b.run(["sync"], environment: ["BMVAULT_TEST_CRASH_AT": "sync:file-received"])
        #expect(killed.status == 128 + SIGKILL, "\(killed)")
        #expect(blobs(b).count == 1 && blobs(b).allSatisfy { $0.hasPrefix(".incoming-") }, "\(blobs(b))")
        #expect(try files(b).first?["presence"] as? String == "elsewhere", "nothing unchecked is listed as here")

        #expect(try b.succeed(["sync"]).stdout.contains("1 book file received"))
        #expect(blobs(b).count == 1 && !blobs(b)[0].hasPrefix(".incoming-"), "the killed receive's file was swept: \(blobs(b))")
        let id = try #require(try files(b).first?["id"] as? String)
        let out = try folder(b, "out").appendingPathComponent("heron.epub")
        try b.succeed(["file", "export", id, "--out", out.path])
        #expect(try Data(contentsOf: out) == epub)
    }
}
