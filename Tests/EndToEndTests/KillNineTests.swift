import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The kill -9 matrix (issue 23): each command that writes, killed with SIGKILL at a moment
/// drawn from a seed, many times. After every kill the vault opens, `check` finds no damage,
/// and no write the reader saw acknowledged is gone; what the killed command was doing is
/// either wholly there or wholly not. (Points named inside the code are killed at exactly
/// by `BMVAULT_TEST_CRASH_AT` in the suites of each command; these land anywhere: a seed
/// gives the same moments, where they fall in the command's work varies with the machine.)
@Suite(.serialized) struct KillNineTests {
    static let runsPerCommand = 6

    /// Starts `bmvault arguments` for `vault` and kills it with SIGKILL after `microseconds`
    /// (it may have finished by then); returns whether the kill landed.
    @discardableResult
    private func runKilled(_ vault: TestVault, _ arguments: [String], stdin: String? = nil, after microseconds: UInt32) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = arguments
        process.environment = vault.environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        usleep(microseconds)
        let landed = kill(process.processIdentifier, SIGKILL) == 0 && process.isRunning
        process.waitUntilExit()
        return landed && process.terminationReason == .uncaughtSignal
    }

    private func bodies(_ vault: TestVault) throws -> Set<String> {
        let listed = try vault.run(["list", "--json"])
        #expect(listed.status == 0, "after a kill the journal must read: \(listed)")
        let notes = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        return Set(notes.compactMap { $0["body"] as? String })
    }

    private func expectSound(_ vault: TestVault, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let checked = try vault.run(["check"])
        #expect(checked.status == 0, "\(context): \(checked)", sourceLocation: sourceLocation)
    }

    private func delays(seed: UInt64, upTo maximum: UInt32) -> [UInt32] {
        var generator = SeededGenerator(seed: seed)
        return (0..<Self.runsPerCommand).map { _ in UInt32(generator.next() % UInt64(maximum)) }
    }

    @Test func addEditAndDelete() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Solaris"])
        var acknowledged = Set<String>()
        var kills = 0
        for (run, delay) in delays(seed: 1, upTo: 60_000).enumerated() {
            let body = "added in run \(run)"
            let landed = try runKilled(vault, ["note", "add", "solaris", body], after: delay)
            if landed { kills += 1 }
            let now = try bodies(vault)
            #expect(acknowledged.isSubset(of: now), "an acknowledged note is gone after a kill")
            if !landed { #expect(now.contains(body), "a note add that finished is there") }
            acknowledged.formUnion(now)
            try expectSound(vault, "note add killed after \(delay) µs")
        }
        // Every add above may have been killed before it committed (a slow, busy machine): the
        // edits need a note to work on either way.
        try vault.succeed(["note", "add", "solaris", "added without a kill"])
        let notes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        for (run, delay) in delays(seed: 2, upTo: 60_000).enumerated() {
            let target = try #require(notes[run % notes.count]["id"] as? String)
            let before = try bodies(vault)
            if try runKilled(vault, ["edit", target, "edited in run \(run)"], after: delay) { kills += 1 }
            let after = try bodies(vault)
            #expect(after.count == before.count, "an edit killed midway lost or doubled a note")
            try expectSound(vault, "edit killed after \(delay) µs")
        }
        for (run, delay) in delays(seed: 3, upTo: 60_000).enumerated() {
            let listed = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
            guard let target = listed.first?["id"] as? String else { break }
            let before = try bodies(vault)
            if try runKilled(vault, ["delete", target], after: delay) { kills += 1 }
            let after = try bodies(vault)
            #expect(after.isSubset(of: before) && before.count - after.count <= 1, "run \(run): a delete killed midway took more than its note")
            try expectSound(vault, "delete killed after \(delay) µs")
        }
        #expect(kills > 0, "no kill landed while a command ran: the matrix tested nothing")
    }

    @Test func importAndExport() throws {
        let source = try TestVault()
        try source.createUnlocked()
        try source.succeed(["book", "add", "Solaris"])
        try source.succeed(["book", "add", "Le Petit Prince"])
        let archive = source.root.appendingPathComponent("archive")
        for index in 1...40 { try source.succeed(["note", "add", index % 2 == 0 ? "solaris" : "le petit", "note \(index)"]) }
        try source.succeed(["export", "--out", archive.path])
        let total = try bodies(source).count
        var kills = 0

        for (run, delay) in delays(seed: 4, upTo: 40_000).enumerated() {
            let out = source.root.appendingPathComponent("export-\(run)")
            if try runKilled(source, ["export", "--out", out.path], after: delay) { kills += 1 }
            #expect(try bodies(source).count == total)
            let made = FileManager.default.fileExists(atPath: out.path)
            if made { #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path), "half an archive under its name") }
            try expectSound(source, "export killed after \(delay) µs")
        }
        for (run, delay) in delays(seed: 5, upTo: 40_000).enumerated() {
            let target = try TestVault()
            try target.createUnlocked()
            if try runKilled(target, ["import", archive.path], after: delay) { kills += 1 }
            let count = try bodies(target).count
            #expect(count == 0 || count == total, "run \(run): an import killed midway left \(count) of \(total) notes")
            try expectSound(target, "import killed after \(delay) µs")
        }
        #expect(kills > 0, "no kill landed while a command ran: the matrix tested nothing")
    }

    @Test func syncRekeyAndMigrate() throws {
        let world = try SyncWorld()
        let a = world.first
        try a.succeed(["book", "add", "Solaris"])
        for index in 1...30 { try a.succeed(["note", "add", "solaris", "note \(index)"]) }
        var kills = 0
        for (run, delay) in delays(seed: 6, upTo: 200_000).enumerated() {
            try a.succeed(["note", "add", "solaris", "before sync \(run)"])
            if try runKilled(a, ["sync"], after: delay) { kills += 1 }
            try expectSound(a, "sync killed after \(delay) µs")
        }
        try a.succeed(["sync"])
        let b = try world.join()
        try withExtendedLifetime(b) { () throws in
            #expect(try bodies(b) == bodies(a), "every note reached the remote once the syncs finished")
            for (run, delay) in delays(seed: 7, upTo: 200_000).enumerated() {
                try a.succeed(["note", "add", "solaris", "pulled \(run)"])
                try a.succeed(["sync"])
                if try runKilled(b, ["sync"], after: delay) { kills += 1 }
                try expectSound(b, "a pulling sync killed after \(delay) µs")
            }
            try b.succeed(["sync"])
            #expect(try bodies(b) == bodies(a))
        }

        let notes = try bodies(a)
        for (run, delay) in delays(seed: 8, upTo: 400_000).enumerated() {
            if try runKilled(a, ["rekey", "--passphrase-stdin", "--batch-size", "5"], stdin: TestVault.passphrase + "\n", after: delay) { kills += 1 }
            if try a.run(["list"]).status != 0 {
                // Interrupted: the next rekey finishes it.
                try a.succeed(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            }
            #expect(try bodies(a) == notes, "run \(run): a rekey killed after \(delay) µs changed the journal")
            try expectSound(a, "rekey killed after \(delay) µs")
        }

        let fixture = try FixtureVault.oldest()
        for (run, delay) in delays(seed: 9, upTo: 300_000).enumerated() {
            let old = try TestVault()
            try old.install(fixture)
            if try runKilled(old, ["migrate"], after: delay) { kills += 1 }
            try old.succeed(["migrate"])
            try old.succeed(["unlock", "--passphrase-stdin"], stdin: fixture.passphrase + "\n")
            try old.expectLiveRecords(of: fixture)
            try expectSound(old, "run \(run): migrate killed after \(delay) µs")
        }
        #expect(kills > 0, "no kill landed while a command ran: the matrix tested nothing")
    }
}
