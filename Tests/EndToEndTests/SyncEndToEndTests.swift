import Foundation
import Testing

/// Two or three vault directories ("devices") sharing one remote folder, driven through the
/// built binary: the hostile-network suite with real processes, real kill -9, and the
/// fault-injecting remote of debug builds (BMVAULT_TEST_REMOTE_FAULTS).
///
/// Devices of one vault share its key entry in the test keyring (the entry is keyed by vault
/// id), so every device of a world is kept alive until the test ends: a TestVault's deinit
/// runs `lock`.
final class SyncWorld {
    let folder: URL
    private(set) var devices: [TestVault] = []
    let first: TestVault
    let recoveryKey: String

    /// Device A: a new vault, unlocked, with the folder as remote `shared`, synced once.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-sync-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        first = try TestVault()
        recoveryKey = try first.create()
        try first.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try first.succeed(["remote", "add", "shared", folder.path])
        try first.succeed(["sync"])
        devices = [first]
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Another device: `init --join` with the passphrase, unlocked, synced once. With
    /// `environment` (a ``PrivateBus``'s), it keeps its key in a keyring of its own, as a
    /// device of its own does: the devices of one vault share its id, and so its keyring entry.
    func join(environment: [String: String] = [:]) throws -> TestVault {
        let device = try TestVault(environment: environment)
        try device.succeed(["init", "--join", folder.path, "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try device.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try device.succeed(["sync"])
        devices.append(device)
        return device
    }

    /// Every operation file on the remote, by device folder.
    func operationFiles() throws -> [String: [String]] {
        let roots = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("bmvault-") }
        guard let root = roots.first else { return [:] }
        let devicesDirectory = folder.appendingPathComponent(root).appendingPathComponent("devices")
        var files: [String: [String]] = [:]
        for device in (try? FileManager.default.contentsOfDirectory(atPath: devicesDirectory.path)) ?? [] {
            files[device] = try FileManager.default.contentsOfDirectory(atPath: devicesDirectory.appendingPathComponent(device).path).sorted()
        }
        return files
    }

    var operationFileCount: Int { ((try? operationFiles()) ?? [:]).values.map { $0.filter { $0.hasSuffix(".op") }.count }.reduce(0, +) }

    /// Every file anywhere under the remote folder, for leftovers (temporary files).
    func allRemoteFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { !$0.hasSuffix("/") }
    }
}

extension TestVault {
    /// What a reader can see of the journal, normalized: notes and quotes (with conflict
    /// marks), books with progress, and each book's sessions.
    func journal(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        var lines: [String] = []
        let notes = try #require(try json(["list", "--json"], sourceLocation: sourceLocation) as? [[String: Any]], sourceLocation: sourceLocation)
        for note in notes {
            lines.append(["note", note["id"], note["kind"], note["body"], note["locator"], note["version"], note["createdAt"], note["updatedAt"],
                          note["conflictOf"], note["conflictReason"]].map { "\($0 ?? "nil")" }.joined(separator: " | "))
        }
        let books = try #require(try json(["book", "list", "--json"], sourceLocation: sourceLocation) as? [[String: Any]], sourceLocation: sourceLocation)
        for book in books {
            let id = book["id"] as? String ?? "?"
            lines.append(["book", id, book["title"], book["progress"], book["version"]].map { "\($0 ?? "nil")" }.joined(separator: " | "))
            let shown = try #require(try json(["show", id, "--json"], sourceLocation: sourceLocation) as? [String: Any], sourceLocation: sourceLocation)
            for session in (shown["sessions"] as? [[String: Any]]) ?? [] {
                lines.append("session | \(session["id"] ?? "?") | \(session["pagesRead"] ?? "?")")
            }
        }
        return lines.sorted()
    }

    func notes() throws -> [[String: Any]] {
        try #require(try json(["list", "--json"]) as? [[String: Any]])
    }

    func conflicts() throws -> [[String: Any]] {
        try #require(try json(["conflicts", "--json"]) as? [[String: Any]])
    }

    func outbox() throws -> [[String: Any]] {
        try #require(try json(["outbox", "--json"]) as? [[String: Any]])
    }

    func syncJSON(environment extra: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let result = try run(["sync", "--json"], environment: extra)
        #expect(result.status == 0, "sync: \(result)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], sourceLocation: sourceLocation)
    }

    func syncTestSQL(_ sql: String) throws -> CommandResult {
        try Binary.run("/usr/bin/sqlite3", [databasePath, sql], environment: environment)
    }
}

/// Every device of `world` shows the same journal.
func expectSameJournal(_ devices: [TestVault], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let reference = try devices[0].journal(sourceLocation: sourceLocation)
    for (index, device) in devices.enumerated().dropFirst() {
        let other = try device.journal(sourceLocation: sourceLocation)
        #expect(other == reference, "device \(index) differs:\n- \(Set(reference).subtracting(other).sorted())\n+ \(Set(other).subtracting(reference).sorted())",
                sourceLocation: sourceLocation)
    }
}

/// The engine's first backoff is random(0, 2 s): wait it out.
func waitOutFirstBackoff() { usleep(2_200_000) }

@Suite struct SyncEndToEndTests {
    // MARK: - The offline-write sequence

    /// offline → create note → (process gone) → relaunch → online → a sync whose reply is
    /// lost after the write landed → retried twice → exactly one operation file, one note on
    /// the other device, an empty outbox.
    @Test func theOfflineWriteSequence() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "On the train"]).line
        try a.succeed(["sync"])
        try b.succeed(["sync"])
        let filesBefore = world.operationFileCount

        let note = try a.succeed(["note", "add", book, "typed with no network"]).line   // offline: no sync
        let lost = try a.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "lose-reply:1"])
        // Not everything was done, so not exit 0: 75, the upload waits for its retry.
        #expect(lost.status == 75, "\(lost)")
        #expect(lost.stderr == "Error: the sync is not complete: 1 upload failed for now and will be retried; run `bmvault sync` again later\n")
        #expect(lost.stdout.contains("0 pushed") && lost.stdout.contains(", 1 failure") && !lost.stdout.contains("failures"), "the failure is reported: \(lost.stdout)")
        #expect(world.operationFileCount == filesBefore + 1, "the write landed")
        let waiting = try a.outbox()
        #expect(waiting.count == 1)
        #expect(waiting.first?["attempts"] as? Int == 1)
        #expect(waiting.first?["lastErrorClass"] as? String == "timedOut")
        #expect(waiting.first?["nextAttemptAt"] as? String != nil)

        waitOutFirstBackoff()
        let retried = try a.syncJSON()
        #expect(retried["pushed"] as? Int == 1 && retried["failures"] as? Int == 0)
        let again = try a.syncJSON()
        #expect(again["pushed"] as? Int == 0 && again["failures"] as? Int == 0)
        #expect(world.operationFileCount == filesBefore + 1, "exactly one operation file for the note")
        #expect(try a.outbox().isEmpty, "the outbox is empty")
        #expect(!world.allRemoteFiles().contains { $0.contains(".tmp-") }, "no temporary file left on the remote")

        try b.succeed(["sync"])
        let notesOnB = try b.notes()
        #expect(notesOnB.compactMap { $0["id"] as? String } == [note], "one note on the other device")
        #expect(notesOnB.first?["body"] as? String == "typed with no network")
        try expectSameJournal([a, b])
    }

    // MARK: - kill -9 during sync

    @Test func killedAfterWritingAnOperationFile() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Crash course"]).line
        for index in 1...3 { try a.succeed(["note", "add", book, "note \(index)"]) }

        let crashed = try a.run(["sync"], environment: ["BMVAULT_TEST_CRASH_AT": "sync:wrote-operation:1"])
        #expect(crashed.status == 137, "killed by SIGKILL: \(crashed)")
        #expect(world.operationFileCount >= 1)
        #expect(try a.outbox().count == 4, "nothing was marked delivered")

        try a.succeed(["sync"])
        #expect(world.operationFileCount == 4, "each operation exactly once on the remote")
        #expect(try a.outbox().isEmpty)
        try b.succeed(["sync"])
        #expect(try b.notes().count == 3, "no duplicates on the other device")
        try expectSameJournal([a, b])
    }

    @Test func killedAfterApplyingAPulledBatch() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Crash course"]).line
        try a.succeed(["note", "add", book, "from A"])
        try a.succeed(["sync"])
        try b.succeed(["sync"])
        try b.succeed(["note", "add", book, "from B, not yet sent"])
        try a.succeed(["note", "add", book, "from A, second"])
        try a.succeed(["sync"])

        let crashed = try b.run(["sync"], environment: ["BMVAULT_TEST_CRASH_AT": "sync:applied-batch"])
        #expect(crashed.status == 137, "\(crashed)")
        // The batch is in (whole), B's own note is still waiting.
        #expect(Set(try b.notes().compactMap { $0["body"] as? String }) == ["from A", "from B, not yet sent", "from A, second"])
        #expect(try b.outbox().count == 1)

        let rerun = try b.syncJSON()
        #expect(rerun["pulled"] as? Int == 0, "nothing applied twice")
        #expect(rerun["pushed"] as? Int == 1)
        try a.succeed(["sync"])
        #expect(try a.notes().count == 3)
        try expectSameJournal([a, b])
    }

    // MARK: - Conflicts

    /// A edits, then B edits the same note: B's text is in the note, A's in the copy. Each
    /// word keeps the same text whichever device resolves, and `mine` keeps the text typed
    /// on the device that resolves (issue 17, item 4: `local` on A used to keep B's text).
    @Test(arguments: [("B", "both", ["edited on A", "edited on B"]), ("B", "note", ["edited on B"]), ("A", "note", ["edited on B"]),
                      ("B", "copy", ["edited on A"]), ("A", "copy", ["edited on A"]),
                      ("A", "mine", ["edited on A"]), ("A", "theirs", ["edited on B"]),
                      ("B", "mine", ["edited on B"]), ("B", "theirs", ["edited on A"])])
    func twoDevicesEditTheSameNote(resolver: String, keep: String, kept: [String]) throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Shared"]).line
        let note = try a.succeed(["note", "add", book, "the original"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])

        try a.succeed(["edit", note, "edited on A"])
        try b.succeed(["edit", note, "edited on B"])       // later
        try a.succeed(["sync"]); try b.succeed(["sync"]); try a.succeed(["sync"])
        try expectSameJournal([a, b])

        let onA = try a.conflicts()
        let onB = try b.conflicts()
        #expect(onA.count == 1)
        #expect(onA.compactMap { $0["id"] as? String } == onB.compactMap { $0["id"] as? String }, "the same conflict copy on both")
        let copy = try #require(onA.first)
        #expect(copy["conflictOf"] as? String == note)
        #expect(copy["conflictReason"] as? String == "both-edited")
        #expect(copy["body"] as? String == "edited on A")
        #expect((copy["note"] as? [String: Any])?["body"] as? String == "edited on B")
        #expect((copy["copy"] as? [String: Any])?["writtenHere"] as? Bool == true, "A wrote the copy's text")
        #expect(copy["mine"] as? String == "copy")
        #expect(onB.first?["mine"] as? String == "note")
        #expect(try b.notes().first { $0["id"] as? String == note }?["body"] as? String == "edited on B")
        // Both texts, with who wrote each, without `show`.
        let human = try b.succeed(["conflicts"]).stdout
        #expect(human.contains("  in the note, by device "), "\(human)")
        #expect(human.contains(" (this device), "), "\(human)")
        #expect(human.contains("    edited on B\n") && human.contains("    edited on A\n"), "\(human)")
        #expect(human.contains("--keep mine keeps the note's text, theirs the copy's."), "\(human)")

        let device = resolver == "A" ? a : b
        try device.succeed(["conflicts", "resolve", copy["id"] as? String ?? "", "--keep", keep])
        try device.succeed(["sync"]); try (resolver == "A" ? b : a).succeed(["sync"])
        try expectSameJournal([a, b])
        #expect(try a.conflicts().isEmpty && b.conflicts().isEmpty)
        #expect(Set(try a.notes().compactMap { $0["body"] as? String }) == Set(kept))
        #expect(try a.succeed(["conflicts"]).stdout.contains("No conflicts."))
    }

    @Test func theWordsOfBmvault06AreRefusedSayingWhy() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        for word in ["local", "remote"] {
            let result = try world.first.run(["conflicts", "resolve", "ffffffff-ffff-7fff-bfff-ffffffffffff", "--keep", word])
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr == "Error: --keep \(word) is gone (it meant different texts on different devices): use note, copy, both, mine or theirs\n",
                    "\(result)")
        }
    }

    @Test(arguments: [true, false])
    func deleteOnOneEditOnTheOther(deleteOnA: Bool) throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Shared"]).line
        let note = try a.succeed(["note", "add", book, "the original"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])
        let (deleter, editor) = deleteOnA ? (a, b) : (b, a)
        try deleter.succeed(["delete", note])
        try editor.succeed(["edit", note, "kept by an edit"])
        try deleter.succeed(["sync"]); try editor.succeed(["sync"]); try deleter.succeed(["sync"])
        try expectSameJournal([a, b])
        for device in [a, b] {
            let survivor = try #require(try device.notes().first { $0["id"] as? String == note })
            #expect(survivor["body"] as? String == "kept by an edit")
            #expect(survivor["conflictReason"] as? String == "edited-after-delete")
            #expect(try device.conflicts().compactMap { $0["id"] as? String } == [note])
        }
        // A note brought back has no copy; mine and theirs are worked out per device.
        let noCopy = try editor.run(["conflicts", "resolve", note, "--keep", "copy"])
        #expect(noCopy.status == 64 && noCopy.stderr.hasPrefix("Error: a note brought back by an edit has no copy"), "\(noCopy)")
        let onDeleter = try #require(try deleter.conflicts().first)
        #expect(onDeleter["mine"] as? String == "deletion", "\(onDeleter)")
        #expect((onDeleter["deletion"] as? [String: Any])?["writtenHere"] as? Bool == true)
        #expect(try editor.conflicts().first?["mine"] as? String == "note")
        try deleter.succeed(["conflicts", "resolve", note, "--keep", "theirs"])    // the editor's: keep the note
        try deleter.succeed(["sync"]); try editor.succeed(["sync"])
        try expectSameJournal([a, b])
        #expect(try editor.notes().first { $0["id"] as? String == note }?["body"] as? String == "kept by an edit")
        #expect(try editor.conflicts().isEmpty)
    }

    // MARK: - Progress and sessions

    @Test func progressOnBothAndRewind() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Long read"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])
        func progress(_ device: TestVault) throws -> Double? {
            (try device.json(["book", "list", "--json"]) as? [[String: Any]])?.first { $0["id"] as? String == book }?["progress"] as? Double
        }

        try a.succeed(["book", "progress", book, "60"])
        try b.succeed(["book", "progress", book, "30"])
        try a.succeed(["sync"]); try b.succeed(["sync"]); try a.succeed(["sync"])
        #expect(try progress(a) == 60 && progress(b) == 60, "the furthest position wins")

        try b.succeed(["book", "progress", book, "10", "--rewind"])
        try b.succeed(["sync"]); try a.succeed(["sync"])
        #expect(try progress(a) == 10 && progress(b) == 10, "a newer rewind wins")

        try a.succeed(["book", "progress", book, "25"])
        try a.succeed(["sync"]); try b.succeed(["sync"])
        #expect(try progress(a) == 25 && progress(b) == 25, "a position after the rewind wins again")

        // Moving back without --rewind is refused, with a way forward, and changes nothing.
        let refused = try a.run(["book", "progress", book, "20"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("behind the current position (25%)") && refused.stderr.contains("--rewind"), "\(refused.stderr)")
        #expect(try progress(a) == 25)
        try expectSameJournal([a, b])
    }

    /// A deleted note keeps its text for the retention period, also once both devices have
    /// the deletion, so either can bring it back (the purge after the retention is proved by
    /// TombstoneTests, whose clocks can move); the retention is the reader's to set.
    @Test func aDeletionKeepsItsTextForTheRetentionAndTheRetentionIsTheReaders() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        #expect(try a.succeed(["remote", "retention"]).stdout == "90\n")
        try a.succeed(["remote", "retention", "30"])
        #expect(try a.succeed(["remote", "retention"]).stdout == "30\n")
        for bad in ["0", "3651", "soon"] {
            let refused = try a.run(["remote", "retention", bad])
            #expect(refused.status == 64, "\(bad)")
            #expect(refused.stderr.contains("1 to 3650"), "\(refused.stderr)")
        }
        #expect(try a.succeed(["remote", "retention"]).stdout == "30\n", "a refused value changes nothing")

        let book = try a.succeed(["book", "add", "Kept book"]).line
        let note = try a.succeed(["note", "add", book, "Zebra words to forget"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])
        try a.succeed(["delete", note])
        func purged(_ device: TestVault) throws -> Int? {
            (try device.json(["sync", "--json"]) as? [String: Any])?["purged"] as? Int
        }
        #expect(try purged(a) == 0, "b has not acknowledged the deletion")
        #expect(try purged(b) == 0)
        #expect(try purged(a) == 0, "within the retention, also once b has the deletion")
        for device in [a, b] { #expect(try device.succeed(["trash"]).stdout.contains("Zebra words to forget")) }
        let out = a.directory.appendingPathComponent("export-with-deleted")
        try a.succeed(["export", "--out", out.path, "--include-deleted"])
        let journal = try String(contentsOf: out.appendingPathComponent("journal.json"), encoding: .utf8)
        #expect(journal.contains("Zebra") && journal.contains(note))
        try expectSameJournal([a, b])
    }

    @Test func sessionsOnBoth() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Long read"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])
        let s1 = try a.succeed(["session", "add", book, "--pages", "10", "--minutes", "30"]).line
        let s2 = try b.succeed(["session", "add", book, "--pages", "20", "--minutes", "30"]).line
        let s3 = try b.succeed(["session", "add", book, "--pages", "30", "--minutes", "30"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"]); try a.succeed(["sync"])
        for device in [a, b] {
            let shown = try #require(try device.json(["show", book, "--json"]) as? [String: Any])
            let sessions = Set(((shown["sessions"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            #expect(sessions == [s1, s2, s3])
        }
        try expectSameJournal([a, b])
    }

    // MARK: - Freshness

    @Test func freshReadsSyncFirstAndFailWhenTheRemoteIsUnreachable() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Fresh"]).line
        let note = try a.succeed(["note", "add", book, "written on the other device"]).line
        try a.succeed(["sync"])

        // The default read is local: B does not have it yet.
        #expect(try b.notes().isEmpty)
        let fresh = try b.succeed(["list", "--fresh", "--json"])
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(fresh.stdout.utf8)) as? [[String: Any]])
        #expect(listed.compactMap { $0["id"] as? String } == [note])
        #expect(fresh.stderr.contains("Synced first"))
        let searched = try b.succeed(["search", "other device", "--fresh", "--json"])
        #expect(searched.stdout.contains(note))
        try b.succeed(["show", note, "--fresh"])

        // Unreachable: --fresh fails (69) rather than showing stale data as fresh; the local read still works.
        try a.succeed(["edit", note, "edited again"])
        try a.succeed(["sync"])
        for command in [["list", "--fresh"], ["search", "edited", "--fresh"], ["show", note, "--fresh"]] {
            let failed = try b.run(command, environment: ["BMVAULT_TEST_REMOTE_FAULTS": "unreachable"])
            #expect(failed.status == 69, "\(command): \(failed)")
            #expect(!failed.stdout.contains("written on the other device"), "\(command) printed stale data")
        }
        let moved = world.folder.deletingLastPathComponent().appendingPathComponent(world.folder.lastPathComponent + "-unmounted")
        try FileManager.default.moveItem(at: world.folder, to: moved)
        let unmounted = try b.run(["list", "--fresh"])
        #expect(unmounted.status == 69, "\(unmounted)")
        try FileManager.default.moveItem(at: moved, to: world.folder)
        #expect(try b.succeed(["list"]).stdout.contains("written on the other device"), "the local read works offline")
    }

    // MARK: - Joining

    @Test func joiningWithTheRecoveryKeyAndWithWrongSecrets() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let book = try a.succeed(["book", "add", "Joined"]).line
        try a.succeed(["note", "add", book, "already there"])
        try a.succeed(["sync"])

        // Wrong passphrase: 77, and no vault created.
        let wrong = try TestVault()
        let refused = try wrong.run(["init", "--join", world.folder.path, "--passphrase-stdin"], stdin: "not the passphrase\n")
        #expect(refused.status == 77, "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: wrong.databasePath), "no vault created")
        // A wrong recovery key (well-formed): 77; a malformed one: 65. No vault either way.
        let otherKey = try TestVault()
        let otherRecovery = try otherKey.create()
        let wrongKey = try wrong.run(["init", "--join", world.folder.path, "--recovery-key-stdin"], stdin: otherRecovery + "\n")
        #expect(wrongKey.status == 77, "\(wrongKey)")
        let malformed = try wrong.run(["init", "--join", world.folder.path, "--recovery-key-stdin"], stdin: "nope\n")
        #expect(malformed.status == 65, "\(malformed)")
        #expect(!FileManager.default.fileExists(atPath: wrong.databasePath))
        // A folder with no vault in it.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let nothing = try wrong.run(["init", "--join", empty.path, "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(nothing.status != 0 && !FileManager.default.fileExists(atPath: wrong.databasePath), "\(nothing)")

        // The recovery key joins; the new device is a member: same vault id, the remote recorded.
        let c = try TestVault()
        try c.succeed(["init", "--join", world.folder.path, "--recovery-key-stdin"], stdin: world.recoveryKey + "\n")
        try c.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        let status = try #require(try c.json(["status", "--json"]) as? [String: Any])
        let statusA = try #require(try a.json(["status", "--json"]) as? [String: Any])
        #expect(status["vaultId"] as? String == statusA["vaultId"] as? String)
        #expect(try c.succeed(["remote", "list"]).stdout.contains("origin"))
        try c.succeed(["sync"])
        #expect(try c.notes().compactMap { $0["body"] as? String } == ["already there"])
        try c.succeed(["note", "add", book, "from the third device"])
        try c.succeed(["sync"]); try a.succeed(["sync"])
        try expectSameJournal([a, c])
        withExtendedLifetime([wrong, otherKey, c]) {}
    }

    // MARK: - Mass delete

    @Test func aMassDeleteIsBlockedThenAllowed() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Many"]).line
        var notes: [String] = []
        for index in 1...12 { notes.append(try a.succeed(["note", "add", book, "note \(index)"]).line) }
        try a.succeed(["sync"]); try b.succeed(["sync"])
        for note in notes { try b.succeed(["delete", note]) }
        try b.succeed(["sync"])

        let before = try a.journal()
        let blocked = try a.run(["sync"])
        #expect(blocked.status == 1, "\(blocked)")
        #expect(blocked.stderr.contains("--allow-mass-delete") && blocked.stderr.contains("12"), "\(blocked.stderr)")
        #expect(try a.journal() == before, "nothing changed")
        #expect(try a.run(["sync"]).status == 1, "still blocked")

        try a.succeed(["sync", "--allow-mass-delete"])
        #expect(try a.notes().isEmpty)
        try expectSameJournal([a, b])
    }

    // MARK: - Failures, retry-failed and the outbox

    @Test func theOutboxShowsAttemptsNextRetryAndErrorClassNeverContent() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let book = try a.succeed(["book", "add", "Outbox Canary Title"]).line
        try a.succeed(["sync"])
        try a.succeed(["note", "add", book, "Outbox canary body Kq7", "--locator", "p. Kq7"])
        let failed = try a.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "fail-write:1"])
        #expect(failed.status == 75 && failed.stdout.contains(", 1 failure") && !failed.stdout.contains("1 failures"), "\(failed)")

        let text = try a.succeed(["outbox"]).stdout
        #expect(text.contains("annotation create"))
        #expect(text.contains("attempts: 1"))
        #expect(text.contains("next: "))
        #expect(text.contains("last error: io.write"))
        for secret in ["Kq7", "Outbox canary", "Canary Title"] { #expect(!text.contains(secret), "outbox shows content: \(text)") }
        let json = try a.succeed(["outbox", "--json"]).stdout
        for secret in ["Kq7", "Outbox canary", "Canary Title"] { #expect(!json.contains(secret)) }
        let entry = try #require(try a.outbox().first)
        #expect(Set(entry.keys) == ["id", "entity", "action", "state", "attempts", "createdAt", "nextAttemptAt", "lastErrorClass"])
        #expect(entry["state"] as? String == "pending")

        // An unreachable remote: nothing attempted, the command says so (69 when it was the only remote).
        let unreachable = try a.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "unreachable"])
        #expect(unreachable.status == 69, "\(unreachable)")
        #expect(try a.outbox().first?["attempts"] as? Int == 1, "no attempt was made")

        waitOutFirstBackoff()
        try a.succeed(["sync"])
        #expect(try a.outbox().isEmpty)
        #expect(try a.succeed(["outbox"]).stdout.contains("The outbox is empty."))
    }

    /// An operation that fails for good is kept as failed, not retried by a plain sync, and
    /// re-queued by `sync --retry-failed`.
    @Test func retryFailedPutsAFailedOperationBackInLine() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let book = try a.succeed(["book", "add", "Retry"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])
        let note = try a.succeed(["note", "add", book, "refused, then retried"]).line

        // Make the operation unreadable (a permanent failure), keeping its sealed payload.
        let saved = try a.syncTestSQL("SELECT hex(payload) FROM outbox WHERE entity_id = '\(note)'").line
        #expect(!saved.isEmpty)
        #expect(try a.syncTestSQL("UPDATE outbox SET payload = X'00' WHERE entity_id = '\(note)'").status == 0)
        let refused = try a.run(["sync"])
        // It did not go, and will not without the reader: exit 1, saying where to look.
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.contains("1 failed for good"), "\(refused)")
        #expect(refused.stderr == "Error: the sync is not complete: 1 operation failed for good and waits in the outbox (`bmvault outbox` says why; `bmvault sync --retry-failed` tries again)\n",
                "\(refused)")
        var entry = try #require(try a.outbox().first)
        #expect(entry["state"] as? String == "failed")
        #expect(entry["lastErrorClass"] as? String == "unreadable")

        // Repaired, but a plain sync leaves a failed operation alone.
        #expect(try a.syncTestSQL("UPDATE outbox SET payload = X'\(saved)' WHERE entity_id = '\(note)'").status == 0)
        let plainRun = try a.run(["sync", "--json"])
        #expect(plainRun.status == 1, "still failed for good: \(plainRun)")
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(plainRun.stdout.utf8)) as? [String: Any])
        #expect(plain["pushed"] as? Int == 0)
        #expect(plain["failedForGood"] as? Int == 1)
        entry = try #require(try a.outbox().first)
        #expect(entry["state"] as? String == "failed")

        let retried = try a.run(["sync", "--retry-failed", "--json"])
        #expect(retried.status == 0, "\(retried)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(retried.stdout.utf8)) as? [String: Any])
        #expect(summary["pushed"] as? Int == 1, "\(retried.stdout)")
        #expect(try a.outbox().isEmpty)
        try b.succeed(["sync"])
        #expect(try b.notes().compactMap { $0["id"] as? String } == [note])
        try expectSameJournal([a, b])
    }

    /// The remote holds ciphertext only: no title, body, author or locator in any file.
    @Test func theRemoteFolderHoldsNoJournalText() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let book = try a.succeed(["book", "add", "Zebra Canary Title", "--author", "Canary Author Qz"]).line
        try a.succeed(["note", "add", book, "Canary body Qz9 about zebras", "--locator", "ch. Qz"])
        try a.succeed(["quote", "add", book, "Canary quote Qz8", "--locator", "p. 8Qz"])
        try a.succeed(["sync"])
        for file in world.allRemoteFiles() {
            guard let data = FileManager.default.contents(atPath: world.folder.appendingPathComponent(file).path) else { continue }
            // Five bytes or more: a two-byte canary turns up in random ciphertext now and then.
            for canary in ["Zebra", "Canary", "zebras", "Author Qz", "body Qz9", "ch. Qz", "p. 8Qz"] {
                #expect(data.range(of: Data(canary.utf8)) == nil, "\(file) holds \(canary) in the clear")
            }
        }
        let descriptor = try #require(world.allRemoteFiles().first { $0.hasSuffix("vault.json") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: world.folder.appendingPathComponent(descriptor))) as? [String: Any])
        #expect(Set(json.keys) == ["format", "formatVersion", "vaultId", "keyId", "keyslots", "keyslotGeneration", "keyChain", "keyslotsSeal"])
        #expect((json["keyChain"] as? [Any])?.isEmpty == true, "a vault never rekeyed has an empty key chain")
    }
}
