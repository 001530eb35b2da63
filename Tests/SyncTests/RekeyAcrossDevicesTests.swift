import Foundation
import Testing
import Journal
@testable import Sync
@testable import SyncWire
@testable import VaultStore
import VaultCrypto

/// A rekey on one device reaches the others (issue 17, item 3): the new keyslots and the key
/// chain go to the remote with the rekeying device's next sync; a device still on the old key
/// leaves that remote alone and says so until its next unlock takes the new key up; what was
/// written under an old key stays readable to every device, and to one that joins later.
@Suite struct RekeyAcrossDevicesTests {
    /// Two devices in step, then A rekeys, writes, and syncs.
    private func rekeyedOnA() throws -> (Cluster, Device, Device, Book) {
        let cluster = try Cluster(label: "rekey")
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Solaris")
        try a.addNote("written on A before the rekey", to: book)
        try b.addBook("Le Petit Prince")
        try syncUntilQuiet([a, b])
        try a.rekey()
        try a.addNote("written on A after the rekey", to: book)
        try a.sync()
        return (cluster, a, b, book)
    }

    @Test func theRekeyingDevicePublishesItsKeyslotsAndChain() throws {
        let (cluster, a, _, _) = try rekeyedOnA()
        let descriptor = try RemoteDescriptor.decode(try #require(try cluster.folderRemote().readDescriptor()))
        #expect(descriptor.keyId == a.key.id.description)
        #expect(descriptor.keyslotGeneration == 1)
        #expect(descriptor.retiredKeys()?.map(\.id) == [cluster.key.id], "the old key travels, sealed under the new one")
        let opened = try #require(descriptor.retiredKeys()?.first).open(with: FieldSealer(key: a.key, vaultID: cluster.metadata.vaultID))
        #expect(opened.id == cluster.key.id)
        // Sealed under the new key only: the old key cannot open its own entry.
        #expect(throws: CryptoError.self) {
            try descriptor.retiredKeys()?.first?.open(with: FieldSealer(key: cluster.key, vaultID: cluster.metadata.vaultID))
        }
    }

    @Test func aDeviceOnTheOldKeyLeavesTheRemoteAloneAndSaysSo() throws {
        let (cluster, _, b, _) = try rekeyedOnA()
        let book = try #require(try b.store.read { tables throws(StoreError) in try tables.books.all() }.compactMap { try? $0.get() }.first { $0.title == "Le Petit Prince" })
        try b.addNote("written on B, still on the old key", to: book)
        let filesBefore = try cluster.remoteOperationFiles()

        let summary = try b.sync()
        #expect(summary.rekeyedElsewhere == [remoteName])
        #expect(summary.shortfall == .rekeyedElsewhere(remotes: [remoteName]))
        #expect(summary.pushed == 0 && summary.pulled == 0 && summary.rejected == 0)
        #expect(try cluster.remoteOperationFiles() == filesBefore, "nothing new went to the remote under the retired key")
        #expect(try b.waitingOperations().count == 1, "B's note waits in its outbox")
    }

    @Test func takingUpTheNewKeyBringsTheDevicesTogether() throws {
        let (cluster, a, b, _) = try rekeyedOnA()
        let book = try #require(try b.store.read { tables throws(StoreError) in try tables.books.all() }.compactMap { try? $0.get() }.first { $0.title == "Le Petit Prince" })
        try b.addNote("written on B, still on the old key", to: book)
        try b.sync()

        #expect(try b.takeUpRekeyMadeElsewhere())
        #expect(b.key.id == a.key.id && b.store.metadata.keyID == a.key.id)
        #expect(try b.store.read { tables throws(StoreError) in try tables.keys.retired() }.map(\.id) == [cluster.key.id])
        #expect(try b.store.read { tables throws(StoreError) in try tables.keys.generation() } == 1, "the same chain as A's: nothing to publish")
        #expect(try !b.takeUpRekeyMadeElsewhere(), "taken up once")

        try syncUntilQuiet([a, b])
        for device in [a, b] { #expect(try device.sync().shortfall == nil) }
        try expectConverged([a, b])
        let bodies = Set(try a.liveAnnotations().map(\.body))
        #expect(bodies == ["written on A before the rekey", "written on A after the rekey", "written on B, still on the old key"])
        // B's note went out under the new key: its file does not open with the old one.
        let old = OperationCipher(sealer: FieldSealer(key: cluster.key, vaultID: cluster.metadata.vaultID))
        let remote = cluster.folderRemote()
        let name = try #require(try remote.operationNames(of: b.deviceID).last)
        #expect(throws: CryptoError.keyMismatch) {
            try old.open(operation: try remote.readOperation(name, of: b.deviceID),
                         idempotencyKey: try #require(OperationFileName.idempotencyKey(in: name)))
        }
    }

    /// The reproduction at this level: a device joining after the rekey reads the
    /// files written before it (under the old key) as well as after.
    @Test func aDeviceJoiningAfterTheRekeyGetsTheWholeJournal() throws {
        let (cluster, a, b, _) = try rekeyedOnA()
        for index in 1...8 { try a.addBook("Book \(index)") }
        try a.sync()
        try b.takeUpRekeyMadeElsewhere()
        try syncUntilQuiet([a, b])

        let c = try cluster.addDevice("c")
        #expect(try c.takeUpRekeyMadeElsewhere(), "a new device takes the key and chain the remote holds")
        let summary = try c.sync()
        #expect(summary.rejected == 0 && summary.shortfall == nil)
        try expectConverged([a, b, c])
        #expect(try c.store.read { tables throws(StoreError) in try tables.books.all() }.count == 10)
    }

    @Test func aDeviceThatMissedTwoRekeysTakesUpTheLatest() throws {
        let (cluster, a, b, book) = try rekeyedOnA()
        try a.rekey()
        try a.addNote("written on A after the second rekey", to: book)
        try a.sync()
        #expect(try b.takeUpRekeyMadeElsewhere())
        #expect(b.key.id == a.key.id)
        #expect(Set(try b.store.read { tables throws(StoreError) in try tables.keys.retired() }.map(\.id)) == Set(cluster.keys.dropLast().map(\.id)))
        try syncUntilQuiet([a, b])
        try expectConverged([a, b])
        #expect(try b.liveAnnotations().count == 3)
    }

    /// A passphrase change on B counted a generation A never heard of: A's rekey still wins
    /// (it retired the key B's slots wrap), and B follows it, instead of the two devices
    /// putting their descriptors back in turn.
    @Test func aRekeyBeatsAPassphraseChangeMadeMeanwhile() throws {
        let cluster = try Cluster(label: "rekey")
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        try a.addBook("Solaris")
        try syncUntilQuiet([a, b])
        let newSlot = try #require(try placeholderKeyslots().first)
        try b.store.write { tables throws(StoreError) in try tables.keys.replace(newSlot) }
        try b.sync()
        try a.rekey()
        try a.sync()
        let descriptor = try RemoteDescriptor.decode(try #require(try cluster.folderRemote().readDescriptor()))
        #expect(descriptor.keyId == a.key.id.description, "the rekey's keyslots replaced the passphrase change's")
        #expect(try b.sync().rekeyedElsewhere == [remoteName])
        #expect(try a.sync().shortfall == nil, "A does not take B's slots back")
        #expect(try b.takeUpRekeyMadeElsewhere())
        try syncUntilQuiet([a, b])
        try expectConverged([a, b])
    }

    /// A passphrase changed on one device (the same key, keyslots of a higher generation,
    /// sealed under it) reaches the others at their next sync: they take its keyslots up, and
    /// the device that made it finds nothing newer. Keyslots whose seal does not open under
    /// the key are never taken: a real slot beside a made-up one, a raised generation, the
    /// seal removed. Nor are sealed ones once this device's own changed meanwhile.
    @Test func keyslotsChangedElsewhereAreTakenUpOnlyWhenSealedUnderTheKey() throws {
        let cluster = try Cluster(label: "rekey")
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        try a.addBook("Solaris")
        try syncUntilQuiet([a, b])
        let changed = { (device: Device) throws -> KeyslotsChangedElsewhere? in
            KeyslotsChangedElsewhere.newest(among: RemoteDescriptor.read(from: [cluster.folderRemote()], vaultID: cluster.metadata.vaultID),
                                            keyID: device.key.id, generation: try device.store.read { tables throws(StoreError) in try tables.keys.generation() },
                                            keyChain: try device.store.read { tables throws(StoreError) in try tables.keys.retired() })
        }
        let madeUp = placeholderKeyslot(id:kind:)
        #expect(try changed(b) == nil)
        let slotChangedOnA = try madeUp("slot-changed-on-a", .passphrase)
        try a.store.write { tables throws(StoreError) in try tables.keys.replace(slotChangedOnA) }
        try a.sync()
        #expect(try changed(b)?.remote == remoteName)
        #expect(try changed(a) == nil, "its own change, at its own generation")
        #expect(try b.sync().keyslotsTakenUp == remoteName)
        let slotsOfA = try a.store.read { tables throws(StoreError) in try tables.keys.slots() }.map(\.id)
        let generationOfA = try a.store.read { tables throws(StoreError) in try tables.keys.generation() }
        #expect(try b.store.read { tables throws(StoreError) in try tables.keys.slots() }.map(\.id) == slotsOfA)
        #expect(try b.store.read { tables throws(StoreError) in try tables.keys.generation() } == generationOfA)
        #expect(try changed(b) == nil && b.sync().keyslotsTakenUp == nil, "taken up once")

        // Forged by whoever can write the folder: A's real passphrase slot beside a made-up
        // recovery slot, at a higher generation, with A's seal (of the real ones) or none.
        let path = URL(fileURLWithPath: cluster.remoteRoot + "/vault.json")
        let genuine = try RemoteDescriptor.decode(Array(try Data(contentsOf: path)))
        var forged = try #require(try JSONSerialization.jsonObject(with: Data(genuine.encoded())) as? [String: Any])
        let passphraseSlot = try #require(genuine.vaultKeyslots()?.first { $0.kind == .passphrase })
        let slots = [passphraseSlot, try madeUp("slot-made-up", .recovery)]
        let forgedSlots = RemoteDescriptor(vaultID: genuine.vaultId, keyID: b.key.id, keyslots: slots, keyslotGeneration: 0, keyChain: []).keyslots
        forged["keyslots"] = try forgedSlots.map { try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode($0)) as? [String: Any]) }
        forged["keyslotGeneration"] = (genuine.keyslotGeneration ?? 0) + 5
        let before = try b.store.read { tables throws(StoreError) in try tables.keys.slots() }.map(\.id)
        for withSeal in [true, false] {
            if !withSeal { forged.removeValue(forKey: "keyslotsSeal") }
            try JSONSerialization.data(withJSONObject: forged).write(to: path)
            #expect(try changed(b) != nil, "newer by its generation")
            #expect(try b.sync().keyslotsTakenUp == nil, "seal kept: \(withSeal)")
            #expect(try b.store.read { tables throws(StoreError) in try tables.keys.slots() }.map(\.id) == before)
        }

        // Sealed keyslots, but this device's own changed since their generation was read.
        let generation = try b.store.read { tables throws(StoreError) in try tables.keys.generation() }
        let slotChangedOnB = try madeUp("slot-changed-on-b", .passphrase)
        try b.store.write { tables throws(StoreError) in try tables.keys.replace(slotChangedOnB) }
        let genuineSlots = try #require(genuine.vaultKeyslots())
        #expect(try !b.store.write { tables throws(StoreError) in try tables.keys.adopt(genuineSlots, generation: generation + 7, replacing: generation) })
        #expect(try b.store.read { tables throws(StoreError) in try tables.keys.slots() }.contains { $0.id == "slot-changed-on-b" })

        try a.rekey()
        try a.sync()
        #expect(try changed(b) == nil, "a rekey is another key's keyslots")
    }

    /// Someone who kept the old key and can write the folder puts the descriptor of before
    /// the rekey back, claiming it retired the new key: no device takes it for newer, and
    /// the next sync puts the real one back (review finding: a replayed descriptor).
    @Test func aReplayedDescriptorOfARetiredKeyLeadsNowhere() throws {
        let cluster = try Cluster(label: "rekey")
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        try a.addBook("Solaris")
        try syncUntilQuiet([a, b])
        let path = cluster.remoteRoot + "/vault.json"
        let before = try RemoteDescriptor.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        try a.rekey()
        try a.sync()
        try b.takeUpRekeyMadeElsewhere()
        try syncUntilQuiet([a, b])

        let forged = RemoteDescriptor(vaultID: before.vaultId, keyID: cluster.key.id, keyslots: try #require(before.vaultKeyslots()),
                                      keyslotGeneration: 99, keyChain: [RetiredKey(id: a.key.id, sealed: [1, 2, 3])])
        try Data(forged.encoded()).write(to: URL(fileURLWithPath: path))
        #expect(RekeyMadeElsewhere.newest(among: RemoteDescriptor.read(from: [cluster.folderRemote()], vaultID: cluster.metadata.vaultID), keyID: b.key.id,
                                          generation: try b.store.read { tables throws(StoreError) in try tables.keys.generation() }, keyChain: try b.store.read { tables throws(StoreError) in try tables.keys.retired() }) == nil)
        let summary = try b.sync()
        #expect(summary.rekeyedElsewhere.isEmpty && summary.shortfall == nil)
        let restored = try RemoteDescriptor.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(restored.keyId == a.key.id.description, "the sync put the current descriptor back")
    }

    /// After two rekeys at once, the winner changes its keyslots twice before the loser's
    /// longer chain reaches the remote: the winner's newer descriptor must not drop the
    /// loser's retired key, under which the loser wrote files (review finding).
    @Test func aRetiredKeyIsNeverDroppedFromTheRemote() throws {
        let cluster = try Cluster(label: "rekey")
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Solaris")
        try syncUntilQuiet([a, b])
        try a.rekey()
        try b.rekey()
        let (winner, loser) = a.key.id.description < b.key.id.description ? (a, b) : (b, a)
        try loser.addNote("written under the key that lost", to: book)
        try winner.sync()
        try loser.sync()
        let losingKey = loser.key.id
        #expect(try loser.takeUpRekeyMadeElsewhere())
        for _ in 0..<2 {
            let newSlot = try #require(try placeholderKeyslots().first)
            try winner.store.write { tables throws(StoreError) in try tables.keys.replace(newSlot) }
        }
        try winner.sync()
        try loser.sync()
        try winner.sync()
        #expect(try winner.store.read { tables throws(StoreError) in try tables.keys.retired() }.contains { $0.id == losingKey })
        try syncUntilQuiet([a, b])
        for device in [a, b] { #expect(try device.sync().shortfall == nil) }
        #expect(try winner.liveAnnotations().map(\.body) == ["written under the key that lost"])
    }

    /// Two devices rekey before either syncs: they settle on one key (the higher generation,
    /// then the lower key id), the one that follows adds its own retired key to the chain
    /// and publishes it, and the other takes that entry up at its next sync.
    @Test func twoRekeysAtOnceSettleOnOneKey() throws {
        let cluster = try Cluster(label: "rekey")
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let book = try a.addBook("Solaris")
        try syncUntilQuiet([a, b])
        try a.rekey()
        try b.rekey()
        try a.addNote("A, under A's new key", to: book)
        try b.addNote("B, under B's new key", to: book)
        try a.sync()
        try b.sync()
        let (winner, loser) = a.key.id.description < b.key.id.description ? (a, b) : (b, a)

        #expect(try winner.sync().rekeyedElsewhere.isEmpty)
        #expect(try loser.sync().rekeyedElsewhere == [remoteName])
        let losingKey = loser.key.id
        #expect(try loser.takeUpRekeyMadeElsewhere())
        #expect(try loser.store.read { tables throws(StoreError) in try tables.keys.generation() } == 2, "the loser holds a key the winner's chain lacks, so it publishes")
        try syncUntilQuiet([a, b])
        for device in [a, b] { #expect(Set(try device.store.read { tables throws(StoreError) in try tables.keys.retired() }.map(\.id)) == [cluster.key.id, losingKey]) }
        for device in [a, b] { #expect(try device.sync().shortfall == nil) }
        try expectConverged([a, b])
        #expect(Set(try a.liveAnnotations().map(\.body)) == ["A, under A's new key", "B, under B's new key"])

        let c = try cluster.addDevice("c")
        try c.takeUpRekeyMadeElsewhere()
        #expect(try c.sync().shortfall == nil)
        try expectConverged([a, b, c])
    }
}
