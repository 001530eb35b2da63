import Foundation
import Testing
import Journal
@testable import Sync
@testable import VaultStore
import VaultCrypto

/// Tombstones: a deleted record keeps its content for the retention period (so `undelete`
/// can bring it back on any device); then sync purges the content and keeps the clear
/// parts, so an operation that arrives later is still decided against the deletion. Its
/// files leave the remotes once every device has acknowledged the deletion.
@Suite struct TombstoneTests {
    /// The sealed body's size, or nil when there is no such note: 0 once purged.
    static func bodyBytes(_ device: Device, _ id: EntityID) throws -> Int? {
        var size: Int?
        try device.store.database.forEachRow("SELECT length(body) FROM annotation WHERE id = ?", [.text(id.rawValue)]) { row in
            size = Int(row.int64(0))
        }
        return size
    }

    static func outboxRows(_ device: Device, about id: EntityID) throws -> Int {
        var count = 0
        try device.store.database.forEachRow("SELECT count(*) FROM outbox WHERE entity_id = ?", [.text(id.rawValue)]) { row in
            count = Int(row.int64(0))
        }
        return count
    }

    @Test func aDeletionKeepsItsTextForTheRetentionThenIsPurgedEverywhere() throws {
        let (_, a, b, _, note) = try ConvergenceTests.pair(note: "words to forget")
        a.clock.advance(seconds: 1); try a.delete(note.id)
        #expect(try a.sync().purged == 0, "B has not acknowledged the deletion yet")
        // Every device has the deletion: the text stays, for `undelete`, until the retention ends.
        #expect(try b.sync().purged == 0)
        #expect(try a.sync().purged == 0)
        for device in [a, b] { #expect(try Self.bodyBytes(device, note.id)! > 0, "\(device.name)") }
        for device in [a, b] { device.clock.advance(hours: 91 * 24) }
        #expect(try b.sync().purged == 1)
        #expect(try a.sync().purged == 1)
        for device in [a, b] {
            #expect(try Self.bodyBytes(device, note.id) == 0, "\(device.name)")
            #expect(try Self.outboxRows(device, about: note.id) == 0, "\(device.name): the operations that carried the text are gone")
            let tombstone = try device.note(note.id)
            #expect(tombstone.deletedAt != nil && tombstone.body.isEmpty)
        }
        // Nothing is listed for it any more, even with deleted records.
        var listed: [EntityID] = []
        try a.store.read { tables throws(StoreError) in try tables.annotations.forEach(AnnotationFilter(includeDeleted: true)) { if case .success(let n) = $0 { listed.append(n.id) } } }
        #expect(!listed.contains(note.id))
        // A later sync has nothing more to purge.
        #expect(try a.sync().purged == 0)
        try expectConverged([a, b])
    }

    /// A compaction that failed after writing its stand-in seals the stand-in again next
    /// time (a new nonce, other bytes): the file already there opens as that operation, so
    /// it is kept, not replaced as if it were damaged.
    @Test func aStandInSealedAgainAfterAFailedCompactionIsKept() throws {
        let (cluster, a, b, _, note) = try ConvergenceTests.pair()
        a.clock.advance(seconds: 1); try a.delete(note.id)
        try a.sync(); try b.sync()
        let remote = ScriptedRemote(wrapping: cluster.folderRemote())
        remote.failRemovals = .io(operation: "unlink", errno: EIO)
        #expect(try a.sync(through: [remote]).purged == 0, "the text stays here for the retention; the remote is compacted")
        #expect(try cluster.remoteOperations(about: note.id).count == 3, "the stand-in beside the note's two operations")
        remote.failRemovals = nil
        try a.sync(through: [remote])
        #expect(remote.replaced.isEmpty)
        #expect(try cluster.remoteOperations(about: note.id).count == 1, "only the content-free stand-in is left")
        #expect(try Self.outboxRows(a, about: note.id) == 0)
    }

    @Test func aDeviceThatHasNotAcknowledgedHoldsThePurgeUntilTheRetentionEnds() throws {
        let (cluster, a, b, _, note) = try ConvergenceTests.pair()
        let c = try cluster.addDevice("c", deviceID: deviceID("c"))
        try c.sync()                                   // c is known (it left an acknowledgement), then goes away
        a.clock.advance(seconds: 1); try a.delete(note.id)
        try a.sync(); try b.sync(); try a.sync()
        #expect(try Self.bodyBytes(a, note.id)! > 0, "c has not acknowledged")
        #expect(try Self.bodyBytes(b, note.id)! > 0)
        a.clock.advance(hours: 24 * 89)
        #expect(try a.sync().purged == 0, "89 days: still within the default 90")
        a.clock.advance(hours: 24 * 2)
        let late = try a.sync()
        #expect(late.purged == 1)
        #expect(late.silentDevices.keys.sorted() == [b.deviceID, c.deviceID], "both have been silent for 91 days by a's clock")
        #expect(late.returningAfterDays == nil)
        #expect(try Self.bodyBytes(a, note.id) == 0)
        // The content is gone here, but the files stay on the remote until c has them.
        #expect(try cluster.remoteOperations(about: note.id).count == 2)
        // c comes back: it takes the deletion like any other change, and acknowledges it.
        #expect(try c.sync().rejected == 0)
        #expect(try c.note(note.id).deletedAt != nil)
        try a.sync()
        #expect(try cluster.remoteOperations(about: note.id).count == 1, "only the content-free stand-in is left")
        #expect(try Self.outboxRows(a, about: note.id) == 0)
    }

    @Test func theRetentionIsTheReadersToSet() throws {
        let (_, a, b, _, note) = try ConvergenceTests.pair()
        #expect(try a.store.read { tables throws(StoreError) in try tables.tombstones.retentionDays() } == TombstoneTable.defaultRetentionDays)
        #expect(throws: StoreError.invalidRetention(maximumDays: TombstoneTable.maximumRetentionDays)) {
            try a.store.write { tables throws(StoreError) in try tables.tombstones.setRetention(days: 0) }
        }
        #expect(throws: StoreError.invalidRetention(maximumDays: TombstoneTable.maximumRetentionDays)) {
            try a.store.write { tables throws(StoreError) in try tables.tombstones.setRetention(days: TombstoneTable.maximumRetentionDays + 1) }
        }
        try a.store.write { tables throws(StoreError) in try tables.tombstones.setRetention(days: 2) }
        #expect(try a.store.read { tables throws(StoreError) in try tables.tombstones.retentionDays() } == 2)
        _ = b                                             // b never acknowledges: only the retention purges
        a.clock.advance(seconds: 1); try a.delete(note.id)
        try a.sync()
        a.clock.advance(hours: 47)
        #expect(try a.sync().purged == 0)
        a.clock.advance(hours: 2)
        #expect(try a.sync().purged == 1)
    }

    /// A device that edited the note while it was deleted (and purged) elsewhere: the edit
    /// survives on both devices, flagged, as with any edit against a deletion.
    @Test func anEditThatArrivesAfterThePurgeComesBackFlagged() throws {
        let (_, a, b, _, note) = try ConvergenceTests.pair()
        try a.store.write { tables throws(StoreError) in try tables.tombstones.setRetention(days: 1) }
        a.clock.advance(seconds: 1); try a.delete(note.id)
        try a.sync()
        a.clock.advance(hours: 25)
        #expect(try a.sync().purged == 1)
        b.clock.advance(hours: 26); try b.edit(note.id, "written offline, after the deletion elsewhere")
        try b.sync(); try a.sync(); try b.sync()
        for device in [a, b] {
            let survivor = try device.note(note.id)
            #expect(survivor.deletedAt == nil && survivor.body == "written offline, after the deletion elsewhere", "\(device.name)")
            #expect(survivor.conflictReason == .editedAfterDelete, "\(device.name)")
        }
        try expectConverged([a, b])
    }

    @Test func aBookIsPurgedLikeANote() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let book = try a.addBook("A Title To Forget", authors: ["Someone"])
        try a.sync(); try b.sync()
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        try a.sync(); try b.sync(); try a.sync()
        for device in [a, b] { device.clock.advance(hours: 91 * 24) }
        try a.sync(); try b.sync()
        for device in [a, b] {
            var sizes: [Int] = []
            try device.store.database.forEachRow("SELECT length(title), length(authors) FROM book WHERE id = ?", [.text(book.id.rawValue)]) { row in
                sizes = [Int(row.int64(0)), Int(row.int64(1))]
            }
            #expect(sizes == [0, 0], "\(device.name)")
            let tombstone = try device.store.read { tables throws(StoreError) in try tables.books.book(book.id) }
            #expect(tombstone.title.isEmpty && tombstone.authors.isEmpty && tombstone.deletedAt != nil)
        }
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.all(includeDeleted: true) }.isEmpty)
    }

    /// A note written offline for a book that was deleted and purged meanwhile: the note is
    /// kept and listed; the book, with no title left, stays a readable tombstone.
    @Test func aLateNoteForAPurgedBookIsKept() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let book = try a.addBook("Book Deleted Meanwhile")
        try a.sync(); try b.sync()
        b.clock.advance(seconds: 5); let late = try b.addNote("written offline, months ago", to: book)
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        try a.sync()
        a.clock.advance(hours: 24 * 91)
        #expect(try a.sync().purged == 1)
        try b.sync(); try a.sync()
        #expect(try a.liveAnnotations().map(\.id) == [late.id])
        let tombstone = try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }
        #expect(tombstone.deletedAt != nil && tombstone.title.isEmpty, "readable, not damaged")
        #expect(try b.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt == nil, "b keeps the book its note needs")
    }

    /// Only sync purges, and only once the deletion is on every remote: a vault that has no
    /// remote keeps its tombstones whole.
    @Test func withoutARemoteNothingIsPurged() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let book = try a.addBook("Book")
        let note = try a.addNote("kept", to: book)
        try a.delete(note.id)
        #expect(try a.store.read { tables throws(StoreError) in try tables.tombstones.withContent() }.isEmpty, "the deletion has not reached the remote")
        try a.store.write { tables throws(StoreError) in try tables.remotes.remove(name: remoteName) }
        try a.store.write { tables throws(StoreError) in try tables.outbox.compact() }
        a.clock.advance(hours: 24 * 365)
        #expect(try a.store.read { tables throws(StoreError) in try tables.tombstones.withContent() }.isEmpty, "no remote at all")
        #expect(try Self.bodyBytes(a, note.id)! > 0)
    }

    /// The acknowledgement a device leaves: clocks and device ids only, sealed to the vault
    /// and the device; one for another device's folder does not open.
    @Test func acknowledgementsAreSealedToTheirDevice() throws {
        let (cluster, a, b, _, _) = try ConvergenceTests.pair()
        let remote = cluster.folderRemote()
        let sealed = try #require(try remote.readAcknowledgement(of: b.deviceID))
        let plain = try cluster.cipher.open(acknowledgement: sealed, device: b.deviceID)
        let acknowledgement = try Acknowledgement.decode(plain, device: b.deviceID)
        #expect(acknowledgement.appliedThrough(a.deviceID) != nil)
        #expect(throws: CryptoError.authenticationFailed) { try cluster.cipher.open(acknowledgement: sealed, device: a.deviceID) }
        let text = String(decoding: plain, as: UTF8.self)
        #expect(!text.contains("first text") && !text.contains("Shared Book"))
    }

    /// A purge also empties the remote of the content: the device removes its own files about
    /// the record, after leaving one content-free tombstone operation in their place.
    @Test func thePurgeRemovesTheContentsFilesFromTheRemote() throws {
        let (cluster, a, b, _, note) = try ConvergenceTests.pair(note: "first words")
        a.clock.advance(seconds: 1); try a.edit(note.id, "second words")
        a.clock.advance(seconds: 1); try a.delete(note.id)
        try a.sync(); try b.sync()
        #expect(try cluster.remoteOperations(about: note.id).count == 3, "create, edit, delete")
        try a.sync()
        let left = try cluster.remoteOperations(about: note.id)
        #expect(left.count == 1)
        let tombstone = try #require(left.first)
        guard case .annotation(let deletion) = tombstone.record else { Issue.record("not a note's operation"); return }
        #expect(tombstone.action == .delete && deletion.isDeleted && deletion.clock == tombstone.clock)
        #expect(deletion.annotation.body.isEmpty && deletion.annotation.locator == nil, "the stand-in carries no text")
        // B keeps the text for the retention, then purges; it had sent nothing about the
        // note, so it had no files to replace.
        #expect(try Self.bodyBytes(b, note.id)! > 0)
        b.clock.advance(hours: 91 * 24)
        #expect(try b.sync().purged == 1)
        #expect(try Self.bodyBytes(b, note.id) == 0)
        try expectConverged([a, b])
    }

    /// A device that joins after the purge gets the record as a tombstone, never alive.
    @Test func aDeviceJoiningAfterThePurgeSeesNoDeletedRecord() throws {
        let (cluster, a, b, book, note) = try ConvergenceTests.pair(note: "gone before you came")
        a.clock.advance(seconds: 1); try a.delete(note.id)
        try a.sync(); try b.sync(); try a.sync()
        let c = try cluster.addDevice("c", deviceID: deviceID("c"))
        try c.sync()
        #expect(try c.liveAnnotations().isEmpty)
        #expect(try c.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt == nil)
        try syncUntilQuiet([a, b, c])
        try expectConverged([a, b, c])
    }

    /// A device that was away longer than the retention, and meanwhile every file about a
    /// record deleted elsewhere was removed: the tombstone operation still reaches it, so it
    /// does not keep (and later spread) the deleted note. A note it edited while away
    /// survives, flagged, on every device.
    @Test func aDeviceReturningAfterTheRetentionTakesTheDeletionsAndKeepsItsOwnEdits() throws {
        let (cluster, a, b, book, first) = try ConvergenceTests.pair(note: "deleted while c was away")
        let second = try a.addNote("edited on c while deleted elsewhere", to: book)
        let c = try cluster.addDevice("c", deviceID: deviceID("c"))
        try a.sync(); try b.sync(); try c.sync(); try a.sync()
        #expect(try c.liveAnnotations().count == 2)
        c.clock.advance(seconds: 30); try c.edit(second.id, "c's words, typed offline")      // c goes away
        a.clock.advance(seconds: 1); try a.delete(first.id)
        a.clock.advance(seconds: 1); try a.delete(second.id)
        try a.sync(); try b.sync()
        a.clock.advance(hours: 24 * 91); b.clock.advance(hours: 24 * 91)
        #expect(try a.sync().purged == 2)
        #expect(try b.sync().purged == 2)
        #expect(try cluster.remoteOperations(about: first.id).count == 2, "kept for c, which has not acknowledged")
        c.clock.advance(hours: 24 * 92)
        let back = try c.sync()
        #expect(back.returningAfterDays == 92, "c knows it has been away longer than the retention")
        #expect(try c.note(first.id).deletedAt != nil, "the deletion reached c")
        try syncUntilQuiet([a, b, c])
        #expect(try cluster.remoteOperations(about: first.id).count == 1, "compacted once c acknowledged")
        for device in [a, b, c] {
            let kept = try device.note(second.id)
            #expect(kept.deletedAt == nil && kept.body == "c's words, typed offline" && kept.conflictReason == .editedAfterDelete,
                    "\(device.name)")
            #expect(try device.note(first.id).deletedAt != nil, "\(device.name)")
        }
        try expectConverged([a, b, c])
    }

    @Test func watermarksStopAtTheFirstOperationNotApplied() {
        let names = ["0000000000000001-00000000-d.k1.op", "0000000000000002-00000000-d.k2.op", "0000000000000003-00000000-d.k3.op"]
        let marks = Acknowledgement.watermarks(listed: ["d": names]) { _ in ["k1", "k3"] }
        #expect(marks["d"]?.description == "0000000000000001-00000000-d")
        #expect(Acknowledgement.watermarks(listed: ["d": names]) { _ in [] }["d"] == nil)
    }
}
