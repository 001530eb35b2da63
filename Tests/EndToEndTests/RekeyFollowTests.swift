import Foundation
import Testing

/// `rekey` on one device reaches the others through the remote (issue 17, item 3), with the
/// built binary: the other device's sync says what to do and exits non-zero, its next
/// `unlock` takes the new key up, and a device joining afterwards gets the whole journal.
@Suite struct RekeyFollowTests {
    private static let rekeyedElsewhere = "the vault was rekeyed on another device"

    /// Device B, with a keyring of its own: A's rekey replaces the key A keeps under the
    /// vault's id, which on one keyring would be B's entry too.
    private func joinOnItsOwnKeyring(_ world: SyncWorld) throws -> (TestVault, PrivateBus) {
        let bus = try PrivateBus()
        try bus.startKeyring()
        return (try world.join(environment: bus.environment([:])), bus)
    }

    /// A with a book, synced; B joined through the same folder, on a keyring of its own.
    private func twoDevices() throws -> (SyncWorld, TestVault, TestVault, PrivateBus) {
        let world = try SyncWorld()
        let a = world.first
        try a.succeed(["book", "add", "Solaris"])
        try a.succeed(["sync"])
        let (b, bus) = try joinOnItsOwnKeyring(world)
        return (world, a, b, bus)
    }

    /// The remote's descriptor, `vault.json`.
    private func descriptor(_ world: SyncWorld) throws -> URL {
        let root = try #require(try FileManager.default.contentsOfDirectory(atPath: world.folder.path).first { $0.hasPrefix("bmvault-") })
        return world.folder.appendingPathComponent(root).appendingPathComponent("vault.json")
    }

    /// What a query reads from a device's vault file.
    private func value(_ vault: TestVault, _ sql: String) throws -> String {
        try Binary.run("/usr/bin/sqlite3", [vault.databasePath, sql], environment: vault.environment).line
    }

    private func titles(_ vault: TestVault) throws -> [String] {
        try #require(try vault.json(["book", "list", "--json"]) as? [[String: Any]]).compactMap { $0["title"] as? String }.sorted()
    }

    /// The issue's reproduction: after `rekey` on A, B's syncs said "unreadable operations
    /// skipped" with exit 0 for ever, and a device joining later got 4 books of 10.
    @Test func theOtherDeviceFollowsAndAJoinerGetsEverything() throws {
        let world = try SyncWorld()
        let a = world.first
        for index in 1...4 { try a.succeed(["book", "add", "Before the rekey \(index)"]) }
        try a.succeed(["sync"])
        let (b, bus) = try joinOnItsOwnKeyring(world)
        try withExtendedLifetime((b, bus)) {
            let rekeyed = try a.run(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(rekeyed.status == 0, "\(rekeyed)")
            let newRecoveryKey = rekeyed.line
            for index in 1...6 { try a.succeed(["book", "add", "After the rekey \(index)"]) }
            try a.succeed(["sync"])

            try b.succeed(["note", "add", "before the rekey 1", "typed on B before it took up the new key"])
            let behind = try b.run(["sync"])
            #expect(behind.status == 1, "\(behind)")
            #expect(behind.stderr.contains(Self.rekeyedElsewhere) && behind.stderr.contains("run `bmvault unlock`"), "\(behind)")
            #expect(!behind.stdout.contains("unreadable"), "nothing is counted unreadable: \(behind)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try b.run(["sync", "--json"]).stdout.utf8)) as? [String: Any])
            #expect(json["rekeyedElsewhere"] as? [String] == ["origin"])

            // B is unlocked, under the old key: `unlock` asks for the passphrase again and takes the new key up.
            let unlocked = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(unlocked.status == 0, "\(unlocked)")
            #expect(unlocked.stderr.contains("Took up the new vault key"), "\(unlocked)")
            let again = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(again.stderr.contains("Already unlocked"), "taken up once: \(again)")

            try b.succeed(["sync"])
            try a.succeed(["sync"])
            #expect(try titles(b).count == 10)
            #expect(try a.journal() == b.journal())

            let c = try world.join()
            try withExtendedLifetime(c) { () throws in
                #expect(try titles(c) == titles(a), "the joiner reads what was written under the old key too")
                #expect(try c.journal() == a.journal())
            }

            // The recovery key printed by A's rekey opens B now; the passphrase did not change.
            try b.succeed(["lock"])
            try b.succeed(["unlock", "--recovery-key-stdin"], stdin: newRecoveryKey + "\n")
            #expect(try titles(b).count == 10)
        }
    }

    /// Someone who kept the old key and can write the folder puts the descriptor of before
    /// the rekey back, claiming it retired the new key, with the old passphrase slot (which
    /// the passphrase still opens): unlock does not go back to the old key, and the next
    /// sync puts the real descriptor back.
    @Test func aReplayedDescriptorIsNotFollowedBack() throws {
        let (world, a, b, bus) = try twoDevices()
        try withExtendedLifetime((b, bus)) {
            let descriptorFile = try descriptor(world)
            let old = try Data(contentsOf: descriptorFile)
            try a.succeed(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            try a.succeed(["sync"])
            try b.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            let keyID = { (vault: TestVault) in try value(vault, "SELECT value FROM vault_meta WHERE key = 'key_id'") }
            let current = try keyID(b)
            #expect(current == (try keyID(a)))

            var forged = try #require(try JSONSerialization.jsonObject(with: old) as? [String: Any])
            forged["keyslotGeneration"] = 99
            forged["keyChain"] = [["keyId": current, "sealedKey": "AAAA"]]
            try JSONSerialization.data(withJSONObject: forged).write(to: descriptorFile)
            try b.succeed(["lock"])
            let unlocked = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(unlocked.status == 0 && !unlocked.stderr.contains("Took up"), "\(unlocked)")
            #expect(try keyID(b) == current)
            let synced = try b.run(["sync"])
            #expect(synced.status == 0, "\(synced)")
            let back = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: descriptorFile)) as? [String: Any])
            #expect(back["keyId"] as? String == current, "the sync put the current descriptor back")
        }
    }

    /// Killed while it re-encrypts, the unlock that took the new key up leaves the journal
    /// closed but whole; the next `unlock` finishes the job.
    @Test func anInterruptedTakeUpResumesAtTheNextUnlock() throws {
        let world = try SyncWorld()
        let a = world.first
        try a.succeed(["book", "add", "Solaris"])
        try a.succeed(["note", "add", "solaris", "the ocean thinks"])
        try a.succeed(["sync"])
        let (b, bus) = try joinOnItsOwnKeyring(world)
        try withExtendedLifetime((b, bus)) {
            try b.succeed(["note", "add", "solaris", "typed on B"])
            try a.succeed(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            try a.succeed(["sync"])

            let killed = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n",
                                   environment: ["BMVAULT_TEST_CRASH_AT": "rekey:batch:1"])
            #expect(killed.status == 137, "expected SIGKILL: \(killed)")
            #expect(try b.run(["list"]).stderr.contains("a rekey was interrupted"))
            let resumed = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(resumed.status == 0 && resumed.stderr.contains("Took up the new vault key"), "\(resumed)")
            try b.succeed(["sync"])
            try a.succeed(["sync"])
            #expect(try a.journal() == b.journal())
            #expect(try b.journal().contains { $0.contains("typed on B") })
        }
    }

    /// A device whose passphrase differs from the one the rekey was made with unlocks under
    /// its old key, is told, and takes the key up when given the other passphrase.
    @Test func aDifferentPassphraseIsNamedAndThenTakesItUp() throws {
        let (world, a, b, bus) = try twoDevices()
        try withExtendedLifetime((world, b, bus)) {
            let other = "another passphrase entirely"
            try a.succeed(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"], stdin: TestVault.passphrase + "\n" + other + "\n")
            try a.succeed(["rekey", "--passphrase-stdin"], stdin: other + "\n")
            try a.succeed(["book", "add", "Written after the rekey"])
            try a.succeed(["sync"])

            try b.succeed(["lock"])
            let old = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(old.status == 0, "\(old)")
            #expect(old.stderr.contains("what you typed does not open its new key"), "\(old)")
            #expect(try b.run(["sync"]).status == 1)

            let taken = try b.run(["unlock", "--passphrase-stdin"], stdin: other + "\n")
            #expect(taken.status == 0 && taken.stderr.contains("Took up the new vault key"), "\(taken)")
            try b.succeed(["sync"])
            #expect(try titles(b) == ["Solaris", "Written after the rekey"])
        }
    }

    /// A passphrase changed on A (the key unchanged) reaches B through the remote, sealed
    /// under the key: B's old passphrase still unlocks it and says newer keyslots wait; the
    /// new one takes A's keyslots up at unlock, after which the old passphrase no longer
    /// opens B. A recovery key rotated on A is taken up by B's next sync. Keyslots whose seal
    /// does not open under the key (A's real passphrase slot beside a made-up recovery slot,
    /// at a higher generation) change nothing, at unlock or at sync.
    @Test func aPassphraseChangedElsewhereIsTakenUpWithTheNewOne() throws {
        let (world, a, b, bus) = try twoDevices()
        try withExtendedLifetime((b, bus)) {
            let slots = { (vault: TestVault) in try value(vault, "SELECT group_concat(id) FROM (SELECT id FROM keyslot ORDER BY kind)") }
            let changed = "a passphrase changed on device A"
            try a.succeed(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"], stdin: TestVault.passphrase + "\n" + changed + "\n")
            try a.succeed(["sync"])

            try b.succeed(["lock"])
            let old = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(old.status == 0 && old.stderr.contains("opens only this device's older ones"), "\(old)")
            #expect(try slots(b) != slots(a), "nothing taken up with the old passphrase")
            try b.succeed(["lock"])
            let taken = try b.run(["unlock", "--passphrase-stdin"], stdin: changed + "\n")
            #expect(taken.status == 0 && taken.stderr.contains("Took up the passphrase and recovery key set on another device"), "\(taken)")
            #expect(try slots(b) == slots(a))
            try b.succeed(["lock"])
            let refused = try b.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            #expect(refused.status == 77 && refused.stderr.contains("wrong passphrase"), "the replaced passphrase no longer opens B: \(refused)")
            let again = try b.run(["unlock", "--passphrase-stdin"], stdin: changed + "\n")
            #expect(again.status == 0 && !again.stderr.contains("Took up") && !again.stderr.contains("Note"), "taken up once: \(again)")

            // A new recovery key made on A: B's next sync takes it up, and says so.
            let rotated = try a.run(["recovery-key", "rotate", "--passphrase-stdin"], stdin: changed + "\n")
            #expect(rotated.status == 0, "\(rotated)")
            let recoveryKey = try #require(rotated.stdout.split(separator: "\n").map(String.init).first { $0.filter { $0 == "-" }.count >= 4 })
            try a.succeed(["sync"])
            let synced = try b.run(["sync", "--json"])
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(synced.stdout.utf8)) as? [String: Any])
            #expect(synced.status == 0 && summary["keyslotsTakenUpFrom"] as? String == "origin", "\(synced)")
            #expect(try slots(b) == slots(a))
            try b.succeed(["lock"])
            try b.succeed(["unlock", "--recovery-key-stdin"], stdin: recoveryKey + "\n")
            #expect(try b.succeed(["sync"]).stderr.contains("Took up") == false, "taken up once")

            // Forged: A's real passphrase slot beside a made-up recovery slot, at a higher
            // generation, A's seal kept: neither B's unlock nor its sync takes them.
            let descriptorFile = try descriptor(world)
            var forged = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: descriptorFile)) as? [String: Any])
            var forgedSlots = try #require(forged["keyslots"] as? [[String: Any]])
            let recovery = try #require(forgedSlots.firstIndex { $0["kind"] as? String == "recovery" })
            var madeUp = [UInt8](repeating: 0x5A, count: 73)
            madeUp[0] = 1                                  // the format byte a well-formed slot begins with
            forgedSlots[recovery]["wrappedKey"] = Data(madeUp).base64EncodedString()
            forged["keyslots"] = forgedSlots
            forged["keyslotGeneration"] = 99
            try JSONSerialization.data(withJSONObject: forged).write(to: descriptorFile)
            let before = try slots(b)
            try b.succeed(["lock"])
            let unlocked = try b.run(["unlock", "--passphrase-stdin"], stdin: changed + "\n")
            #expect(unlocked.status == 0 && !unlocked.stderr.contains("Took up") && !unlocked.stderr.contains("Note"), "\(unlocked)")
            let resynced = try b.run(["sync"])
            #expect(resynced.status == 0 && !resynced.stderr.contains("Took up"), "\(resynced)")
            #expect(try slots(b) == before, "forged keyslots are not taken")
            try b.succeed(["lock"])
            try b.succeed(["unlock", "--recovery-key-stdin"], stdin: recoveryKey + "\n")
        }
    }
}
