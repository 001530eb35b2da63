import Foundation
import Testing

/// Issue 40, items 6 and 7: a FIFO where bmvault reads a file (a backup, a blob in `files/`,
/// a CA file), and a passphrase command that floods its pipe or leaves a child holding it,
/// each end at once with one line and a documented exit code. Every command runs under
/// `timeout`, so what used to hang fails with 124 or 137 instead of holding the suite.
@Suite struct StuckInputTests {
    static let limit = 30

    // MARK: - FIFOs

    @Test func restoringFromAFIFOIsRefusedAtOnce() throws {
        let vault = try TestVault()
        let fifo = vault.root.appendingPathComponent("backup.db")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let result = try vault.run(["restore", fifo.path], within: Self.limit)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr == "Error: \(fifo.path) is not a file (a FIFO, a device or a folder), so not a backup; nothing was restored\n")
        #expect(!FileManager.default.fileExists(atPath: vault.databasePath))
    }

    @Test func aBlobReplacedByAFIFOIsReportedNotWaitedOn() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let pdf = vault.root.appendingPathComponent("book.pdf")
        try BookFileSamples.pdf(title: "Piped", author: "Anon").write(to: pdf)
        try vault.succeed(["file", "add", pdf.path])
        let files = try #require(try vault.json(["file", "list", "--json"]) as? [[String: Any]])
        let id = try #require(files.first?["id"] as? String)
        let folder = vault.directory.appendingPathComponent("files")
        let blob = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { !$0.hasPrefix(".") })
        try FileManager.default.removeItem(at: folder.appendingPathComponent(blob))
        #expect(mkfifo(folder.appendingPathComponent(blob).path, 0o600) == 0)

        let verify = try vault.run(["file", "verify"], within: Self.limit)
        #expect(verify.status == 65 && verify.stderr.contains("1 book file missing, unreadable or changed"), "\(verify)")
        let out = vault.root.appendingPathComponent("out.pdf")
        let export = try vault.run(["file", "export", id, "--out", out.path], within: Self.limit)
        #expect(export.status == 65, "\(export)")
        #expect(export.stderr == "Error: book file \(id): its stored copy in the vault's files folder is not a file (a FIFO, a device or a folder), so it was not read; `bmvault file verify` lists every such file\n")
        #expect(!FileManager.default.fileExists(atPath: out.path), "a failed export left its output file")
    }

    @Test func aCAFileThatBecameAFIFOStopsOnlyThatRemote() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let ca = vault.root.appendingPathComponent("ca.pem")
        #expect(mkfifo(ca.path, 0o600) == 0)
        // As `remote add --ca-file` left it, before the file was replaced by a FIFO.
        _ = try vault.sqlite("""
            INSERT INTO remote (name, kind, location, ca_file, added_at, carries_files, needs_snapshot)
            VALUES ('dav', 'webdav', 'https://127.0.0.1:9/dav', '\(ca.path)', 0, 0, 0)
            """)
        let result = try vault.run(["sync"], within: Self.limit)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("the CA file of remote dav cannot be read or is not a file (a FIFO, a device?)"), "\(result)")
    }

    // MARK: - The passphrase command

    /// `--no-keyring`: the key comes from BMVAULT_PASSPHRASE_COMMAND.
    private func runKeyless(_ command: String) throws -> (TestVault, Data, CommandResult) {
        let vault = try TestVault()
        try vault.create()
        let before = try vault.databaseBytes()
        let result = try vault.run(["--no-keyring", "book", "add", "Never written"], within: Self.limit,
                                   environment: ["BMVAULT_PASSPHRASE_COMMAND": command])
        return (vault, before, result)
    }

    @Test func aFirstLineOverThePipeSizeIsRefusedNotDeadlocked() throws {
        // 100 KiB without a line break: more than a pipe holds, so the command blocks in its
        // write unless bmvault keeps reading past its 4,096-byte limit.
        let (vault, before, result) = try runKeyless("sh -c 'head -c 102400 /dev/zero | tr \"\\000\" x; echo'")
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr == "Error: the passphrase is longer than 4096 bytes; nothing was changed\n")
        #expect(try vault.databaseBytes() == before)
    }

    @Test func aChildLeftHoldingTheOutputDoesNotHoldBmvault() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-child-\(UUID().uuidString)")
        defer {
            if let pid = try? String(contentsOf: pidFile, encoding: .utf8), let number = pid_t(pid.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(number, SIGKILL)
            }
            try? FileManager.default.removeItem(at: pidFile)
        }
        let started = Date()
        // The command prints the passphrase and exits; the `sleep` it started keeps its output open.
        let (_, _, result) = try runKeyless("sh -c 'printf \"%s\\n\" \"\(TestVault.passphrase)\"; sleep 120 & echo $! > \(pidFile.path)'")
        #expect(result.status == 0, "\(result)")
        #expect(Date().timeIntervalSince(started) < 10, "bmvault waited for the command's child")
    }
}
