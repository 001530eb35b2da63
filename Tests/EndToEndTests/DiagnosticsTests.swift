import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `bmvault diagnostics`: answers "why did it not unlock / migrate / sync" with versions,
/// states and counts, and without one word of content, one title, or the vault's path.
/// Every world here plants the canary in its content and passphrase, and every run is
/// searched for it (``SweepWorld``).
@Suite struct DiagnosticsTests {
    private func document(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)",
                     sourceLocation: sourceLocation)
    }

    private func diagnostics(_ world: SweepWorld, vault: String = "main", environment: [String: String] = [:],
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try document(try world.run(["diagnostics", "--json"], vault: vault, environment: environment, status: 0, sourceLocation: sourceLocation),
                     sourceLocation: sourceLocation)
    }

    /// `secretService` as "REACHABLE STATE".
    private func service(_ report: [String: Any]) -> String {
        let section = report["secretService"] as? [String: Any]
        return "\((section?["reachable"] as? Bool).map(String.init) ?? "nil") \(section?["state"] as? String ?? "nil")"
    }

    private func userVersion(_ world: SweepWorld, _ vault: String = "main") throws -> String {
        try world.sqlite(vault, "PRAGMA user_version").line
    }

    /// A vault with a little of everything, the canary in all of it; returns the book id.
    @discardableResult
    private func journal(_ world: SweepWorld, vault: String = "main") throws -> String {
        let c = world.canary.text
        try world.createUnlocked(vault, passphrase: "pass phrase \(c)")
        let book = try world.run(["book", "add", "title \(c)", "--author", "author \(c)"], vault: vault, status: 0).line
        try world.run(["session", "add", book, "--pages", "10", "--minutes", "30"], vault: vault, status: 0)
        try world.run(["note", "add", book, "note \(c)", "--locator", "locator \(c)"], vault: vault, status: 0)
        try world.run(["quote", "add", book, "quote \(c)", "--locator", "page \(c)"], vault: vault, status: 0)
        return book
    }

    private func expectNoCanary(_ world: SweepWorld, sourceLocation: SourceLocation = #_sourceLocation) {
        world.searchFiles()
        #expect(world.search.hits.isEmpty, "\(world.search.hits)", sourceLocation: sourceLocation)
    }

    // MARK: Why did it not unlock?

    @Test func aLockedVaultSaysThereIsNoKeyAndAnUnlockedOneThatThereIs() throws {
        let world = try SweepWorld()
        try world.run(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: "pass phrase \(world.canary.text)\n", status: 0)

        let locked = try diagnostics(world)
        #expect(service(locked) == "true no key (locked)")
        let vault = try #require(locked["vault"] as? [String: Any])
        #expect(vault["location"] as? String == "BMVAULT_HOME")
        #expect(vault["problem"] == nil)
        #expect(vault["schemaVersion"] as? Int == Schema.latest)
        #expect(vault["newestSchemaVersion"] as? Int == Schema.latest)
        #expect(vault["pendingMigrations"] as? [String] == [])
        #expect((vault["migrations"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == Schema.migrationIDs)
        #expect(vault["counts"] as? [String: Int] == ["books": 0, "sessions": 0, "notes": 0, "quotes": 0])
        #expect(vault["rekeyInProgress"] as? Bool == false)
        #expect(vault["leftoverSnapshots"] as? Int == 0)
        #expect((vault["databaseBytes"] as? Int ?? 0) > 0)
        let libraries = try #require(locked["libraries"] as? [String: String])
        #expect(Set(libraries.keys) == ["libsodium", "sqlite"])
        #expect(libraries.values.allSatisfy { $0.first?.isNumber == true }, "\(libraries)")
        #expect(locked["bmvault"] as? String == (try SweepWorld.bmvaultVersion()))
        #expect((locked["system"] as? [String: String])?["kernel"]?.hasPrefix("Linux ") == true)

        try world.run(["unlock", "--passphrase-stdin"], stdin: "pass phrase \(world.canary.text)\n", status: 0)
        #expect(service(try diagnostics(world)) == "true key found")
        let human = try world.run(["diagnostics"], status: 0).stdout
        #expect(human.contains("\nSecret Service: reachable; key found\n"), "\(human)")
        try world.run(["lock"], status: 0)
        #expect(service(try diagnostics(world)) == "true no key (locked)")
        expectNoCanary(world)
    }

    @Test func withoutASessionBusTheSecretServiceIsUnreachableAndTheRestStillAnswers() throws {
        let world = try SweepWorld()
        try journal(world)
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        let report = try diagnostics(world, environment: noBus)
        #expect(service(report) == "false unreachable: noSessionBus")
        #expect((report["vault"] as? [String: Any])?["counts"] as? [String: Int] == ["books": 1, "sessions": 1, "notes": 1, "quotes": 1])
        // The reason is in the recent log lines too.
        #expect((report["recentLog"] as? [String])?.contains { $0.contains(" warning keystore.call operation=lookup outcome=noSessionBus ") } == true,
                "\(report["recentLog"] ?? [])")
        let human = try world.run(["diagnostics"], environment: noBus, status: 0).stdout
        #expect(human.contains("\nSecret Service: unreachable; unreachable: noSessionBus\n"), "\(human)")
        expectNoCanary(world)
    }

    @Test func withNoVaultItSaysSoWithoutThePathAndCreatesNothing() throws {
        let world = try SweepWorld()
        let result = try world.run(["diagnostics", "--json"], status: 0)
        let report = try document(result)
        let vault = try #require(report["vault"] as? [String: Any])
        #expect(vault["problem"] as? String == "vaultNotFound")
        #expect(vault["schemaVersion"] == nil && vault["counts"] == nil)
        #expect(report["outbox"] == nil)
        #expect(service(report) == "false not checked (no vault)")
        #expect(!result.stdout.contains(world.root.path))
        #expect(!FileManager.default.fileExists(atPath: world.vaultDirectory("main").path), "diagnostics created the vault directory")
        #expect(try world.run(["diagnostics"], status: 0).stdout.contains("  cannot be inspected: vaultNotFound\n"))
    }

    // MARK: Why did it not migrate?

    @Test func aVersionOneVaultIsReportedWithItsPendingMigrationAndNotUpgraded() throws {
        let world = try SweepWorld()
        try journal(world)
        try world.run(["lock"], status: 0)
        try world.downgradeToV1("main")
        let before = try Data(contentsOf: URL(fileURLWithPath: world.databasePath("main")))
        let filesBefore = world.files(in: world.vaultDirectory("main"))

        let report = try diagnostics(world)
        let vault = try #require(report["vault"] as? [String: Any])
        #expect(vault["schemaVersion"] as? Int == 1)
        #expect(vault["newestSchemaVersion"] as? Int == Schema.latest)
        #expect(vault["pendingMigrations"] as? [String] == Array(Schema.migrationIDs.dropFirst()))
        #expect((vault["migrations"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["0001_initial"])
        #expect(vault["counts"] as? [String: Int] == ["books": 1, "sessions": 1, "notes": 1, "quotes": 1])
        #expect(vault["rekeyInProgress"] as? Bool == false, "a v1 vault has no rekey_job table, and no rekey")
        #expect(service(report) == "true no key (locked)")
        let human = try world.run(["diagnostics"], status: 0).stdout
        #expect(human.contains("  schema 1 of \(Schema.latest); pending: \(Schema.migrationIDs.dropFirst().joined(separator: ", "))\n"), "\(human)")
        try world.run(["diagnostics", "--out", world.outputs.appendingPathComponent("v1.txt").path], status: 0)

        // Diagnostics changed nothing: no upgrade, no snapshot, the same bytes.
        #expect(try userVersion(world) == "1")
        #expect(try Data(contentsOf: URL(fileURLWithPath: world.databasePath("main"))) == before)
        #expect(world.files(in: world.vaultDirectory("main")).filter { $0.contains("snapshot") || $0.contains("rehearsal") }.isEmpty)
        #expect(Set(world.files(in: world.vaultDirectory("main"))).isSubset(of: Set(filesBefore + ["vault.db-wal", "vault.db-shm"])))
        expectNoCanary(world)
    }

    /// The v1 fixture vault (bmvault 0.1.0's), when the tree has it: its numbers are known.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: DiagnosticsTests.fixture.appendingPathComponent("vault.sql").path)))
    func theVersionOneFixtureIsReportedAsItIs() throws {
        let world = try SweepWorld()
        let directory = world.vaultDirectory("fixture")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let sql = Self.fixture.appendingPathComponent("vault.sql").path
        try world.sqlite("fixture", ".read '\(sql)'")
        try world.sqlite("fixture", "PRAGMA journal_mode=WAL")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture.appendingPathComponent("expected.json"))) as? [String: Any])
        let live = try #require(expected["liveCounts"] as? [String: Int])
        let outbox = try #require((expected["outbox"] as? [String: Any])?["counts"] as? [String: Int])

        // A keyring of its own: every copy of the fixture has the same vault id, and
        // UpgradeTests may hold its key in the shared test keyring right now.
        let bus = try PrivateBus()
        try bus.startKeyring()
        let report = try diagnostics(world, vault: "fixture", environment: bus.environment([:]))
        let vault = try #require(report["vault"] as? [String: Any])
        #expect(vault["schemaVersion"] as? Int == 1)
        #expect(vault["pendingMigrations"] as? [String] == Array(Schema.migrationIDs.dropFirst()))
        #expect(vault["counts"] as? [String: Int] == live)
        let depth = try #require(report["outbox"] as? [String: Any])
        #expect((depth["byState"] as? [String: Int])?["pending"] == outbox["pending"])
        #expect(depth["byAttempts"] as? [String: Int] == ["0": outbox["pending"] ?? -1])
        #expect(service(report) == "true no key (locked)")
        #expect(try userVersion(world, "fixture") == "1")
        #expect(world.files(in: directory).filter { $0.contains("snapshot") }.isEmpty)
    }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vaults/v1")

    @Test func anInterruptedRekeyIsVisible() throws {
        let world = try SweepWorld()
        try journal(world)
        let passphrase = "pass phrase \(world.canary.text)\n"
        try world.run(["rekey", "--passphrase-stdin", "--batch-size", "1"], stdin: passphrase, environment: ["BMVAULT_TEST_CRASH_AT": "rekey:batch:1"], status: 137)
        let vault = try #require(try diagnostics(world)["vault"] as? [String: Any])
        #expect(vault["rekeyInProgress"] as? Bool == true)
        #expect(try world.run(["diagnostics"], status: 0).stdout.contains("; a rekey is unfinished\n"))
        try world.run(["rekey", "--passphrase-stdin"], stdin: passphrase, status: 0)
        #expect((try diagnostics(world)["vault"] as? [String: Any])?["rekeyInProgress"] as? Bool == false)
        expectNoCanary(world)
    }

    /// A failed upgrade (migration 0002 meets a table in its way) leaves a failure report
    /// under the state directory, says where, and the report and diagnostics explain it
    /// without content.
    @Test func aFailedUpgradeWritesAFailureReportWithoutContent() throws {
        let world = try SweepWorld()
        try journal(world)
        try world.downgradeToV1("main", keepRekeyJob: true)
        let failed = try world.run(["list"], showsContent: true, status: 1)
        let snapshot = world.databasePath("main") + ".v1.snapshot"
        #expect(failed.stderr.contains("Error: upgrading the vault from schema 1 to \(Schema.latest) failed (SQLite error 1: table rekey_job already exists); it is still at schema 1, and its original is kept at \(snapshot)\n"),
                "\(failed)")
        let report = try #require(reportPath(in: failed, world: world), "\(failed)")
        #expect(mode(report) == 0o600)
        #expect(mode(world.reportsDirectory.path) == 0o700)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.hasPrefix("bmvault failure report\n"))
        #expect(text.contains(" error cli.command.failed command=list error=StoreError.upgradeFailed status=1 version=\(try SweepWorld.bmvaultVersion())\n"), "\(text)")
        #expect(text.contains(#" error store.upgrade.failed from=1 to=\#(Schema.latest) reason="SQLite error 1: table rekey_job already exists""#), "\(text)")
        #expect(!text.contains(world.vaultDirectory("main").path), "the report names the vault's path")
        #expect(try userVersion(world) == "1")

        // "Why did it not migrate?"
        let vault = try #require(try diagnostics(world)["vault"] as? [String: Any])
        #expect(vault["schemaVersion"] as? Int == 1)
        #expect(vault["pendingMigrations"] as? [String] == Array(Schema.migrationIDs.dropFirst()))
        #expect(vault["leftoverSnapshots"] as? Int == 1)
        let recent = try #require(try diagnostics(world)["recentLog"] as? [String])
        #expect(recent.contains { $0.contains(" error store.upgrade.failed from=1 to=\(Schema.latest) reason=") })
        expectNoCanary(world)
    }

    @Test func aSnapshotThatCannotBeWrittenIsAFailureWithAReport() throws {
        let world = try SweepWorld()
        try journal(world)
        try world.downgradeToV1("main")
        try FileManager.default.createDirectory(atPath: world.databasePath("main") + ".v1.snapshot.partial", withIntermediateDirectories: false)
        let failed = try world.run(["status"], status: 1)
        let report = try #require(reportPath(in: failed, world: world), "\(failed)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains(" error cli.command.failed command=status error=StoreError.database status=1 "), "\(text)")
        #expect(try userVersion(world) == "1")
        expectNoCanary(world)
    }

    @Test(.enabled(if: SweepWorld.canMountTmpfs, "needs root (with CAP_SYS_ADMIN) to mount a small tmpfs"))
    func notEnoughSpaceToUpgradeIsExplainedByTheLog() throws {
        let world = try SweepWorld()
        try journal(world, vault: "source")
        try world.run(["lock"], vault: "source", status: 0)
        try world.downgradeToV1("source")
        try #require(try world.mountSmallFilesystem(for: "main", kilobytes: 512))
        try FileManager.default.copyItem(atPath: world.databasePath("source"), toPath: world.databasePath("main"))
        let refused = try world.run(["status"], status: 1)
        #expect(refused.stderr.contains("Error: not enough free space to upgrade the vault safely: it needs "), "\(refused)")
        let report = try diagnostics(world)
        #expect((report["vault"] as? [String: Any])?["schemaVersion"] as? Int == 1)
        let recent = try #require(report["recentLog"] as? [String])
        #expect(recent.contains { $0.range(of: #" error store\.upgrade\.refused reason=insufficientSpace neededBytes=\d+ availableBytes=\d+$"#, options: .regularExpression) != nil },
                "\(recent)")
        expectNoCanary(world)
    }

    // MARK: Why did it not sync?

    @Test func theOutboxIsCountedByStateAndAttemptsWithTheOldestAge() throws {
        let world = try SweepWorld()
        let c = world.canary.text
        try world.createUnlocked("main", passphrase: "pass phrase \(c)")
        // A remote never synced: every operation waits (with no remote, only the last change's stay).
        let remote = world.root.appendingPathComponent("remote-folder")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        try world.run(["remote", "add", "usb", remote.path], status: 0)
        let book = try world.run(["book", "add", "title \(c)", "--author", "author \(c)"], status: 0).line
        try world.run(["session", "add", book, "--pages", "10", "--minutes", "30"], status: 0)
        try world.run(["note", "add", book, "note \(c)", "--locator", "locator \(c)"], status: 0)
        try world.run(["quote", "add", book, "quote \(c)", "--locator", "page \(c)"], status: 0)   // 4 operations
        for index in 1...3 { try world.run(["note", "add", book, "more \(index) \(c)"], status: 0) }
        // As sync would leave it: two failed after 3 attempts, one in flight, one done, one old.
        try world.sqlite("main", """
            UPDATE outbox SET state = 'failed', attempt_count = 3 WHERE id IN (1, 2);
            UPDATE outbox SET state = 'in_flight', attempt_count = 1 WHERE id = 3;
            UPDATE outbox SET state = 'done', attempt_count = 1 WHERE id = 4;
            UPDATE outbox SET created_at = created_at - 7200000 WHERE id = 5;
            """)
        let report = try diagnostics(world)
        let outbox = try #require(report["outbox"] as? [String: Any])
        #expect(outbox["byState"] as? [String: Int] == ["done": 1, "failed": 2, "inFlight": 1, "pending": 3])
        #expect(outbox["byAttempts"] as? [String: Int] == ["0": 3, "1": 1, "3": 2], "done operations are not waiting")
        let age = try #require(outbox["oldestWaitingSeconds"] as? Int)
        #expect(age >= 7200 && age < 7200 + 600, "\(age)")
        #expect(outbox["lastErrorClass"] == nil, "no sync yet, so no error class")
        let human = try world.run(["diagnostics"], status: 0).stdout
        #expect(human.contains("\noutbox: 1 done, 2 failed, 1 inFlight, 3 pending\n  waiting, by attempts: 0×3, 1×1, 3×2\n  oldest waiting: "), "\(human)")
        // No payload, no id, no idempotency key in the bundle.
        let ids = try world.sqlite("main", "SELECT entity_id || char(10) || idempotency_key || char(10) || hex(payload) FROM outbox").stdout
        let json = try world.run(["diagnostics", "--json"], status: 0).stdout
        for id in ids.split(separator: "\n") where id.count >= 8 {
            #expect(!human.contains(id) && !json.contains(id), "\(id)")
        }
        expectNoCanary(world)
    }

    // MARK: The bundle itself

    @Test func outWritesANewPrivateFileAndNeverOverwrites() throws {
        let world = try SweepWorld()
        try journal(world)
        let path = world.outputs.appendingPathComponent("bundle.json").path
        let written = try world.run(["diagnostics", "--json", "--out", path], status: 0)
        #expect(written.stdout.isEmpty)
        #expect(written.stderr.contains("Diagnostics written to \(path).\n"), "\(written)")
        #expect(mode(path) == 0o600)
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(Set(bundle.keys) == ["bmvault", "libraries", "system", "vault", "outbox", "secretService", "recentLog"])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let again = try world.run(["diagnostics", "--out", path], status: 1)
        #expect(again.stderr.contains("Error: create \(path) failed: File exists\n"), "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // Not through a symlink either.
        let link = world.outputs.appendingPathComponent("link.txt").path
        let target = world.outputs.appendingPathComponent("target.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try world.run(["diagnostics", "--out", link], status: 1)
        #expect(!FileManager.default.fileExists(atPath: target))
        try world.run(["diagnostics", "--out", world.outputs.appendingPathComponent("no/such/dir.txt").path], status: 1)

        let text = world.outputs.appendingPathComponent("bundle.txt").path
        try world.run(["diagnostics", "--out", text], status: 0)
        #expect(mode(text) == 0o600)
        #expect(try String(contentsOfFile: text, encoding: .utf8).hasPrefix("bmvault \(try SweepWorld.bmvaultVersion()) (libsodium "))
        expectNoCanary(world)
    }

    @Test func theBundleNamesWhereTheVaultPathCameFromNeverThePath() throws {
        let world = try SweepWorld()
        let marker = "PATHMARK\(UUID().uuidString.prefix(8))"
        let name = "vault-\(marker)"
        try journal(world, vault: name)
        let directory = world.vaultDirectory(name).path
        var outputs: [(String, String)] = []
        for arguments in [["diagnostics"], ["diagnostics", "--json"]] {
            let viaHome = try world.run(arguments, vault: name, status: 0)
            let viaOption = try world.run(["--vault", directory] + arguments, vault: "elsewhere", status: 0)
            let viaDefault = try world.run(arguments, vault: "unused", environment: ["BMVAULT_HOME": "", "XDG_DATA_HOME": world.vaultDirectory(name + "-data").path],
                                           status: 0)
            outputs += [("BMVAULT_HOME", viaHome.stdout), ("--vault", viaOption.stdout), ("default", viaDefault.stdout)]
        }
        let out = world.outputs.appendingPathComponent("bundle.json").path
        try world.run(["diagnostics", "--json", "--out", out], vault: name, status: 0)
        outputs.append(("BMVAULT_HOME", try String(contentsOfFile: out, encoding: .utf8)))
        for (location, text) in outputs {
            #expect(!text.contains(marker), "the vault's path is in the bundle:\n\(text)")
            #expect(!text.contains(world.root.path), "a test path is in the bundle:\n\(text)")
            #expect(text.contains("\"location\" : \"\(location)\"") || text.contains("vault (\(location) location):"), "\(location): \(text)")
        }
        // The vault itself was inspected through the option: same counts as through the variable.
        let viaOption = try document(try world.run(["--vault", directory, "diagnostics", "--json"], vault: "elsewhere", status: 0))
        #expect((viaOption["vault"] as? [String: Any])?["counts"] as? [String: Int] == ["books": 1, "sessions": 1, "notes": 1, "quotes": 1])
        expectNoCanary(world)
    }

    @Test func recentLogLinesAreIncludedScrubbedAndBounded() throws {
        let world = try SweepWorld()
        let c = world.canary.text
        let book = try journal(world)
        try world.run(["note", "add", "title", "resolved by title \(c)"], status: 0)
        try world.run(["lock"], status: 0)
        try world.run(["unlock", "--passphrase-stdin"], stdin: "wrong \(c)\n", status: 77)

        let report = try diagnostics(world)
        let recent = try #require(report["recentLog"] as? [String])
        // The lines are the log's own, up to the moment diagnostics read it.
        let log = world.logLines()
        #expect(recent == Array(log.dropLast().suffix(recent.count)), "\(recent)\n---\n\(log.suffix(recent.count + 1))")
        #expect(recent.contains { $0.range(of: #" debug journal\.book\.resolved book=<redacted:[0-9a-f]{8}> candidates=1$"#, options: .regularExpression) != nil })
        #expect(recent.contains { $0.hasSuffix(" warning vault.unlock.refused reason=wrongPassphrase") }, "why it did not unlock")
        #expect(recent.contains { $0.contains(" warning cli.command.failed command=unlock error=VaultError.wrongPassphrase status=77 ") })
        #expect(!recent.contains { $0.contains(book) }, "record ids are not logged")

        // At most 50 lines.
        for _ in 1...20 { try world.run(["status"], status: 0) }
        let bounded = try #require(try diagnostics(world)["recentLog"] as? [String])
        #expect(bounded.count == 50)
        #expect(try world.run(["diagnostics"], status: 0).stdout.contains("\nrecent log lines (50):\n"))
        // Every line has the log's shape: time, level, event, key=value fields.
        for line in bounded {
            #expect(line.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (debug|info|notice|warning|error) [a-zA-Z0-9._-]+( [a-zA-Z0-9._-]+=("([^"\\]|\\.)*"|\S+))*$"#,
                                options: .regularExpression) != nil, "\(line)")
        }
        expectNoCanary(world)
    }

    // MARK: Helpers

    /// The report path from "A failure report (no journal content) was written to PATH."
    private func reportPath(in result: CommandResult, world: SweepWorld) -> String? {
        let prefix = "A failure report (no journal content) was written to "
        guard let line = result.stderr.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        let path = String(line.dropFirst(prefix.count).dropLast())
        #expect(path.hasPrefix(world.reportsDirectory.path + "/"), "\(path)")
        #expect(FileManager.default.fileExists(atPath: path))
        return path
    }

    private func mode(_ path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }
}
