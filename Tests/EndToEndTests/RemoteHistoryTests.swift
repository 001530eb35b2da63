import Foundation
import Testing

/// A remote added later, emptied, or added again receives the whole journal as a snapshot,
/// so a device joining through any remote gets everything; `init --join` says when a
/// remote's copy is not complete; the outbox keeps only what a remote still needs
/// (issue 17, items 1 and 5).
@Suite struct RemoteHistoryTests {
    /// P: a journal on remote usb, then remote nas added. N joins through nas.
    private func journalOnUSBThenNAS() throws -> (world: SyncWorld, nas: URL) {
        let world = try SyncWorld()
        let p = world.first
        let book = try p.succeed(["book", "add", "Middlemarch", "--author", "George Eliot"]).line
        try p.succeed(["session", "add", book, "--pages", "30", "--minutes", "30"])
        let kept = try p.succeed(["note", "add", book, "first thought"]).line
        try p.succeed(["note", "add", book, "second thought", "--locator", "p. 12"])
        let gone = try p.succeed(["quote", "add", book, "deleted before nas", "--locator", "p. 3"]).line
        try p.succeed(["edit", kept, "first thought, revised"])
        try p.succeed(["delete", gone])
        try p.succeed(["book", "progress", book, "40"])
        try p.succeed(["sync"])
        let nas = p.root.appendingPathComponent("nas")
        try FileManager.default.createDirectory(at: nas, withIntermediateDirectories: true)
        return (world, nas)
    }

    private func join(_ folder: URL) throws -> (TestVault, CommandResult) {
        let device = try TestVault()
        let joined = try device.succeed(["init", "--join", folder.path, "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try device.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        return (device, joined)
    }

    @Test func aDeviceJoiningThroughARemoteAddedLaterGetsEverything() throws {
        let (world, nas) = try journalOnUSBThenNAS()
        defer { withExtendedLifetime(world) {} }
        let p = world.first
        try p.succeed(["remote", "add", "nas", nas.path])
        let sync = try p.succeed(["sync"])
        #expect(sync.stdout.contains("Remote nas received the whole journal as it stands"), "\(sync)")

        let (n, joined) = try join(nas)
        defer { withExtendedLifetime(n) {} }
        #expect(!joined.stderr.contains("Warning"), "nas holds P's whole journal: \(joined)")
        try n.succeed(["sync"])
        try expectSameJournal([p, n])
        #expect(try n.journal().contains { $0.contains("first thought, revised") })
        // A second sync sends nothing again.
        #expect(try p.succeed(["sync"]).stdout.hasPrefix("Synced: 0 pushed"))
    }

    @Test func aRemoteEmptiedOrAddedAgainGetsTheWholeJournalAgain() throws {
        let (world, nas) = try journalOnUSBThenNAS()
        defer { withExtendedLifetime(world) {} }
        let p = world.first
        try p.succeed(["remote", "add", "nas", nas.path])
        try p.succeed(["sync"])
        // The NAS folder is wiped (a new disk under the same path).
        for entry in try FileManager.default.contentsOfDirectory(atPath: nas.path) {
            try FileManager.default.removeItem(at: nas.appendingPathComponent(entry))
        }
        let again = try p.succeed(["sync"])
        #expect(again.stdout.contains("Remote nas received the whole journal"), "\(again)")
        // Removed and added again, under another name: the same.
        try p.succeed(["remote", "remove", "nas"])
        try p.succeed(["remote", "add", "attic", nas.path])
        #expect(try p.succeed(["sync"]).stdout.contains("Remote attic received the whole journal"))

        let (n, _) = try join(nas)
        defer { withExtendedLifetime(n) {} }
        try n.succeed(["sync"])
        try expectSameJournal([p, n])
    }

    @Test func joiningThroughARemoteWhoseCopyIsIncompleteSaysSo() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let p = world.first
        let book = try p.succeed(["book", "add", "Half carried"]).line
        try p.succeed(["note", "add", book, "this one waits"])
        // One upload fails: P's folder on the remote lacks an operation it has.
        let short = try p.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "fail-write:1"])
        #expect(short.status == 75, "\(short)")

        // (Joiners are kept: a test vault going away locks the vault's key in the keyring.)
        let (first, joined) = try join(world.folder)
        defer { withExtendedLifetime(first) {} }
        #expect(joined.stderr.contains("Warning: the device syncing through this folder has not put all of the journal there yet"),
                "\(joined)")

        // Once P's sync finishes, the remote is complete and a joiner is told nothing.
        waitOutFirstBackoff()
        try p.succeed(["sync"])
        let (later, second) = try join(world.folder)
        defer { withExtendedLifetime(later) {} }
        #expect(!second.stderr.contains("Warning"), "\(second)")
    }

    @Test func remoteListWorksWhileLockedAndShowsTheLastSync() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let p = world.first
        let other = p.root.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try p.succeed(["remote", "add", "other", other.path])
        try p.succeed(["lock"])
        let list = try p.succeed(["remote", "list"])
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(list)")
        #expect(lines.first { $0.hasPrefix("other  folder  ") }?.hasSuffix("  never synced") == true, "\(list)")
        #expect(lines.first { $0.hasPrefix("shared  folder  ") }?.contains("  synced 2") == true, "\(list)")
        let json = try #require(try p.json(["remote", "list", "--json"]) as? [[String: Any]])
        #expect(json.first { $0["name"] as? String == "other" }.map { $0["lastSyncedAt"] == nil } == true, "never synced: no time")
        #expect(json.first { $0["name"] as? String == "shared" }?["lastSyncedAt"] is String)
        let status = try p.succeed(["status"])
        #expect(status.stdout.contains("remotes: other (never synced), shared (synced "), "\(status)")
    }

    @Test func theOutboxKeepsOnlyWhatARemoteStillNeeds() throws {
        // No remote: what earlier commands queued goes at the next command.
        let alone = try TestVault()
        try alone.createUnlocked()
        let book = try alone.succeed(["book", "add", "Kept alone"]).line
        for index in 1...5 { try alone.succeed(["note", "add", book, "note \(index)"]) }
        #expect(try alone.syncTestSQL("SELECT count(*) FROM outbox").line == "1", "only the last command's operation waits")

        // A remote fully synced: no payload is kept, only the names of the files sent.
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let p = world.first
        let other = try p.succeed(["book", "add", "Synced away"]).line
        for index in 1...5 { try p.succeed(["note", "add", other, "synced note \(index)"]) }
        try p.succeed(["sync"])
        #expect(try p.syncTestSQL("SELECT count(*) FROM outbox").line == "0")
        #expect(try p.syncTestSQL("SELECT count(*) FROM sent_operation").line == "6")
        // Deleting one note later still removes its file once every device acknowledged it.
        let b = try world.join()
        let note = try #require(try p.json(["list", "--json"]) as? [[String: Any]]).compactMap { $0["id"] as? String }.first
        let noteID = try #require(note)
        try p.succeed(["delete", noteID])
        try p.succeed(["sync"])
        try b.succeed(["sync"])
        try p.succeed(["sync"])
        #expect(try p.syncTestSQL("SELECT count(*) FROM sent_operation WHERE entity_id = '\(noteID)'").line == "0",
                "the note's files left the remote, and their record with them")
    }
}
