import Foundation
import Testing
import Journal
@testable import Sync
@testable import VaultStore
import VaultCrypto

/// The pieces under the engine: backoff, operation files, the descriptor, the folder remote.
@Suite struct BackoffTests {
    @Test func delayIsFullJitterUnderTheExponentialCeiling() {
        let backoff = Backoff()
        #expect(backoff.baseMilliseconds == 2_000)
        #expect(backoff.capMilliseconds == 3_600_000)
        var generator = SystemRandomNumberGenerator()
        for attempt in 0..<30 {
            let ceiling = min(3_600_000, 2_000 * (Int64(1) << Int64(attempt)))
            for _ in 0..<200 {
                let delay = backoff.delay(afterAttempt: attempt, using: &generator)
                #expect(delay >= 0 && delay <= ceiling, "attempt \(attempt): \(delay) not in 0...\(ceiling)")
            }
        }
    }

    @Test func jitterVariesAndReachesBothEnds() {
        let backoff = Backoff(baseMilliseconds: 1_000, capMilliseconds: 60_000)
        var generator = SystemRandomNumberGenerator()
        let delays = (0..<500).map { _ in backoff.delay(afterAttempt: 3, using: &generator) }
        #expect(Set(delays).count > 100, "jitter should spread the delays")
        #expect(delays.min()! < 1_000, "full jitter reaches near zero")
        #expect(delays.max()! > 7_000, "full jitter reaches near the ceiling (8 s)")
    }

    @Test func capHoldsForHugeAttemptsAndNothingOverflows() {
        let backoff = Backoff()
        var generator = SystemRandomNumberGenerator()
        for attempt in [20, 40, 41, 62, 63, 64, 1_000, Int.max] {
            for _ in 0..<50 {
                let delay = backoff.delay(afterAttempt: attempt, using: &generator)
                #expect(delay >= 0 && delay <= 3_600_000, "attempt \(attempt): \(delay)")
            }
        }
        // A base so large that base·2^attempt overflows Int64: still capped, no trap.
        let huge = Backoff(baseMilliseconds: Int64.max / 2, capMilliseconds: 10_000)
        for attempt in [0, 1, 2, 40, 100] {
            #expect(huge.delay(afterAttempt: attempt, using: &generator) <= 10_000)
        }
        // Negative attempts count as none.
        for _ in 0..<50 { #expect(backoff.delay(afterAttempt: -5, using: &generator) <= 2_000) }
        // A zero base never waits.
        #expect(Backoff(baseMilliseconds: 0, capMilliseconds: 0).delay(afterAttempt: 7, using: &generator) == 0)
    }
}

@Suite struct OperationFileTests {
    static let clock = HybridTimestamp(wallMilliseconds: 1_767_225_600_123, counter: 7, deviceID: deviceID("d"))
    static let key = "0193f2a1-7c4e-7abc-8def-0123456789ab"

    static func outgoing(base: HybridTimestamp? = nil) -> OutgoingOperation {
        OutgoingOperation(outboxID: 1, idempotencyKey: key, entity: .annotation, action: .update,
                          entityID: "0193f2a1-0000-7abc-8def-0123456789ab", clock: clock, base: base, attempts: 0,
                          payload: Array(#"{"v":1}"#.utf8))
    }

    @Test func nameSortsByClockAndCarriesTheKey() throws {
        let name = OperationFile.name(clock: Self.clock, idempotencyKey: Self.key)
        #expect(name == "\(Self.clock.description).\(Self.key).op")
        #expect(OperationFile.idempotencyKey(inName: name) == Self.key)
        // Not operation files.
        for other in ["vault.json", ".tmp-1234", "a.b", "a.b.c.op", "\(Self.clock).\(Self.key).tmp", "x.y.op.bak"] {
            #expect(OperationFile.idempotencyKey(inName: other) == nil, "\(other)")
        }
        // Names sort in clock order, across wall time and counters.
        let later = HybridTimestamp(wallMilliseconds: Self.clock.wallMilliseconds, counter: 8, deviceID: deviceID("d"))
        let muchLater = HybridTimestamp(wallMilliseconds: Self.clock.wallMilliseconds + 1, counter: 0, deviceID: deviceID("d"))
        let names = [muchLater, Self.clock, later].map { OperationFile.name(clock: $0, idempotencyKey: Self.key) }
        #expect(names.sorted() == [Self.clock, later, muchLater].map { OperationFile.name(clock: $0, idempotencyKey: Self.key) })
    }

    @Test func decodeRoundTripsAndRefusesAMismatchedKeyDeviceOrNewerVersion() throws {
        let base = HybridTimestamp(wallMilliseconds: 5, counter: 0, deviceID: deviceID("e"))
        let file = OperationFile(Self.outgoing(base: base), device: deviceID("d"))
        let decoded = try OperationFile.decode(file.encoded(), expectedKey: Self.key, device: deviceID("d"))
        #expect(decoded.idempotencyKey == Self.key)
        #expect(decoded.deviceID == deviceID("d"))
        #expect(decoded.clock == Self.clock)
        #expect(decoded.base == base)
        #expect(decoded.entity == .annotation && decoded.action == .update)
        #expect(decoded.payload == Array(#"{"v":1}"#.utf8))

        #expect(throws: RemoteError.self) { try OperationFile.decode(file.encoded(), expectedKey: "another-key", device: deviceID("d")) }
        #expect(throws: RemoteError.self) { try OperationFile.decode(file.encoded(), expectedKey: Self.key, device: deviceID("f")) }

        // A newer format version is refused, and says so.
        var json = try #require(try JSONSerialization.jsonObject(with: Data(file.encoded())) as? [String: Any])
        json["v"] = OperationFile.version + 1
        let newer = Array(try JSONSerialization.data(withJSONObject: json))
        do {
            _ = try OperationFile.decode(newer, expectedKey: Self.key, device: deviceID("d"))
            Issue.record("a newer operation file was accepted")
        } catch {
            #expect(error == .malformed(what: "operation from a newer bmvault"))
        }
        // Garbage, an unknown entity, a bad clock or base: malformed.
        for change in [("entity", "shelf"), ("action", "merge"), ("hlc", "yesterday"), ("base", "nope")] {
            var bad = try #require(try JSONSerialization.jsonObject(with: Data(file.encoded())) as? [String: Any])
            bad[change.0] = change.1
            #expect(throws: RemoteError.self, "\(change.0)") {
                try OperationFile.decode(Array(try JSONSerialization.data(withJSONObject: bad)), expectedKey: Self.key, device: deviceID("d"))
            }
        }
        #expect(throws: RemoteError.self) { try OperationFile.decode(Array("not json".utf8), expectedKey: Self.key, device: deviceID("d")) }
        // A creation has no base.
        let creation = try OperationFile.decode(OperationFile(Self.outgoing(), device: deviceID("d")).encoded(), expectedKey: Self.key, device: deviceID("d"))
        #expect(creation.base == nil)
    }
}

@Suite struct RemoteDescriptorTests {
    static let slot = RemoteDescriptor.Slot(id: "slot-passphrase", kind: "passphrase", kdf: "argon2id13", opsLimit: 2,
                                            memLimit: 67_108_864, salt: [1, 2, 3], wrappedKey: [4, 5, 6])

    @Test func roundTripsAndRefusesForeignOrNewer() throws {
        let descriptor = RemoteDescriptor(vaultID: "v-1", keyID: "00112233aabbccdd", keyslots: [Self.slot], keyslotGeneration: 0)
        #expect(try RemoteDescriptor.decode(descriptor.encoded()) == descriptor)
        #expect(descriptor.format == "bmvault-remote" && descriptor.formatVersion == 1)

        var json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        json["format"] = "someone-elses-app"
        #expect(throws: RemoteError.malformed(what: "descriptor")) {
            try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        }
        json["format"] = "bmvault-remote"
        json["formatVersion"] = 2
        #expect(throws: RemoteError.malformed(what: "descriptor from a newer bmvault")) {
            try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        }
        #expect(throws: RemoteError.self) { try RemoteDescriptor.decode(Array("{}".utf8)) }
        #expect(throws: RemoteError.self) { try RemoteDescriptor.decode([]) }
    }

    /// Descriptors written before the keyslot generation existed still read, as generation 0.
    @Test func aDescriptorWithoutAGenerationReadsAsZero() throws {
        let descriptor = RemoteDescriptor(vaultID: "v-1", keyID: "00112233aabbccdd", keyslots: [Self.slot], keyslotGeneration: 3)
        var json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        #expect(json["keyslotGeneration"] as? Int == 3)
        json["keyslotGeneration"] = nil
        let older = try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        #expect(older.keyslotGeneration == nil && older.keyslots == [Self.slot])
    }

    /// What the descriptor holds in the clear: ids, KDF parameters, salts and wrapped keys —
    /// nothing else (SYNC.md's "what a remote can see").
    @Test func holdsOnlyIdsKDFParametersAndWrappedKeys() throws {
        let descriptor = RemoteDescriptor(vaultID: "v-1", keyID: "00112233aabbccdd", keyslots: [Self.slot], keyslotGeneration: 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        #expect(Set(json.keys) == ["format", "formatVersion", "vaultId", "keyId", "keyslots", "keyslotGeneration"])
        let slot = try #require((json["keyslots"] as? [[String: Any]])?.first)
        #expect(Set(slot.keys) == ["id", "kind", "kdf", "opsLimit", "memLimit", "salt", "wrappedKey"])
    }
}

@Suite struct FolderRemoteTests {
    @Test func writesAFileOnceAndLeavesNoTemporaryFile() throws {
        let scratch = try Scratch("folder")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try remote.checkReachable()
        #expect(try remote.devices() == [])
        #expect(try remote.readDescriptor() == nil)

        #expect(try remote.writeOperation("b.k2.op", of: "dev-2", bytes: [1]) == true)
        #expect(try remote.writeOperation("a.k1.op", of: "dev-2", bytes: [2, 2]) == true)
        #expect(try remote.writeOperation("c.k3.op", of: "dev-1", bytes: [3]) == true)
        // A second write of the same name: false, and the first content stays.
        #expect(try remote.writeOperation("a.k1.op", of: "dev-2", bytes: [9, 9, 9]) == false)
        #expect(try remote.readOperation("a.k1.op", of: "dev-2") == [2, 2])

        #expect(try remote.devices() == ["dev-1", "dev-2"])
        #expect(try remote.operationNames(of: "dev-2") == ["a.k1.op", "b.k2.op"])
        #expect(try remote.operationNames(of: "nobody") == [])

        // Nothing but the operation files: no temporary file left behind.
        let root = scratch.path + "/bmvault-vault-1/devices"
        for device in ["dev-1", "dev-2"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root + "/" + device)
            #expect(names.allSatisfy { $0.hasSuffix(".op") && !$0.hasPrefix(".") }, "\(names)")
        }
        // Files are private.
        let attributes = try FileManager.default.attributesOfItem(atPath: root + "/dev-2/a.k1.op")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func ignoresStrayFilesAndTemporaryNames() throws {
        let scratch = try Scratch("folder")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1])
        let directory = scratch.path + "/bmvault-vault-1/devices/dev-1"
        FileManager.default.createFile(atPath: directory + "/.tmp-leftover", contents: Data([0]))
        FileManager.default.createFile(atPath: directory + "/notes.txt", contents: Data([0]))
        try FileManager.default.createDirectory(atPath: scratch.path + "/bmvault-vault-1/devices/.hidden", withIntermediateDirectories: true)
        #expect(try remote.operationNames(of: "dev-1") == ["a.k1.op"])
        #expect(try remote.devices() == ["dev-1"])
    }

    @Test func descriptorIsReplacedAtomically() throws {
        let scratch = try Scratch("folder")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try remote.writeDescriptor(Array("one".utf8))
        try remote.writeDescriptor(Array("two".utf8))
        #expect(try remote.readDescriptor() == Array("two".utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/bmvault-vault-1")
        #expect(names == ["vault.json"], "\(names)")
    }

    @Test func unreachableWhenMissingNotADirectoryOrNotWritable() throws {
        let scratch = try Scratch("folder")
        #expect(throws: RemoteError.self) { try FolderRemote(name: "r", location: scratch.path + "/missing", vaultID: "v").checkReachable() }
        FileManager.default.createFile(atPath: scratch.path + "/file", contents: Data())
        #expect(throws: RemoteError.unreachable(errno: ENOTDIR)) { try FolderRemote(name: "r", location: scratch.path + "/file", vaultID: "v").checkReachable() }
        if getuid() != 0 {
            let readOnly = try scratch.sub("ro")
            chmod(readOnly, 0o500)
            defer { chmod(readOnly, 0o700) }
            #expect(throws: RemoteError.self) { try FolderRemote(name: "r", location: readOnly, vaultID: "v").checkReachable() }
        }
        do {
            try FolderRemote(name: "r", location: scratch.path + "/missing", vaultID: "v").checkReachable()
        } catch {
            #expect(error.errorClass == "unreachable" && error.isTemporary)
        }
    }

    @Test func errorClassesAndTemporaryOrPermanent() {
        #expect(RemoteError.unreachable(errno: 2).isTemporary)
        #expect(RemoteError.timedOut.isTemporary)
        #expect(RemoteError.io(operation: "link", errno: 5).isTemporary)
        #expect(!RemoteError.otherVault.isTemporary)
        #expect(!RemoteError.malformed(what: "operation").isTemporary)
        #expect(RemoteError.io(operation: "link", errno: 5).errorClass == "io.link")
        #expect(RemoteError.malformed(what: "x").errorClass == "malformed")
    }
}

/// Operation files are sealed and bound: a file renamed to another key, or copied into
/// another vault's folder, does not open; nothing in it is readable.
@Suite struct OperationSealingTests {
    @Test func aRemoteFileHoldsNoPlaintextAndOpensOnlyUnderItsOwnKeyAndVault() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let book = try a.addBook("Canary Title Zq9", authors: ["Canary Author Zq9"])
        let note = try a.addNote("Canary note body Zq9 on page 12", to: book)
        try a.sync()

        let remote = cluster.folderRemote()
        let names = try remote.operationNames(of: a.deviceID)
        #expect(names.count == 2)
        for name in names {
            let bytes = try remote.readOperation(name, of: a.deviceID)
            for canary in ["Canary", "Zq9", book.id.rawValue, note.id.rawValue, "annotation", "\"book\""] {
                #expect(!contains(bytes, Array(canary.utf8)), "\(name) holds \(canary) in the clear")
            }
        }

        // Renamed to another idempotency key: does not open.
        let name = names[1]
        let key = try #require(OperationFile.idempotencyKey(inName: name))
        let sealed = try remote.readOperation(name, of: a.deviceID)
        #expect(try a.store.openRemoteOperation(sealed, idempotencyKey: key).isEmpty == false)
        let otherKey = EntityID.generate(at: a.clock.now()).rawValue
        #expect(throws: StoreError.self) { try a.store.openRemoteOperation(sealed, idempotencyKey: otherKey) }

        // Copied into another vault's folder: even under the SAME key, another vault id in
        // the associated data does not open it (and the same vault id, as a control, does).
        let sameVault = FieldSealer(key: cluster.key, vaultID: cluster.metadata.vaultID)
        #expect(try sameVault.open(sealed, table: "remote-operation", recordID: key, field: "operation").isEmpty == false)
        let otherVault = FieldSealer(key: cluster.key, vaultID: UUID().uuidString.lowercased())
        #expect(throws: CryptoError.self) { try otherVault.open(sealed, table: "remote-operation", recordID: key, field: "operation") }
        // Nor as an outbox payload or a record field of this vault: the table and field are bound too.
        #expect(throws: CryptoError.self) { try sameVault.open(sealed, table: "outbox", recordID: key, field: "payload") }
        // And a vault with another key refuses it outright.
        let other = try Cluster()
        let stranger = try other.addDevice("s")
        #expect(throws: StoreError.self) { try stranger.store.openRemoteOperation(sealed, idempotencyKey: key) }

        // And an engine reading such files counts them as unreadable and applies nothing.
        let b = try cluster.addDevice("b")
        let renamedDirectory = cluster.remoteRoot + "/devices/" + deviceID("9")
        try FileManager.default.createDirectory(atPath: renamedDirectory, withIntermediateDirectories: true)
        let clockPart = name.split(separator: ".")[0]
        try Data(sealed).write(to: URL(fileURLWithPath: renamedDirectory + "/\(clockPart).\(otherKey).op"))
        // Same name, but moved under another device's folder: the device inside does not match.
        try Data(sealed).write(to: URL(fileURLWithPath: renamedDirectory + "/" + name))
        let summary = try b.sync()
        #expect(summary.rejected == 2)
        #expect(summary.pulled == 2)
        #expect(try b.liveAnnotations().map(\.body) == ["Canary note body Zq9 on page 12"])
    }

    @Test func aFlippedByteDoesNotOpen() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.addBook("Title")
        try a.sync()
        let remote = cluster.folderRemote()
        let name = try #require(try remote.operationNames(of: a.deviceID).first)
        var sealed = try remote.readOperation(name, of: a.deviceID)
        sealed[sealed.count / 2] ^= 0x40
        #expect(throws: StoreError.self) { try a.store.openRemoteOperation(sealed, idempotencyKey: OperationFile.idempotencyKey(inName: name)!) }
    }
}

/// True when `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
}
