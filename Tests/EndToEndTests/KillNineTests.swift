import Foundation
import Testing
import TestSupport

/// The kill -9 matrix (issue 23): each command that writes, killed with SIGKILL at a moment
/// drawn from a seed, many times. After every kill the vault opens, `check` finds no damage,
/// and no write the reader saw acknowledged is gone; what the killed command was doing is
/// either wholly there or wholly not. (Points named inside the code are killed at exactly
/// by `BMVAULT_TEST_CRASH_AT` in the suites of each command; these land anywhere: a seed
/// gives the same moments, where they fall in the command's work varies with the machine.)
/// `migrate` killed at random is in UpgradeTests, serialized with every other user of the
/// fixture vault's keyring item.
@Suite(.serialized) struct KillNineTests {
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

    @Test func addEditAndDelete() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Solaris"])
        var acknowledged = Set<String>()
        var kills = 0
        for (run, delay) in RandomKill.delays(seed: 1, upTo: 60_000).enumerated() {
            let body = "added in run \(run)"
            let outcome = try vault.runKilledOutcome(["note", "add", "solaris", body], after: delay)
            if outcome == .killed { kills += 1 }
            let now = try bodies(vault)
            #expect(acknowledged.isSubset(of: now), "an acknowledged note is gone after a kill")
            if case .exited(let status, let said) = outcome {
                // Not killed: it must have succeeded (its error otherwise says why), and its note be there.
                #expect(status == 0, "a note add that was not killed failed: \(said)")
                if status == 0 { #expect(now.contains(body), "a note add that finished is there") }
            }
            acknowledged.formUnion(now)
            try expectSound(vault, "note add killed after \(delay) µs")
        }
        // Every add above may have been killed before it committed (a slow, busy machine): the
        // edits need a note to work on either way.
        try vault.succeed(["note", "add", "solaris", "added without a kill"])
        let notes = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
        for (run, delay) in RandomKill.delays(seed: 2, upTo: 60_000).enumerated() {
            let target = try #require(notes[run % notes.count]["id"] as? String)
            let before = try bodies(vault)
            if try vault.runKilled(["edit", target, "edited in run \(run)"], after: delay) { kills += 1 }
            let after = try bodies(vault)
            #expect(after.count == before.count, "an edit killed midway lost or doubled a note")
            try expectSound(vault, "edit killed after \(delay) µs")
        }
        for (run, delay) in RandomKill.delays(seed: 3, upTo: 60_000).enumerated() {
            let listed = try #require(try vault.json(["list", "--json"]) as? [[String: Any]])
            guard let target = listed.first?["id"] as? String else { break }
            let before = try bodies(vault)
            if try vault.runKilled(["delete", target], after: delay) { kills += 1 }
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

        for (run, delay) in RandomKill.delays(seed: 4, upTo: 40_000).enumerated() {
            let out = source.root.appendingPathComponent("export-\(run)")
            if try source.runKilled(["export", "--out", out.path], after: delay) { kills += 1 }
            #expect(try bodies(source).count == total)
            let made = FileManager.default.fileExists(atPath: out.path)
            if made { #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path), "half an archive under its name") }
            try expectSound(source, "export killed after \(delay) µs")
        }
        for (run, delay) in RandomKill.delays(seed: 5, upTo: 40_000).enumerated() {
            let target = try TestVault()
            try target.createUnlocked()
            if try target.runKilled(["import", archive.path], after: delay) { kills += 1 }
            let count = try bodies(target).count
            #expect(count == 0 || count == total, "run \(run): an import killed midway left \(count) of \(total) notes")
            try expectSound(target, "import killed after \(delay) µs")
        }
        #expect(kills > 0, "no kill landed while a command ran: the matrix tested nothing")
    }

    @Test func syncAndRekey() throws {
        let world = try SyncWorld()
        let a = world.first
        try a.succeed(["book", "add", "Solaris"])
        for index in 1...30 { try a.succeed(["note", "add", "solaris", "note \(index)"]) }
        var kills = 0
        for (run, delay) in RandomKill.delays(seed: 6, upTo: 200_000).enumerated() {
            try a.succeed(["note", "add", "solaris", "before sync \(run)"])
            if try a.runKilled(["sync"], after: delay) { kills += 1 }
            try expectSound(a, "sync killed after \(delay) µs")
        }
        try a.succeed(["sync"])
        let b = try world.join()
        try withExtendedLifetime(b) { () throws in
            #expect(try bodies(b) == bodies(a), "every note reached the remote once the syncs finished")
            for (run, delay) in RandomKill.delays(seed: 7, upTo: 200_000).enumerated() {
                try a.succeed(["note", "add", "solaris", "pulled \(run)"])
                try a.succeed(["sync"])
                if try b.runKilled(["sync"], after: delay) { kills += 1 }
                try expectSound(b, "a pulling sync killed after \(delay) µs")
            }
            try b.succeed(["sync"])
            #expect(try bodies(b) == bodies(a))
        }

        let notes = try bodies(a)
        for (run, delay) in RandomKill.delays(seed: 8, upTo: 400_000).enumerated() {
            if try a.runKilled(["rekey", "--passphrase-stdin", "--batch-size", "5"], stdin: TestVault.passphrase + "\n", after: delay) { kills += 1 }
            if try a.run(["list"]).status != 0 {
                // Interrupted: the next rekey finishes it.
                try a.succeed(["rekey", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
            }
            #expect(try bodies(a) == notes, "run \(run): a rekey killed after \(delay) µs changed the journal")
            try expectSound(a, "rekey killed after \(delay) µs")
        }

        #expect(kills > 0, "no kill landed while a command ran: the matrix tested nothing")
    }
}
