import Foundation
import Testing
import Journal
@testable import Sync
@testable import SyncWire
@testable import VaultStore

/// Files can reach a folder in any order (a sync tool copies them as it likes): what a
/// device ends with must not depend on it (issue 23, medium 3).
@Suite struct OutOfOrderDeliveryTests {
    /// Moves `device`'s operation files about `record` out of the remote folder, and returns
    /// a function that puts them back.
    private func hide(_ cluster: Cluster, filesOf device: Device, about record: EntityID,
                      keeping keep: (SyncOperation) -> Bool) throws -> () throws -> Void {
        let folder = cluster.remoteRoot + "/devices/" + device.deviceID
        let aside = try cluster.scratch.sub("aside-\(UUID().uuidString)")
        var moved: [String] = []
        for file in try cluster.operationFiles(on: cluster.folderRemote())
        where file.device == device.deviceID && file.operation.entityID == record && !keep(file.operation) {
            try FileManager.default.moveItem(atPath: folder + "/" + file.name, toPath: aside + "/" + file.name)
            moved.append(file.name)
        }
        #expect(!moved.isEmpty, "nothing was held back")
        return {
            for name in moved { try FileManager.default.moveItem(atPath: aside + "/" + name, toPath: folder + "/" + name) }
        }
    }

    @Test func aDeletionThatArrivesBeforeItsCreationKeepsTheNoteDeleted() throws {
        let cluster = try Cluster(label: "out-of-order")
        let a = try cluster.addDevice("A")
        let b = try cluster.addDevice("B")
        try b.sync()                  // B is known on the remote: A keeps its files until B has them
        let book = try a.addBook("Shared")
        let note = try a.addNote("written, then deleted", to: book)
        _ = try a.delete(note.id)
        try a.sync()
        // B sees the deletion first: the creation is still on its way.
        let putBack = try hide(cluster, filesOf: a, about: note.id) { $0.action == .delete }
        try b.sync()
        #expect(try b.note(note.id).deletedAt != nil, "B knows the note only as deleted")
        try putBack()
        try b.sync()
        try a.sync()

        #expect(try b.liveAnnotations().isEmpty, "the note stays deleted on B")
        #expect(try b.conflictIDs().isEmpty, "no conflict: the creation is older than the deletion")
        #expect(try b.store.read { tables throws(StoreError) in try tables.outbox.entries() }.isEmpty, "B sends nothing back")
        try expectConverged([a, b])
    }

    @Test func anEditThatArrivesAfterANewerEditIsSupersededNotAConflict() throws {
        let cluster = try Cluster(label: "out-of-order-edit")
        let a = try cluster.addDevice("A")
        let b = try cluster.addDevice("B")
        let book = try a.addBook("Shared")
        let note = try a.addNote("first", to: book)
        _ = try a.edit(note.id, "second")
        _ = try a.edit(note.id, "third")
        try a.sync()
        // B receives the newest version first, then the two before it.
        let putBack = try hide(cluster, filesOf: a, about: note.id) { operation in
            if case .annotation(let version) = operation.record { return version.annotation.body == "third" }
            return false
        }
        try b.sync()
        #expect(try b.note(note.id).body == "third", "B knows only the newest version")
        try putBack()
        try b.sync()
        #expect(try b.note(note.id).body == "third")
        #expect(try b.conflictIDs().isEmpty)
        try expectConverged([a, b])
    }
}
