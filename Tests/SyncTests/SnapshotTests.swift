import Foundation
import Testing
import Journal
@testable import Sync
@testable import VaultStore

/// A remote added later receives the journal as it stands (issue 17, item 1): real vaults,
/// real folder remotes.
@Suite struct SnapshotTests {
    /// A second folder remote of the cluster's vault, named `name`.
    private func secondRemote(_ cluster: Cluster, _ name: String) throws -> FolderRemote {
        FolderRemote(name: name, location: try cluster.scratch.sub(name), vaultID: cluster.metadata.vaultID)
    }

    @Test func aDeviceJoiningThroughALaterRemoteGetsTheSameJournalConflictsIncluded() throws {
        let cluster = try Cluster(label: "snapshot")
        let a = try cluster.addDevice("A")
        let b = try cluster.addDevice("B")
        let book = try a.addBook("Shared book")
        let note = try a.addNote("the words both edit", to: book)
        _ = try a.addSession(to: book.id, pages: 12)
        try a.sync()
        try b.sync()
        // Both edit the note without seeing each other: two versions stand together.
        _ = try a.edit(note.id, "A's words")
        _ = try b.edit(note.id, "B's words")
        try a.sync()
        try b.sync()
        try a.sync()
        #expect(try a.state() == b.state())
        #expect(!(try a.conflictIDs()).isEmpty)

        // A adds a second remote; C joins through it alone.
        let nas = try secondRemote(cluster, "nas")
        try a.store.write { tables throws(StoreError) in try tables.remotes.add(name: "nas", kind: .folder, location: nas.location) }
        let summary = try a.sync(through: [cluster.folderRemote(), nas])
        #expect(summary.snapshots["nas"] ?? 0 > 0)
        let c = try cluster.addDevice("C")
        try c.store.write { tables throws(StoreError) in try tables.remotes.remove(name: remoteName) }
        try c.store.write { tables throws(StoreError) in try tables.outbox.compact() }
        try c.store.write { tables throws(StoreError) in try tables.remotes.add(name: "nas", kind: .folder, location: nas.location) }
        try c.sync(through: [nas])
        let (joined, original) = (try c.state(), try a.state())
        #expect(joined == original, "\(joined.difference(from: original))")

        // The next sync sends nothing more to either remote.
        #expect(try a.sync(through: [cluster.folderRemote(), nas]).pushed == 0)
    }

    @Test func aDeletedRecordTravelsInASnapshotWithoutItsContent() throws {
        let cluster = try Cluster(label: "snapshot-deleted")
        let a = try cluster.addDevice("A")
        let book = try a.addBook("A book")
        let gone = try a.addQuote("words deleted before the snapshot", at: "p. 3", toBook: book.id)
        _ = try a.delete(gone.id)
        let retired = try a.addBook("A retired book", authors: ["Someone Private"])
        try a.store.write { tables throws(StoreError) in try tables.books.delete(retired.id) }
        try a.sync()

        let nas = try secondRemote(cluster, "nas")
        try a.store.write { tables throws(StoreError) in try tables.remotes.add(name: "nas", kind: .folder, location: nas.location) }
        try a.sync(through: [cluster.folderRemote(), nas])
        let sent = try cluster.operationFiles(on: nas).map(\.operation)
        let quote = try #require(sent.first { $0.entityID == gone.id })
        guard case .annotation(let version) = quote.record else { Issue.record("not a quote: \(quote)"); return }
        #expect(version.isDeleted && version.annotation.body.isEmpty && version.annotation.locator == nil)
        #expect(quote.action == .delete)
        let shelf = try #require(sent.first { $0.entityID == retired.id })
        guard case .book(let bookVersion) = shelf.record else { Issue.record("not a book: \(shelf)"); return }
        #expect(bookVersion.book.deletedAt != nil && bookVersion.book.title.isEmpty && bookVersion.book.authors.isEmpty)
    }

    @Test func aRemoteAddedBesideOneStillWaitingGetsTheSnapshotAndTheFirstItsHistory() throws {
        let cluster = try Cluster(label: "snapshot-waiting")
        let a = try cluster.addDevice("A")
        let book = try a.addBook("Never synced")
        _ = try a.addNote("one", to: book)
        let note = try a.addNote("two", to: book)
        _ = try a.edit(note.id, "two, edited")
        // Four operations wait for `shared` (added while the vault was empty); `nas`, added
        // now, gets the three records as they stand instead.
        let nas = try secondRemote(cluster, "nas")
        try a.store.write { tables throws(StoreError) in try tables.remotes.add(name: "nas", kind: .folder, location: nas.location) }
        let summary = try a.sync(through: [cluster.folderRemote(), nas])
        #expect(summary.snapshots == ["nas": 3])
        #expect(summary.pushed == 4 + 3)
        #expect(try a.waitingOperations().isEmpty)
        #expect(try cluster.remoteOperationFiles().values.map(\.count).reduce(0, +) == 4)
        #expect(try cluster.operationFiles(on: nas).map(\.operation).count == 3)
    }

    @Test func aRemoteAddedToAnEmptyVaultNeedsNoSnapshot() throws {
        let cluster = try Cluster(label: "snapshot-empty")
        let a = try cluster.addDevice("A")
        #expect(try a.store.read { tables throws(StoreError) in try tables.remotes.needingSnapshot() }.isEmpty)
        _ = try a.addBook("First")
        #expect(try a.sync().snapshots.isEmpty)
    }

    @Test func anEmptiedRemoteGetsOneSnapshotEvenWhenItsAcknowledgementFailsOnce() throws {
        let cluster = try Cluster(label: "snapshot-emptied")
        let a = try cluster.addDevice("A")
        let book = try a.addBook("Carried")
        _ = try a.addNote("on the stick", to: book)
        try a.sync()
        #expect(try a.store.read { tables throws(StoreError) in try tables.remotes.hasSynced(with: remoteName) })
        // The stick is wiped; the sync that refills it cannot leave its acknowledgement.
        try FileManager.default.removeItem(atPath: cluster.remoteRoot)
        let refill = ScriptedRemote(wrapping: cluster.folderRemote())
        refill.failAcknowledgements = .io(operation: "write", errno: EIO)
        #expect(try a.sync(through: [refill]).snapshots == [remoteName: 2])
        // The next sync does not take the missing acknowledgement for another wipe.
        let next = try a.sync()
        #expect(next.snapshots.isEmpty && next.pushed == 0, "\(next)")
        #expect(try cluster.remoteOperationFiles().values.map(\.count).reduce(0, +) == 2)
    }
}
