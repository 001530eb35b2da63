import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Upgrading a vault made by an older bmvault, through the built binary: the automatic
/// upgrade and its notice, `migrate --status` and `--dry-run`, a vault from a newer
/// bmvault, two processes at once, and `kill -9` at every point of the upgrade.
///
/// Serialized: every copy of a fixture has the same vault id, and so the same item in the
/// shared test keyring; one test's `lock` must not remove the key another one is using.
@Suite(.serialized) struct UpgradeTests {
    static let notice = "Upgrading the vault from schema"

    @Test func theFirstCommandUpgradesWithAOneLineNoticeAndThenWorks() throws {
        let fixture = try FixtureVault.oldest()
        let vault = try TestVault()
        try vault.install(fixture)
        let latest = try latestVersion(vault)
        try #require(fixture.version < latest)

        let first = try vault.unlock(fixture)

        let lines = first.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "\(Self.notice) \(fixture.version) to \(latest); its original is kept at "
                + "\(vault.databasePath).v\(fixture.version).snapshot until this succeeds.", "\(first)")
        #expect(lines.filter { $0.contains("Upgrading") || $0.contains("migration") }.count == 1, "one line only:\n\(first)")
        #expect(first.stderr.contains("Unlocked until"))
        try vault.expectLiveRecords(of: fixture)
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect(status["schemaVersion"] as? Int == latest)
        #expect(status["counts"] as? [String: Int] == fixture.expected["liveCounts"] as? [String: Int])
        #expect(status["outbox"] as? [String: Int] == (fixture.expected["outbox"] as? [String: Any])?["counts"] as? [String: Int])
        // Only the first command upgrades.
        #expect(!(try vault.succeed(["list"]).stderr.contains(Self.notice)))
        #expect(try vault.fileNames().filter { $0.contains("snapshot") }.isEmpty)
    }

    @Test func migrateStatusListsTheHistoryAndWhatIsPendingWithoutChangingAnything() throws {
        let fixture = try FixtureVault.oldest()
        let vault = try TestVault()
        try vault.install(fixture)
        let files = try vault.filesByName()

        let before = try #require(try vault.json(["migrate", "--status", "--json"]) as? [String: Any])
        let latest = try #require(before["latestVersion"] as? Int)
        #expect(before["version"] as? Int == fixture.version)
        let oldHistory = try #require(before["history"] as? [[String: Any]])
        let oldIDs = oldHistory.compactMap { $0["id"] as? String }
        #expect(oldIDs.count == fixture.version && oldIDs.first == "0001_initial")
        #expect(oldHistory.allSatisfy { $0["bmvaultVersion"] as? String == fixture.expected["bmvaultVersion"] as? String })
        let pending = try #require(before["pending"] as? [[String: Any]])
        let pendingIDs = pending.compactMap { $0["id"] as? String }
        #expect(pendingIDs.count == latest - fixture.version)
        #expect(pending.allSatisfy { !($0["summary"] as? String ?? "").isEmpty })
        #expect(try vault.succeed(["migrate", "--status"]).stdout.contains("pending: \(pendingIDs.first ?? "?")"))
        #expect(try vault.filesByName() == files, "migrate --status changed the vault")

        let upgraded = try vault.succeed(["migrate"])
        #expect(upgraded.stderr.contains(Self.notice))
        #expect(upgraded.stdout.hasPrefix("schema version \(latest)"))

        let after = try #require(try vault.json(["migrate", "--status", "--json"]) as? [String: Any])
        #expect(after["version"] as? Int == latest)
        #expect((after["pending"] as? [Any])?.isEmpty == true)
        let history = try #require(after["history"] as? [[String: Any]])
        #expect(history.compactMap { $0["id"] as? String } == oldIDs + pendingIDs)
        // The records of the migrations the old bmvault applied are kept as they were.
        #expect(history.prefix(fixture.version).map(describe) == oldHistory.map(describe))
        let version = try vault.succeed(["--version"]).line.replacingOccurrences(of: "bmvault ", with: "")
        #expect(history.dropFirst(fixture.version).allSatisfy { $0["bmvaultVersion"] as? String == version })
        #expect(try vault.succeed(["migrate", "--status"]).stdout.contains("no pending migrations"))
    }

    @Test func dryRunReportsWhatWouldChangeAndLeavesEveryFileByteIdentical() throws {
        let fixture = try FixtureVault.oldest()
        let vault = try TestVault()
        try vault.install(fixture)
        let files = try vault.filesByName()

        let human = try vault.succeed(["migrate", "--dry-run"])
        #expect(human.stdout.contains("from schema \(fixture.version) to"), "\(human)")
        #expect(human.stdout.contains("would apply 0002_rekey_job"), "\(human)")
        #expect(human.stdout.contains("would add table rekey_job"), "\(human)")
        #expect(human.stdout.contains("would add table rekey_keyslot"), "\(human)")
        #expect(!human.stderr.contains(Self.notice))

        let report = try #require(try vault.json(["migrate", "--dry-run", "--json"]) as? [String: Any])
        #expect(report["from"] as? Int == fixture.version)
        #expect((report["pending"] as? [[String: Any]])?.first?["id"] as? String == "0002_rekey_job")
        let added = try #require(report["added"] as? [String])
        #expect(added.contains("table rekey_job") && added.contains("table rekey_keyslot"), "\(added)")
        #expect(report["removed"] as? [String] == [])
        #expect(report["repairs"] as? [Any] != nil && (report["repairs"] as? [Any])?.isEmpty == true, "no repair for a vault of today's texts")

        // The rehearsal holds the upgrade lock file while it works and removes it after;
        // nothing may change.
        let after = try vault.filesByName()
        #expect(after.keys.sorted() == files.keys.sorted(), "files appeared or vanished: \(after.keys.sorted())")
        #expect(after == files, "migrate --dry-run changed the vault directory")
        #expect(try vault.schemaVersion() == fixture.version)
    }

    @Test func aVaultFromANewerBmvaultIsRefusedAndLeftUntouched() throws {
        let fixture = try FixtureVault.oldest()
        let vault = try TestVault()
        try vault.install(fixture)
        _ = try vault.sqlite("PRAGMA user_version = 99;")
        let files = try vault.filesByName()

        for arguments in [["status"], ["list"], ["migrate"], ["migrate", "--dry-run"], ["book", "list", "--json"]] {
            let result = try vault.run(arguments)
            #expect(result.status == 1, "bmvault \(arguments.joined(separator: " ")): \(result)")
            #expect(result.stderr.contains("schema version 99"), "\(result)")
            #expect(!result.stderr.contains(Self.notice))
        }
        let unlock = try vault.run(["unlock", "--passphrase-stdin"], stdin: fixture.passphrase + "\n")
        #expect(unlock.status == 1, "\(unlock)")
        // Still readable for what it is.
        let state = try #require(try vault.json(["migrate", "--status", "--json"]) as? [String: Any])
        #expect(state["version"] as? Int == 99)
        #expect(try vault.filesByName() == files, "a refused vault was changed")
    }

    @Test func processesOpeningTheSameOldVaultAtOnceUpgradeItExactlyOnce() throws {
        let fixture = try FixtureVault.oldest()
        for round in 0..<5 {
            let vault = try TestVault()
            try vault.install(fixture)
            let before = try vault.journalDump()
            let (ids, latest) = try migrationIDs(vault)
            let environment = vault.environment
            let commands = [["migrate"], ["status"], ["migrate"]]
            let results = Results(count: commands.count)
            DispatchQueue.concurrentPerform(iterations: commands.count) { index in
                results.set(index, try? Binary.run(Binary.path, commands[index], environment: environment))
            }
            let all = results.all
            for (command, result) in zip(commands, all) {
                #expect(result?.status == 0, "round \(round), bmvault \(command.joined(separator: " ")): \(result?.description ?? "did not run")")
            }
            #expect(all.filter { $0?.stderr.contains(Self.notice) == true }.count == 1, "round \(round): exactly one process upgrades")
            #expect(try vault.schemaVersion() == latest)
            #expect(try vault.migrationCounts() == ids.sorted().map { $0 + "|1" }, "round \(round)")
            #expect(try vault.journalDump() == before)
            #expect(try vault.fileNames().filter { $0.contains("snapshot") }.isEmpty)
        }
    }

    /// A vault recording a migration text no build ever wrote is refused with what to do,
    /// and left as it was; `diagnostics` still reports it.
    @Test func aMigrationTextNoBuildWroteIsRefusedWithWhatToDo() throws {
        let fixture = try FixtureVault(version: 6)
        let vault = try TestVault()
        try vault.install(fixture)
        _ = try vault.sqlite("UPDATE schema_migration SET checksum = '\(String(repeating: "0", count: 64))' WHERE id = '0002_rekey_job';")
        let files = try vault.filesByName()

        let unlock = try vault.run(["unlock", "--passphrase-stdin"], stdin: fixture.passphrase + "\n")
        #expect(unlock.status == 1, "\(unlock)")
        #expect(unlock.stderr.hasPrefix("Error: this vault records migration 0002_rekey_job differently from this bmvault "
                                        + "\(try vault.succeed(["--version"]).line.dropFirst("bmvault ".count)); it was not opened or changed: "
                                        + "upgrade bmvault, or report it with the output of `bmvault diagnostics`\n"), "\(unlock)")
        let diagnostics = try vault.succeed(["diagnostics"])
        #expect(diagnostics.stdout.contains("schema 6 of"), "\(diagnostics)")
        #expect(try vault.filesByName() == files, "a refused vault was changed")
    }

    /// Issue 47: a vault written by a build of migration 0006 before its text was edited
    /// (dec822e, a37bc02) opens with every word, passes `check`, records its repair, and
    /// syncs both ways with a vault made today.
    @Test(arguments: FixtureVault.shippedVariants)
    func aVaultOfAnEditedMigrationsEarlierTextOpensAndSyncsWithAVaultMadeToday(name: String) throws {
        let fixture = try FixtureVault(variant: name)
        let vault = try TestVault()
        try vault.install(fixture)
        let commit = String(name.drop { $0 != "-" }.dropFirst())
        let rehearsal = try #require(try vault.json(["migrate", "--dry-run", "--json"]) as? [String: Any])
        #expect(rehearsal["repairs"] as? [[String: String]] == [["id": "0006_version_vectors", "commit": commit]], "\(rehearsal)")
        let first = try vault.unlock(fixture)
        #expect(first.stderr.hasPrefix("\(Self.notice) \(fixture.version) to \(try latestVersion(vault));"), "\(first)")
        try vault.expectLiveRecords(of: fixture)
        try vault.succeed(["check"])
        let state = try #require(try vault.json(["migrate", "--status", "--json"]) as? [String: Any])
        let history = try #require(state["history"] as? [[String: Any]])
        #expect(history.filter { ($0["bmvaultVersion"] as? String)?.contains("repaired from \(commit)") == true }.map { $0["id"] as? String }
                == ["0006_version_vectors"], "\(history)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-repaired-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try vault.succeed(["remote", "add", "shared", folder.path])
        try vault.succeed(["sync"])
        let today = try TestVault()
        try today.succeed(["init", "--join", folder.path, "--passphrase-stdin"], stdin: fixture.passphrase + "\n")
        try today.unlock(fixture)
        try today.succeed(["sync"])
        try today.expectLiveRecords(of: fixture)
        let book = try #require(fixture.liveBooks.first?["id"] as? String)
        try today.succeed(["note", "add", book, "-"], stdin: "Written on a device made today.")
        try today.succeed(["sync"])
        try vault.succeed(["sync"])
        let bodies = try #require(try vault.json(["list", "--json"]) as? [[String: Any]]).compactMap { $0["body"] as? String }
        #expect(bodies.contains("Written on a device made today."))
        #expect(bodies.count == fixture.liveAnnotations.count + 1)
    }

    /// `kill -9` at the repair of a shipped variant: the repair is inside the upgrade's
    /// transaction, so the vault is as it was right after, and the next command finishes.
    @Test(arguments: FixtureVault.shippedVariants)
    func killedAtTheRepair(name: String) throws {
        try expectCrashAndRecovery(at: "upgrade:repaired:0006_version_vectors", fixture: FixtureVault(variant: name))
    }

    /// `kill -9` at every point of the upgrade: right after, the vault is still at its old
    /// version (before the commit) and the kept original is a valid copy of it; the next
    /// command finishes the job, and nothing is lost or applied twice.
    @Test(arguments: ["upgrade:snapshot-written", "upgrade:snapshot-taken", "upgrade:applied:*", "upgrade:verified", "upgrade:committed"])
    func killedAt(point pattern: String) throws {
        let fixture = try FixtureVault.oldest()
        let pending: [String]
        do {
            let probe = try TestVault()
            try probe.install(fixture)
            let state = try #require(try probe.json(["migrate", "--status", "--json"]) as? [String: Any])
            pending = (state["pending"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        try #require(!pending.isEmpty, "the oldest fixture has nothing to upgrade")
        let points = pattern.hasSuffix("*") ? pending.map { "upgrade:applied:\($0)" } : [pattern]
        for point in points {
            try expectCrashAndRecovery(at: point, fixture: fixture)
        }
    }

    /// `migrate` killed with SIGKILL at moments drawn from a seed (the kill -9 matrix, issue
    /// 23): the next `migrate` finishes the job, the vault unlocks, every record is there,
    /// and `check` finds no damage.
    @Test func migrateKilledAtRandomMomentsIsFinishedByTheNextOne() throws {
        let fixture = try FixtureVault.oldest()
        // Moments within the time one migrate takes here, so that kills land on a fast,
        // idle machine as on a loaded one (fixed bounds landed none when migrate was quick).
        let probe = try TestVault()
        try probe.install(fixture)
        let started = Date()
        try probe.succeed(["migrate"])
        let duration = UInt32(min(max(Date().timeIntervalSince(started) * 1_000_000, 2_000), 1_000_000))
        var kills = 0
        for (run, delay) in RandomKill.delays(seed: 9, upTo: duration).enumerated() {
            let vault = try TestVault()
            try vault.install(fixture)
            if try vault.runKilled(["migrate"], after: delay) { kills += 1 }
            try vault.succeed(["migrate"])
            try vault.succeed(["unlock", "--passphrase-stdin"], stdin: fixture.passphrase + "\n")
            try vault.expectLiveRecords(of: fixture)
            let checked = try vault.run(["check"])
            #expect(checked.status == 0, "run \(run): migrate killed after \(delay) µs: \(checked)")
        }
        #expect(kills > 0, "no kill landed while migrate ran: the matrix tested nothing")
    }

    private func expectCrashAndRecovery(at point: String, fixture: FixtureVault) throws {
        let vault = try TestVault()
        try vault.install(fixture)
        let before = try vault.journalDump()
        let schemaBefore = try vault.sqlite("SELECT sql FROM sqlite_master ORDER BY type, name;")
        let (ids, latest) = try migrationIDs(vault)
        let snapshotName = "vault.db.v\(fixture.version).snapshot"

        let crashed = try vault.run(["status"], environment: ["BMVAULT_TEST_CRASH_AT": point])
        try #require(crashed.status == 137, "\(point): expected death by SIGKILL:\n\(crashed)")

        // The state the crash left, inspected on a copy so the vault stays exactly as it was.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-crash-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: vault.directory, to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        let copy = scratch.appendingPathComponent("vault.db").path
        let committed = point == "upgrade:committed"
        // The upgrade changes the file in place with a rollback journal: killed inside its
        // transaction, the journal holds the originals the next open puts back.
        let insideTransaction = point.hasPrefix("upgrade:applied:") || point.hasPrefix("upgrade:repaired:") || point == "upgrade:verified"
        #expect(names.contains("vault.db-journal") == insideTransaction, "\(point): \(names)")
        #expect(try vault.schemaVersion(at: copy) == (committed ? latest : fixture.version), "\(point): version right after the crash")
        if !committed {
            #expect(try vault.sqlite("SELECT sql FROM sqlite_master ORDER BY type, name;", at: copy) == schemaBefore,
                    "\(point): the schema changed before the commit")
        }
        #expect(try vault.journalDump(at: copy) == before, "\(point): data changed")
        let keptName = point == "upgrade:snapshot-written" ? snapshotName + ".partial" : snapshotName
        #expect(names.contains(keptName), "\(point): no \(keptName) in \(names)")
        if names.contains(keptName) {
            let kept = scratch.appendingPathComponent(keptName).path
            #expect(try vault.schemaVersion(at: kept) == fixture.version, "\(point): the snapshot is not the old version")
            #expect(try vault.sqlite("PRAGMA integrity_check;", at: kept) == "ok")
            #expect(try vault.journalDump(at: kept) == before, "\(point): the snapshot lacks data")
        }

        // The next command, run normally, finishes the job.
        let next = try vault.unlock(fixture)
        #expect(next.stderr.contains(Self.notice) == !committed, "\(point): \(next)")
        try vault.expectLiveRecords(of: fixture)
        #expect(try vault.schemaVersion() == latest)
        #expect(try vault.sqlite("PRAGMA journal_mode;") == "wal", "\(point): not back in WAL mode")
        #expect(try vault.journalDump() == before, "\(point): data changed by the recovery")
        #expect(try vault.migrationCounts() == ids.sorted().map { $0 + "|1" }, "\(point): each migration exactly once")
        let left = try vault.fileNames()
        #expect(left.filter { $0.contains(".snapshot") }.isEmpty, "\(point): \(left)")
    }

    /// On a real, small file system (tmpfs, mounted when the tests run as root): a vault
    /// whose snapshot would not fit is refused with the space needed, before anything is
    /// touched.
    @Test(.enabled(if: SmallMount.isAvailable, "a real small file system needs root and `mount -t tmpfs` (run the tests as root, e.g. in the CI container)"))
    func notEnoughFreeSpaceForTheSnapshotIsRefusedBeforeAnythingIsTouched() throws {
        let fixture = try FixtureVault.oldest()
        let bytes: Data
        do {
            let scratch = try TestVault()
            try scratch.install(fixture)
            bytes = try scratch.databaseBytes()
        }
        let vault = try TestVault()
        try FileManager.default.createDirectory(at: vault.directory, withIntermediateDirectories: true)
        try SmallMount.mount(at: vault.directory.path, bytes: Int64(bytes.count) * 3 / 2)
        defer { SmallMount.unmount(vault.directory.path) }
        try bytes.write(to: URL(fileURLWithPath: vault.databasePath))

        let result = try vault.run(["status"])

        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("not enough free space to upgrade the vault safely"), "\(result)")
        #expect(result.stderr.contains("nothing was changed"))
        #expect(try vault.databaseBytes() == bytes)
        #expect(try vault.fileNames() == ["vault.db"])
        #expect(try vault.schemaVersion() == fixture.version)
    }

    // MARK: - Helpers

    private func latestVersion(_ vault: TestVault) throws -> Int {
        let state = try #require(try vault.json(["migrate", "--status", "--json"]) as? [String: Any])
        return try #require(state["latestVersion"] as? Int)
    }

    private func describe(_ record: [String: Any]) -> String {
        ["id", "checksum", "appliedAt", "bmvaultVersion"].map { "\(record[$0] ?? "nil")" }.joined(separator: " ")
    }
}

/// Every migration this bmvault knows (those the vault recorded, then those pending), and
/// the newest schema version, as `migrate --status --json` reports them without upgrading.
private func migrationIDs(_ vault: TestVault) throws -> (ids: [String], latest: Int) {
    let state = try #require(try vault.json(["migrate", "--status", "--json"]) as? [String: Any])
    let ids = ((state["history"] as? [[String: Any]] ?? []) + (state["pending"] as? [[String: Any]] ?? [])).compactMap { $0["id"] as? String }
    let latest = try #require(state["latestVersion"] as? Int)
    try #require(ids.count == latest, "\(ids)")
    return (ids, latest)
}

/// Results of concurrent runs, by index.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [CommandResult?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: CommandResult?) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    var all: [CommandResult?] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}

/// tmpfs mounts for the free-space test; available only to root.
enum SmallMount {
    static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-tmpfs-probe-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { rmdir(probe) }
        guard (try? mount(at: probe, bytes: 1 << 20)) != nil else { return false }
        unmount(probe)
        return true
    }()

    static func mount(at path: String, bytes: Int64) throws {
        let rounded = (bytes + 4095) / 4096 * 4096
        guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(rounded),mode=0700") == 0 else {
            throw SpawnError(executable: "mount", code: errno)
        }
    }

    static func unmount(_ path: String) {
        umount2(path, 2 /* MNT_DETACH */)
    }
}
