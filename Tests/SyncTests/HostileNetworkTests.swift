import Applier
import Foundation
import Testing
import Journal
@testable import Sync
@testable import SyncWire
@testable import VaultStore
import VaultCrypto

/// The offline-write sequence and the ways a remote fails: lost replies, failed writes, an
/// unreachable remote, refusals by the remote, mass deletions, and a batch that cannot finish.
@Suite struct HostileNetworkTests {
    /// A backoff whose first delay is (almost surely) far in the future: 0…10⁹ ms.
    static let slowBackoff = Backoff(baseMilliseconds: 1_000_000_000, capMilliseconds: 2_000_000_000)
    /// Moves a device's clock past any delay `slowBackoff` can choose.
    static func waitOutBackoff(_ device: Device) { device.clock.advance(milliseconds: 4_000_000_001) }

    // MARK: - The offline-write sequence

    /// offline → create note → kill → relaunch → online → the same operation retried twice
    /// → exactly one remote operation, one note on the other device, an empty outbox.
    @Test(arguments: [1, 2])
    func theOfflineWriteSequence(lostReplies: Int) throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("On the train")
        try a.sync()
        try b.sync()

        // Offline: no sync. A note is written, then the process dies and comes back.
        let note = try a.addNote("typed with no network", to: book)
        try a.restart()
        #expect(try a.waitingOperations().count == 1)

        // Online, but each reply is lost after the write landed.
        for attempt in 1...lostReplies {
            let flaky = FaultInjectingRemote(wrapping: cluster.folderRemote(), directives: "lose-reply:1")
            let summary = try a.sync(through: [flaky])
            #expect(summary.failures == 1, "attempt \(attempt): the lost reply is a failure")
            #expect(summary.pushed == 0)
            let waiting = try #require(try a.waitingOperations().first)
            #expect(waiting.attempts == attempt)
            #expect(waiting.lastErrorClass == "timedOut")
            #expect(waiting.nextAttemptAt != nil)
            #expect(try cluster.remoteOperations(about: note.id).count == 1, "the write landed")
            a.clock.advance(hours: 48)      // past any backoff
            try a.restart()                 // and killed again for good measure
        }

        // Retried: the file is already there, so the upload counts as done; then once more.
        let retried = try a.sync()
        #expect(retried.pushed == 1 && retried.failures == 0)
        let again = try a.sync()
        #expect(again.pushed == 0 && again.failures == 0)

        #expect(try cluster.remoteOperations(about: note.id).count == 1, "exactly one operation file for the note")
        #expect(try a.waitingOperations().isEmpty, "A's outbox is empty")
        try b.sync()
        #expect(try b.liveAnnotations().map(\.id) == [note.id], "one note on B")
        try expectConverged([a, b])
    }

    // MARK: - Temporary failures

    @Test func aTemporaryFailureBacksOffAndHoldsBackOnlyItsRecord() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Book")
        try a.sync()
        let first = try a.addNote("first note", to: book)
        a.clock.advance(seconds: 1); try a.edit(first.id, "first note, edited")
        a.clock.advance(seconds: 1); let second = try a.addNote("second note", to: book)

        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.writeFaults[1] = .fail(.io(operation: "write", errno: EIO))
        let before = realNowMilliseconds()
        let summary = try a.sync(through: [remote], backoff: Self.slowBackoff)
        let after = realNowMilliseconds()
        #expect(summary.failures == 1)
        #expect(summary.pushed == 1, "the other record's operation went")

        let rows = try a.store.outboxSyncRows()
        let firstCreate = try #require(rows.first { $0.entityID == first.id.rawValue })
        #expect(firstCreate.state == "pending")
        #expect(firstCreate.attempts == 1)
        #expect(firstCreate.lastErrorClass == "io.write")
        let next = try #require(firstCreate.nextAttemptAt)
        #expect(next > a.clock.now().millisecondsSince1970, "next attempt in the future")
        #expect(next >= before && next <= after + Self.slowBackoff.baseMilliseconds, "within full jitter of attempt 0")
        let firstEdit = try #require(rows.last { $0.entityID == first.id.rawValue })
        #expect(firstEdit.state == "pending" && firstEdit.attempts == 0, "the later change to the same note waits")
        #expect(!rows.contains { $0.entityID == second.id.rawValue }, "the other record's operation is done and compacted")
        #expect(try cluster.remoteOperations(about: first.id).isEmpty)
        #expect(try cluster.remoteOperations(about: second.id).count == 1)

        // The outbox shows it, without content.
        let entry = try #require(try a.waitingOperations().first)
        #expect(entry.attempts == 1 && entry.lastErrorClass == "io.write" && entry.nextAttemptAt != nil)

        // Once the backoff has passed, both go, in order, and B sees the edit, no conflict.
        Self.waitOutBackoff(a)
        let retry = try a.sync(backoff: Self.slowBackoff)
        #expect(retry.pushed == 2)
        #expect(try a.waitingOperations().isEmpty)
        try b.sync()
        #expect(try b.note(first.id).body == "first note, edited")
        #expect(try b.conflictIDs().isEmpty)
        try expectConverged([a, b])
    }

    /// While an operation waits out its backoff, a later operation on the SAME record must
    /// not be sent ahead of it (another device would then apply the changes out of order).
    @Test func aLaterChangeDoesNotOvertakeAnEarlierOneInBackoff() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let book = try a.addBook("Book")
        let note = try a.addNote("v1", to: book)
        try a.sync(); try b.sync()
        a.clock.advance(seconds: 1); try a.edit(note.id, "v2")
        a.clock.advance(seconds: 1); try a.edit(note.id, "v3")

        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.writeFaults[1] = .fail(.io(operation: "write", errno: EIO))
        try a.sync(through: [remote], backoff: Self.slowBackoff)      // v2 fails, v3 waits
        #expect(try cluster.remoteOperations(about: note.id).count == 1)

        // A second sync before the backoff has passed.
        try a.sync(backoff: Self.slowBackoff)
        let files = try cluster.remoteOperations(about: note.id)
        #expect(files.count == 1, "v3 must wait for v2")
        try b.sync()
        Self.waitOutBackoff(a)
        try a.sync(backoff: Self.slowBackoff)
        try b.sync()
        #expect(try b.note(note.id).body == "v3")
        #expect(try b.conflictIDs().isEmpty)
        try expectConverged([a, b])
    }

    /// A file already under an operation's name is not trusted blindly: if it is damaged (a
    /// crash or power loss between link and flush, a sync tool that left a partial file),
    /// the retry replaces it, so the other devices do get the change.
    @Test func aDamagedFileUnderAnOperationsNameIsNotTakenAsDelivered() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Book")
        try a.sync(); try b.sync()
        let note = try a.addNote("must reach B", to: book)
        // The file a crash left behind: the right name, truncated content.
        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.writeFaults[1] = .loseReply
        try a.sync(through: [remote])
        let name = try #require(remote.landed.first)
        let path = cluster.remoteRoot + "/devices/" + a.deviceID + "/" + name
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))

        a.clock.advance(hours: 48)
        try a.sync()
        let summary = try b.sync()
        #expect(summary.rejected == 0)
        let onB = try b.liveAnnotations().map(\.id)
        #expect(onB == [note.id])
    }

    @Test func anUnreachableRemoteIsNotAttempted() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let book = try a.addBook("Book")
        try a.addNote("note", to: book)
        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.unreachable = true
        let summary = try a.sync(through: [remote])
        #expect(summary.skipped == [remoteName: "unreachable"])
        #expect(summary.pushed == 0 && summary.pulled == 0 && summary.failures == 0)
        #expect(remote.writes == 0, "nothing attempted")
        #expect(try a.store.outboxSyncRows().allSatisfy { $0.attempts == 0 && $0.state == "pending" && $0.lastErrorClass == nil })

        // A missing folder (an unmounted drive) is the same.
        let gone = FolderRemote(name: remoteName, location: cluster.scratch.path + "/unmounted", vaultID: cluster.metadata.vaultID)
        let again = try a.sync(through: [gone])
        #expect(again.skipped == [remoteName: "unreachable"])
        #expect(try a.waitingOperations().count == 2)
    }

    /// The clock in an operation file's name is in the clear; the sealed document holds the
    /// real one. A file renamed to another clock (to move it in the order, or to inflate an
    /// acknowledgement's watermark) is not applied, and is counted (issue 23, low).
    @Test func aRenamedOperationFileIsNotApplied() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        try a.addBook("Solaris")
        try a.sync()
        let folder = cluster.remoteRoot + "/devices/" + a.deviceID
        let name = try #require(try cluster.folderRemote().operationNames(of: a.deviceID).first)
        let clock = try #require(OperationFileName.clock(in: name))
        let key = try #require(OperationFileName.idempotencyKey(in: name))
        let later = HybridTimestamp(wallMilliseconds: clock.wallMilliseconds + 86_400_000, counter: 0, deviceID: clock.deviceID)
        try FileManager.default.moveItem(atPath: folder + "/" + name, toPath: folder + "/" + OperationFileName.make(clock: later, idempotencyKey: key))

        let summary = try b.sync()
        #expect(summary.rejected == 1 && summary.pulled == 0)
        #expect(try b.store.read { tables throws(StoreError) in try tables.books.all() }.isEmpty)
    }

    @Test func aRemoteHoldingAnotherVaultIsRefused() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.addBook("Book")
        try FileManager.default.createDirectory(atPath: cluster.remoteRoot, withIntermediateDirectories: true)
        let foreign = RemoteDescriptor(vaultID: "someone-else", keyID: try KeyID(hex: "00112233aabbccdd"), keyslots: [], keyslotGeneration: 0, keyChain: [])
        try Data(foreign.encoded()).write(to: URL(fileURLWithPath: cluster.remoteRoot + "/vault.json"))
        let summary = try a.sync()
        #expect(summary.skipped == [remoteName: "otherVault"])
        #expect(try cluster.folderRemote().devices().isEmpty)
    }

    @Test func theDescriptorIsWrittenWithTheWrappedKeyslots() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.sync()
        let bytes = try #require(try cluster.folderRemote().readDescriptor())
        let descriptor = try RemoteDescriptor.decode(bytes)
        #expect(descriptor.vaultId == cluster.metadata.vaultID)
        #expect(descriptor.keyId == cluster.metadata.keyID.description)
        #expect(descriptor.keyslots.map(\.id) == cluster.keyslots.map(\.id))
        #expect(descriptor.keyslots.map(\.wrappedKey) == cluster.keyslots.map { Data($0.wrappedKey).base64EncodedString() })
    }

    /// A passphrase change on one device rewrites the descriptor (so a new device joins with
    /// the new passphrase). Keyslots are device configuration and do not sync; a device that
    /// still has the OLD slots has an older keyslot generation and leaves the descriptor alone.
    @Test func aChangedPassphraseSlotIsNotRevertedOnTheRemoteByAnotherDevice() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        try a.sync(); try b.sync()
        let old = try #require(cluster.keyslots.first { $0.kind == .passphrase })
        let changed = Keyslot(id: "slot-passphrase-2", kind: .passphrase, kdf: old.kdf,
                              salt: try randomBytes(count: 16), wrappedKey: try randomBytes(count: 73))
        try a.store.write { tables throws(StoreError) in try tables.keys.replace(changed) }
        try a.sync()
        func remoteSlotIDs() throws -> [String] {
            try RemoteDescriptor.decode(try #require(try cluster.folderRemote().readDescriptor())).keyslots.map(\.id).sorted()
        }
        #expect(try remoteSlotIDs().contains("slot-passphrase-2"))
        try b.sync()
        let slots = try remoteSlotIDs()
        #expect(slots.contains("slot-passphrase-2"), "\(slots)")
    }

    // MARK: - What a remote refuses is retried, never failed for good

    /// Issue 40: a refusal by the remote (here `malformed`, what a link where a folder
    /// belongs gives) is the remote's doing, not the operation's: it waits out a backoff, the
    /// edit behind it waits too, and once the backoff has passed a plain sync sends both, in
    /// order. It used to fail the operation for good, unsent until `--retry-failed`.
    @Test func aRefusalByTheRemoteIsRetriedAfterItsBackoff() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Book")
        try a.sync()
        let note = try a.addNote("refused once", to: book)
        a.clock.advance(seconds: 1); try a.edit(note.id, "refused once, then edited")
        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.writeFaults[1] = .fail(.malformed(what: "a link or a file where a folder belongs"))
        let summary = try a.sync(through: [remote], backoff: Self.slowBackoff)
        #expect(summary.failures == 1 && summary.failedForGood == 0)
        #expect(summary.shortfall == .leftToRetry(failures: 1, deferred: 0), "exit 75, not 1")
        var rows = try a.store.outboxSyncRows().filter { $0.entityID == note.id.rawValue }
        #expect(rows.map(\.state) == ["pending", "pending"])
        #expect(rows[0].attempts == 1 && rows[0].lastErrorClass == "malformed" && rows[0].nextAttemptAt != nil)
        #expect(try VaultInspection(ofVaultAt: a.path).outbox.lastErrorClass == "malformed", "diagnostics shows the class")

        // Not before its backoff, and the edit behind it waits.
        #expect(try a.sync(backoff: Self.slowBackoff).pushed == 0)
        rows = try a.store.outboxSyncRows().filter { $0.entityID == note.id.rawValue }
        #expect(rows.map(\.attempts) == [1, 0])

        // Once it has passed, a plain sync sends both, in order.
        Self.waitOutBackoff(a)
        let retried = try a.sync(backoff: Self.slowBackoff)
        #expect(retried.pushed == 2 && retried.shortfall == nil)
        #expect(try a.waitingOperations().isEmpty)
        #expect(try VaultInspection(ofVaultAt: a.path).outbox.lastErrorClass == nil)
        try b.sync()
        #expect(try b.note(note.id).body == "refused once, then edited")
        try expectConverged([a, b])
    }

    /// Issue 40: this device's folder on the remote replaced by a link for one sync (a broken
    /// sync tool, a hostile host). Nothing is written through the link, the sync ends as left
    /// to retry (exit 75), and once the folder is back a plain sync delivers: the other device
    /// gets the note, no `--retry-failed` needed.
    @Test func aDeviceFolderReplacedByALinkForOneSyncDeliversOnceRestored() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Book")
        try a.sync(); try b.sync()
        let note = try a.addNote("sent through a broken remote", to: book)
        a.clock.advance(seconds: 1); try a.edit(note.id, "sent through a broken remote, edited")

        let folder = cluster.remoteRoot + "/devices/" + a.deviceID
        let aside = try cluster.scratch.sub("aside")
        let elsewhere = try cluster.scratch.sub("elsewhere")
        try FileManager.default.moveItem(atPath: folder, toPath: aside + "/folder")
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: elsewhere)
        let broken = try a.sync()
        #expect(broken.pushed == 0 && broken.failures >= 1 && broken.failedForGood == 0, "\(broken)")
        #expect(broken.shortfall == .leftToRetry(failures: broken.failures, deferred: 0), "exit 75: \(broken)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty, "nothing written through the link")
        #expect(try a.waitingOperations().allSatisfy { $0.state == .pending && $0.nextAttemptAt != nil })

        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: aside + "/folder", toPath: folder)
        a.clock.advance(hours: 1)       // past the first backoff (at most 2 s)
        let healed = try a.sync()
        #expect(healed.pushed >= 2 && healed.failures == 0 && healed.shortfall == nil, "\(healed)")
        #expect(try a.waitingOperations().isEmpty)
        try b.sync()
        #expect(try b.note(note.id).body == "sent through a broken remote, edited")
        try expectConverged([a, b])
    }

    /// An outbox row whose payload no longer opens can never be sent: failed, kept, reported.
    @Test func anUnreadableOperationIsFailedAndKept() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.addBook("Book")
        try a.store.database.run("UPDATE outbox SET payload = x'00112233'")
        let summary = try a.sync()
        #expect(summary.pushed == 0)
        let rows = try a.store.outboxSyncRows()
        #expect(rows.map(\.state) == ["failed"])
        #expect(rows.first?.lastErrorClass == "unreadable")
    }

    // MARK: - Deferred operations

    @Test func aNoteThatArrivesBeforeItsBookWaitsForIt() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Late Book")
        let note = try a.addNote("note of a late book", to: book)
        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.writeFaults[1] = .fail(.timedOut)
        try a.sync(through: [remote], backoff: Self.slowBackoff)
        let summary = try b.sync()
        #expect(summary.deferred == 1 && summary.pulled == 0)
        #expect(try b.liveAnnotations().isEmpty)
        Self.waitOutBackoff(a)
        try a.sync(backoff: Self.slowBackoff)
        let later = try b.sync()
        #expect(later.pulled == 2)
        #expect(try b.note(note.id).body == "note of a late book")
        try expectConverged([a, b])
    }

    // MARK: - Mass deletion

    static func massDeleteSetup(notes: Int) throws -> (Cluster, Device, Device, Book, [Annotation]) {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Many notes")
        var created: [Annotation] = []
        for index in 0..<notes { created.append(try a.addNote("note \(index)", to: book)) }
        try a.sync(); try b.sync()
        return (cluster, a, b, book, created)
    }

    @Test func aMassDeleteIsRefusedAndChangesNothingUntilAllowed() throws {
        let (_, a, b, _, notes) = try Self.massDeleteSetup(notes: 12)
        for note in notes { try b.delete(note.id) }       // 12 of 13 live records
        try b.sync()
        a.clock.advance(seconds: 1)
        let local = try a.addNote("written on A meanwhile", toBook: notes[0].bookID)

        let before = try a.state()
        let outboxBefore = try a.store.outboxSyncRows().map { "\($0.id) \($0.state) \($0.attempts)" }
        let appliedBefore = try a.store.appliedOperationCount()
        let clocksBefore = try a.store.recordClocks()
        let error = a.syncFailure()
        #expect(error == .massDelete(count: 12, total: 14))
        #expect(try a.state() == before, "nothing changed")
        #expect(try a.store.outboxSyncRows().map { "\($0.id) \($0.state) \($0.attempts)" } == outboxBefore, "nothing pushed")
        #expect(try a.store.appliedOperationCount() == appliedBefore)
        #expect(try a.store.recordClocks() == clocksBefore)
        #expect(try a.liveAnnotations().count == 13)

        // Asked again: still refused. Allowed: applied.
        #expect(a.syncFailure() == .massDelete(count: 12, total: 14))
        let summary = try a.sync(allowMassDelete: true)
        #expect(summary.pulled == 12)
        #expect(try a.liveAnnotations().map(\.id) == [local.id])
        try b.sync()
        try expectConverged([a, b])
    }

    @Test(arguments: [(notes: 9, deleted: 9, blocked: false),     // fewer than 10
                      (notes: 19, deleted: 10, blocked: false),   // 10 of 20: not more than half
                      (notes: 19, deleted: 11, blocked: true),    // 11 of 20
                      (notes: 10, deleted: 10, blocked: true)])   // 10 of 11
    func theMassDeleteThresholds(notes: Int, deleted: Int, blocked: Bool) throws {
        let (_, a, b, _, created) = try Self.massDeleteSetup(notes: notes)
        for note in created.prefix(deleted) { try b.delete(note.id) }
        try b.sync()
        let error = a.syncFailure()
        if blocked {
            #expect(error == .massDelete(count: deleted, total: notes + 1))
        } else {
            #expect(error == nil)
            #expect(try a.liveAnnotations().count == notes - deleted)
        }
    }

    // MARK: - Transactional batches

    /// A pulled batch that cannot finish (the disk fills up halfway) leaves nothing of
    /// itself visible: no record, no applied-operation mark. The next sync applies it all.
    @Test func aBatchThatFailsHalfwayLeavesNothingBehind() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Big")
        let filler = String(repeating: "long text that takes room ", count: 120)
        for index in 0..<120 { try a.addNote("\(index) \(filler)", to: book) }
        try a.sync()

        var pages: Int64 = 0
        try b.store.database.forEachRow("PRAGMA page_count") { row in pages = row.int64(0) }
        try b.store.database.execute("PRAGMA max_page_count = \(pages + 8)")
        let before = try b.state()
        let error = b.syncFailure()
        guard case .journal? = error else {
            Issue.record("expected the batch to fail with a store error, got \(String(describing: error))")
            return
        }
        #expect(try b.state() == before, "nothing of the batch is visible")
        #expect(try b.store.appliedOperationCount() == 0)
        // A fresh connection (another reader) sees nothing either.
        try b.restart()
        #expect(try b.state() == before)

        let summary = try b.sync()
        #expect(summary.pulled == 121)
        try expectConverged([a, b])
    }

    /// Batches are of 500: a pull of more than one batch still applies everything in clock order.
    @Test func aPullOfSeveralBatchesAppliesEverything() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Big")
        var batch = JournalBatch()
        for index in 0..<(SyncEngine<VaultSyncJournal>.batchSize + 30) {
            batch.annotations.append(try Annotation.new(bookID: book.id, kind: .note, body: "bulk \(index)", locator: nil, at: a.clock.now()))
        }
        try a.store.write { tables throws(StoreError) in try batch.insert(into: tables) }
        try a.sync()
        let summary = try b.sync()
        #expect(summary.pulled == SyncEngine<VaultSyncJournal>.batchSize + 31)
        try expectConverged([a, b])
    }
}
