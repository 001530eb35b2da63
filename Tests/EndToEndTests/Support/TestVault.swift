import Foundation
import Testing

/// A throwaway vault directory and the environment to run bmvault against it, using the
/// private Secret Service that Scripts/test started (inherited D-Bus address).
final class TestVault {
    static let passphrase = "correct horse battery staple"

    let root: URL
    var directory: URL { root.appendingPathComponent("vault") }
    var databasePath: String { directory.appendingPathComponent("vault.db").path }
    var environment: [String: String]

    init(environment overrides: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["BMVAULT_HOME"] = root.appendingPathComponent("vault").path
        environment["BMVAULT_KEYRING_TIMEOUT_MS"] = "3000"
        // An editor a test did not mean to open fails at once: without one, bmvault would
        // fall back to `editor` or `vi`, which would wait on the test's terminal for ever.
        environment["EDITOR"] = "/bin/false"
        // At a test's terminal long output goes through a pager that never waits for a key.
        environment["PAGER"] = "cat"
        environment["VISUAL"] = nil
        environment["TZ"] = "UTC"
        for (name, value) in overrides { environment[name] = value }
        self.environment = environment
    }

    deinit {
        // Leave no key behind in the shared test keyring.
        _ = try? Binary.run(Binary.path, ["lock"], environment: environment)
        try? FileManager.default.removeItem(at: root)
    }

    /// Runs `bmvault ARGUMENTS`.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws -> CommandResult {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        return try Binary.run(Binary.path, arguments, stdin: stdin, environment: environment)
    }

    /// Runs `bmvault ARGUMENTS` under coreutils `timeout`: a command that would hang ends
    /// with status 124 (137 if it ignored SIGTERM) after `seconds`, instead of holding the
    /// suite for ever.
    func run(_ arguments: [String], within seconds: Int, environment extra: [String: String] = [:]) throws -> CommandResult {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        return try Binary.run("/usr/bin/timeout", ["-k", "2", String(seconds), Binary.path] + arguments, environment: environment)
    }

    /// Runs a command that must succeed, and returns its result.
    @discardableResult
    func succeed(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let result = try run(arguments, stdin: stdin)
        #expect(result.status == 0, "bmvault \(arguments.joined(separator: " ")) failed:\n\(result)", sourceLocation: sourceLocation)
        return result
    }

    /// `init` with the test passphrase and the fast KDF; returns the recovery key line.
    @discardableResult
    func create() throws -> String {
        try succeed(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: Self.passphrase + "\n").line
    }

    /// `init` then `unlock`.
    func createUnlocked() throws {
        try create()
        try succeed(["unlock", "--passphrase-stdin"], stdin: Self.passphrase + "\n")
    }

    /// Every byte of every file in the vault directory (database, -wal, -shm, anything else).
    func filesOnDisk() throws -> [(name: String, bytes: Data)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return try names.map { ($0, try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// The database file's bytes, to prove an operation changed nothing.
    func databaseBytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: databasePath))
    }

    /// The database's bytes, but for the two header fields in which SQLite counts the
    /// transactions written with a rollback journal (the file change counter at offset 24
    /// and the version-valid-for number at 92): a failed import that wrote with a rollback
    /// journal leaves every other byte as it was once SQLite has rolled it back.
    func databaseBytesIgnoringChangeCounter() throws -> Data {
        var bytes = try databaseBytes()
        for offset in [24, 92] where bytes.count >= offset + 4 {
            bytes.replaceSubrange(offset..<(offset + 4), with: [0, 0, 0, 0])
        }
        return bytes
    }

    /// Parses `stdout` of a `--json` command.
    func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let result = try succeed(arguments, sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// The short id the vault shows for the live record `id` (the first word of `show`'s
    /// `id:` line), for comparing messages and listings.
    func short(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let shown = try succeed(["show", id], sourceLocation: sourceLocation).stdout
        let line = try #require(shown.split(separator: "\n").first { $0.hasPrefix("id:") }, sourceLocation: sourceLocation)
        return try #require(line.split(separator: " ").dropFirst().first.map(String.init), sourceLocation: sourceLocation)
    }
}

/// The random part of a full id (the hex digits after its clock and version digit), worked
/// out here independently of bmvault's own code, to check the short ids and file names it shows.
func randomPart(of id: String) -> String {
    let characters = Array(id)
    return String(characters[15..<18] + characters[19..<23] + characters[24..<36])
}
