import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The canary and the search

/// A random marker planted in every kind of content, and every form in which it could
/// betray itself: as text (in any case), as hex, base64 (at each of the three byte
/// alignments a surrounding stream could give it), and UTF-16 in either byte order.
struct SweepCanary {
    struct Form {
        let name: String
        let bytes: [UInt8]
    }

    let text: String
    let forms: [Form]

    init(_ text: String = "BMV-CANARY-\(UUID().uuidString)") {
        self.text = text
        let utf8 = Array(text.utf8)
        var forms = [
            Form(name: "utf8", bytes: utf8),
            Form(name: "utf8 lowercased", bytes: Array(text.lowercased().utf8)),
            Form(name: "utf8 uppercased", bytes: Array(text.uppercased().utf8)),
            Form(name: "hex", bytes: Array(Self.hex(utf8, uppercase: false).utf8)),
            Form(name: "HEX", bytes: Array(Self.hex(utf8, uppercase: true).utf8)),
            Form(name: "utf16le", bytes: text.utf16.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }),
            Form(name: "utf16be", bytes: text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }),
        ]
        // Base64 encodes 3 bytes as 4 characters, so the canary's characters depend on where
        // in the stream it starts. For each alignment, the groups made of canary bytes only.
        for alignment in 0..<3 {
            let skip = (3 - alignment) % 3
            let whole = (utf8.count - skip) / 3 * 3
            let encoded = Data(utf8[skip..<(skip + whole)]).base64EncodedString()
            forms.append(Form(name: "base64 (stream offset \(alignment) mod 3)", bytes: Array(encoded.utf8)))
        }
        var seen = Set<[UInt8]>()
        self.forms = forms.filter { seen.insert($0.bytes).inserted }
    }

    static func hex(_ bytes: [UInt8], uppercase: Bool) -> String {
        bytes.map { String(format: uppercase ? "%02X" : "%02x", $0) }.joined()
    }
}

/// One place the canary was found.
struct CanaryHit: CustomStringConvertible, Hashable {
    let artifact: String
    let form: String
    let offset: Int

    var description: String { "\(artifact): \(form) at byte \(offset)" }
}

/// Searches bytes for every form of a canary and remembers where it found one.
final class CanarySearch {
    let canary: SweepCanary
    private(set) var hits: [CanaryHit] = []
    /// Every artifact searched (outputs by label, files by path relative to their root).
    private(set) var searched = Set<String>()
    private(set) var searchedBytes = 0
    /// Files already searched as they were: path → (size, mtime, inode).
    private var unchanged: [String: [Int]] = [:]

    init(_ canary: SweepCanary) {
        self.canary = canary
    }

    func search(_ name: String, _ bytes: [UInt8]) {
        searched.insert(name)
        searchedBytes += bytes.count
        for form in canary.forms {
            guard let offset = Self.find(form.bytes, in: bytes) else { continue }
            let hit = CanaryHit(artifact: name, form: form.name, offset: offset)
            if !hits.contains(hit) { hits.append(hit) }
        }
    }

    func search(_ name: String, _ text: String) {
        search(name, Array(text.utf8))
    }

    /// Every file below `root` (hidden ones, sockets' names and symlink targets included),
    /// and every file name. A file unchanged since the last search is not read again.
    func searchTree(_ root: URL, as label: String) {
        guard let paths = try? FileManager.default.subpathsOfDirectory(atPath: root.path) else { return }
        search("\(label) (file names)", paths.joined(separator: "\n"))
        for relative in paths {
            let path = root.appendingPathComponent(relative).path
            let name = "\(label)/\(relative)"
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                search(name + " (link)", (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "")
            case S_IFREG:
                let signature = [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ino)]
                // Small files (SQLite's -shm is written through mmap) are always read again.
                if info.st_size > 65_536 && unchanged[path] == signature { continue }
                guard let data = FileManager.default.contents(atPath: path) else {
                    Issue.record("could not read \(path)")
                    continue
                }
                unchanged[path] = signature
                search(name, [UInt8](data))
            default:
                searched.insert(name)
            }
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        // memchr for the first byte, memcmp for the rest (Glibc's memmem is not imported).
        return haystack.withUnsafeBytes { hay -> Int? in
            needle.withUnsafeBytes { pin -> Int? in
                let base = hay.baseAddress!
                let last = hay.count - pin.count
                var start = 0
                while start <= last {
                    guard let found = memchr(base + start, Int32(pin[0]), last - start + 1) else { return nil }
                    let offset = UnsafeRawPointer(found) - base
                    if memcmp(found, pin.baseAddress!, pin.count) == 0 { return offset }
                    start = offset + 1
                }
                return nil
            }
        }
    }
}

// MARK: - A private world for one test

/// Directories of one test's own (vaults, state, runtime, TMPDIR, outputs) and the
/// environment that points bmvault at them; every run is at `--debug`, and after every run
/// every output and every file is searched for the canary.
final class SweepWorld {
    let canary: SweepCanary
    let search: CanarySearch
    let root: URL
    let vaults: URL, state: URL, runtime: URL, temporary: URL, outputs: URL
    /// Editor scripts: outside the searched directories (they are the test's, not bmvault's).
    let tools: URL
    var environment: [String: String]
    /// Every run, in order: its label and result.
    private(set) var runs: [(label: String, result: CommandResult)] = []
    /// Standard output of commands whose job is to show the journal (list, show, search,
    /// book list): content there is the point, so it is not searched, but it is kept to
    /// prove the content was there to leak.
    private(set) var shownContent: [String] = []
    private var mounts: [String] = []
    private var vaultNames = Set<String>()

    var stateDirectory: URL { state.appendingPathComponent("bmvault") }
    var logFile: URL { stateDirectory.appendingPathComponent("bmvault.log") }
    var reportsDirectory: URL { stateDirectory.appendingPathComponent("reports") }

    init(canary: SweepCanary = SweepCanary()) throws {
        self.canary = canary
        search = CanarySearch(canary)
        root = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-sweep-\(UUID().uuidString)")
        vaults = root.appendingPathComponent("vaults")
        state = root.appendingPathComponent("state")
        runtime = root.appendingPathComponent("runtime")
        temporary = root.appendingPathComponent("tmp")
        outputs = root.appendingPathComponent("out")
        tools = root.appendingPathComponent("tools")
        for directory in [vaults, state, runtime, temporary, outputs, tools] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("BMVAULT_TEST_") || name == "EDITOR" || name == "VISUAL" {
            environment[name] = nil
        }
        environment["BMVAULT_KEYRING_TIMEOUT_MS"] = "3000"
        environment["TZ"] = "UTC"
        environment["XDG_STATE_HOME"] = state.path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["TMPDIR"] = temporary.path
        // No editor or pager a run did not ask for may wait on the sweep's terminal.
        environment["EDITOR"] = "/bin/false"
        environment["PAGER"] = "cat"
        self.environment = environment
    }

    deinit {
        // Leave no key behind in the shared test keyring, and no mount.
        for name in vaultNames {
            var environment = self.environment
            environment["BMVAULT_HOME"] = vaultDirectory(name).path
            _ = try? Binary.run(Binary.path, ["lock"], environment: environment)
        }
        for mount in mounts.reversed() { umount2(mount, 2 /* MNT_DETACH */) }
        try? FileManager.default.removeItem(at: root)
    }

    func vaultDirectory(_ name: String) -> URL { vaults.appendingPathComponent(name) }
    func databasePath(_ name: String) -> String { vaultDirectory(name).appendingPathComponent("vault.db").path }

    /// Runs `bmvault --debug ARGUMENTS` on vault `vault`, then searches its outputs and
    /// every file. `status`: the exit status expected.
    @discardableResult
    func run(_ arguments: [String], vault: String = "main", stdin: String? = nil, environment extra: [String: String] = [:],
             showsContent: Bool = false, status: Int32? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        vaultNames.insert(vault)
        var environment = self.environment
        environment["BMVAULT_HOME"] = vaultDirectory(vault).path
        for (name, value) in extra { environment[name] = value }
        let result = try Binary.run(Binary.path, ["--debug"] + arguments, stdin: stdin, environment: environment)
        record(arguments.joined(separator: " "), result, showsContent: showsContent, status: status, sourceLocation: sourceLocation)
        return result
    }

    /// Runs bmvault on a terminal (util-linux `script`), so it opens `$EDITOR`. Standard
    /// output and error arrive together as `stdout`. No core file, whatever the limits.
    /// `showsContent`: what a person at the terminal is meant to read, such as the title
    /// `note add` names there.
    @discardableResult
    func runOnTerminal(_ arguments: [String], vault: String = "main", environment extra: [String: String] = [:],
                       showsContent: Bool = false, status: Int32? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        vaultNames.insert(vault)
        var environment = self.environment
        environment["BMVAULT_HOME"] = vaultDirectory(vault).path
        environment["SHELL"] = "/bin/sh"
        for (name, value) in extra { environment[name] = value }
        let command = ([Binary.path, "--debug"] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try Binary.run("/usr/bin/script", ["-qec", "ulimit -c 0; exec \(command)", "/dev/null"], environment: environment)
        record("(terminal) " + arguments.joined(separator: " "), result, showsContent: showsContent, status: status, sourceLocation: sourceLocation)
        return result
    }

    private func record(_ label: String, _ result: CommandResult, showsContent: Bool, status: Int32?, sourceLocation: SourceLocation) {
        let index = runs.count
        runs.append((label, result))
        if let status {
            #expect(result.status == status, "bmvault --debug \(label): expected exit \(status)\n\(result)", sourceLocation: sourceLocation)
        }
        if showsContent {
            shownContent.append(result.stdout)
        } else {
            search.search("run \(index) [\(label)] stdout", result.stdout)
        }
        search.search("run \(index) [\(label)] stderr", result.stderr)
        searchFiles()
    }

    /// Every file under the vaults, the state directory, the runtime directory, TMPDIR and
    /// the diagnostics outputs.
    func searchFiles() {
        search.searchTree(vaults, as: "vaults")
        search.searchTree(state, as: "state")
        search.searchTree(runtime, as: "runtime")
        search.searchTree(temporary, as: "tmp")
        search.searchTree(outputs, as: "out")
    }

    /// Runs sqlite3 on a vault's database, behind bmvault's back.
    @discardableResult
    func sqlite(_ vault: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let result = try Binary.run("/usr/bin/sqlite3", [databasePath(vault), sql], environment: environment)
        #expect(result.status == 0, "sqlite3: \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// A new, unlocked vault named `name` with `passphrase`; returns its recovery key.
    @discardableResult
    func createUnlocked(_ name: String, passphrase: String) throws -> String {
        let recoveryKey = try run(["init", "--passphrase-stdin", "--kdf", "interactive"], vault: name, stdin: passphrase + "\n", status: 0).line
        try run(["unlock", "--passphrase-stdin"], vault: name, stdin: passphrase + "\n", status: 0)
        return recoveryKey
    }

    /// Rewrites the vault as schema v1 with the same content, as bmvault 0.1.0 left it. With
    /// `keepRekeyJob`, a stray `rekey_job` table is left in the way, so migration 0002 fails.
    func downgradeToV1(_ name: String, keepRekeyJob blockingMigration2: Bool = false) throws {
        try Schema.downgradeToVersionOne(databasePath(name), environment: ProcessInfo.processInfo.environment)
        if blockingMigration2 { try sqlite(name, "CREATE TABLE rekey_job (id INTEGER PRIMARY KEY);") }
    }

    /// An editor script in `tools`: `body` runs with the buffer as `$1`.
    ///
    /// The command is `/bin/sh <script>`: the script is read, never executed itself, because
    /// a process another test starts meanwhile can inherit the descriptor Foundation wrote it
    /// through, and executing a file open for writing fails (`ETXTBSY`, "Text file busy").
    func editor(_ name: String, _ body: String) throws -> String {
        let path = tools.appendingPathComponent(name).path
        try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return "/bin/sh '\(path)'"
    }

    /// An editor that sends `signal` to the bmvault process that started it, and waits to be killed.
    func killingEditor(signal: String, writing text: String? = nil) throws -> String {
        try editor("kill-\(signal).sh", """
            \(text.map { "printf '%s\\n' '\($0)' > \"$1\"" } ?? ":")
            pid=$$
            while [ "$pid" -gt 1 ]; do
              pid=$(awk '{print $4}' /proc/$pid/stat)
              if [ "$(cat /proc/$pid/comm)" = bmvault ]; then kill -\(signal) "$pid"; sleep 2; exit 0; fi
            done
            exit 9
            """)
    }

    /// Fills the log file to just under its rotation size, so that the runs that follow
    /// rotate it and the search covers `bmvault.log.1` too.
    func fillLogNearlyToRotation() throws {
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let line = "1970-01-01T00:00:00.000Z info sweep.filler padding=\(String(repeating: "x", count: 60))\n"
        let count = ((1 << 20) - 6_000) / line.utf8.count
        try Data(String(repeating: line, count: count).utf8).write(to: logFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: logFile.path)
    }

    /// Mounts a small tmpfs at vault `name`'s directory (root only); false when it cannot.
    func mountSmallFilesystem(for name: String, kilobytes: Int) throws -> Bool {
        guard Self.canMountTmpfs else { return false }
        let directory = vaultDirectory(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard Self.mountTmpfs(at: directory.path, kilobytes: kilobytes) else { return false }
        mounts.append(directory.path)
        return true
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as in the CI container).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-sweep-probe-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { rmdir(probe) }
        guard mountTmpfs(at: probe, kilobytes: 64) else { return false }
        umount2(probe, 2 /* MNT_DETACH */)
        return true
    }()

    private static func mountTmpfs(at path: String, kilobytes: Int) -> Bool {
        Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k,mode=0700") == 0
    }

    /// Every log line bmvault wrote (the log and its rotated files), oldest first.
    func logLines() -> [String] {
        ["bmvault.log.2", "bmvault.log.1", "bmvault.log"].flatMap { name -> [String] in
            let path = stateDirectory.appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    /// The id in `{"id": ...}` printed by an `add --json`.
    func id(fromJSON result: CommandResult) -> String {
        ((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any])?["id"] as? String ?? ""
    }

    func files(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}

// MARK: - The sweep

/// The proof that nothing a reader writes, and not their passphrase, reaches a log, an
/// error, a report, a diagnostics bundle or a stray file: a canary planted in every kind
/// of content and in the passphrase, every command run at `--debug` (success and error
/// paths), and every output and every file searched for it in every encoding.
@Suite(.serialized) struct CanarySweepTests {
    @Test func everyCommandAtTheHighestLevelLeavesNoTrace() throws {
        let world = try SweepWorld()
        let c = world.canary.text
        let passphrase = "pass phrase \(c)"
        let newPassphrase = "new phrase \(c)"
        try world.fillLogNearlyToRotation()

        // MARK: The vault and its key
        let recoveryKey = try world.run(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: passphrase + "\n", status: 0).line
        try world.run(["init", "--passphrase-stdin", "--kdf", "interactive"], stdin: passphrase + "\n", status: 1)
        try world.run(["status"], status: 0)
        try world.run(["status", "--json"], status: 0)
        try world.run(["list"], showsContent: true, status: 77)
        try world.run(["__complete-book", "title"], status: 0)      // locked: no titles, no prompt, no failure
        try world.run(["book", "add", "title \(c)"], status: 77)
        try world.run(["note", "add", "title", "note \(c)"], status: 77)
        try world.run(["unlock", "--passphrase-stdin"], stdin: "wrong \(c)\n", status: 77)
        try world.run(["unlock", "--passphrase-stdin", "--timeout", c], stdin: passphrase + "\n", status: 64)
        try world.run(["unlock", "--passphrase-stdin", "--timeout", "2h"], stdin: passphrase + "\n", status: 0)
        try world.run(["init", "--passphrase-stdin", "--kdf", c], vault: "never", stdin: passphrase + "\n", status: 64)

        // MARK: Books, sessions, notes and quotes, and their error paths
        let book = try world.run(["book", "add", "title \(c) first volume", "--author", "author \(c)", "--author", "second author \(c)"], status: 0).line
        let secondBook = world.id(fromJSON: try world.run(["book", "add", "title \(c) second volume", "--json"], status: 0))
        try world.run(["book", "add", "title\n\(c)"], status: 65)
        try world.run(["book", "add", "title \(c)", "--author", "bad\u{1b}[2J\(c)"], status: 65)
        try world.run(["book", "list"], showsContent: true, status: 0)
        try world.run(["book", "list", "--json"], showsContent: true, status: 0)
        try world.run(["book", "progress", book, "42.5%"], status: 0)
        try world.run(["book", "progress", book, c], status: 64)
        try world.run(["book", "progress", book, "142"], status: 64)
        try world.run(["book", "progress", "title \(c)", "50"], status: 64)           // ambiguous: two titles start so
        try world.run(["book", "progress", "unknown \(c)", "50"], status: 66)         // unknown book
        let session = try world.run(["session", "add", book, "--pages", "12", "--start", "2026-12-01 10:00", "--end", "2026-12-01 11:00"], status: 0).line
        try world.run(["session", "add", secondBook, "--pages", "3", "--minutes", "0", "--json"], status: 0)
        try world.run(["session", "add", book, "--pages", c], status: 64)
        try world.run(["session", "add", book, "--pages", "3", "--start", c], status: 64)
        try world.run(["session", "add", "unknown \(c)", "--pages", "3", "--minutes", "5"], status: 66)
        try world.run(["session", "add", book, "--pages", "3", "--start", "2030-01-01 10:00", "--end", "2030-01-01 11:00"], status: 65)
        try world.run(["session", "list"], showsContent: true, status: 0)
        try world.run(["session", "list", "--book", book, "--since", "2026-12-01", "--json"], showsContent: true, status: 0)
        try world.run(["session", "list", "--since", c], status: 64)
        try world.run(["session", "list", "--book", "unknown \(c)"], status: 66)
        let doomedSession = try world.run(["session", "add", book, "--pages", "2", "--start", "2026-12-01 12:00", "--end", "2026-12-01 12:30"], status: 0).line
        try world.run(["session", "edit", doomedSession, "--pages", "4", "--start", "11:45"], status: 0)
        try world.run(["session", "edit", doomedSession, "--end", c], status: 64)
        try world.run(["session", "edit", doomedSession, "--end", "2030-01-01"], status: 65)
        try world.run(["session", "edit", book, "--pages", "4"], status: 65)
        try world.run(["session", "delete", doomedSession, book], status: 65)
        try world.run(["session", "delete", doomedSession], status: 0)
        try world.run(["book", "edit", book, "--title", "title \(c) first volume, corrected", "--author", "author \(c)"], status: 0)
        try world.run(["book", "edit", book, "--title", "title \(c) first volume, corrected"], status: 0)   // nothing to change
        try world.run(["book", "edit", book, "--author", "bad\u{1b}[2J\(c)"], status: 65)
        try world.run(["book", "edit", book], status: 64)
        try world.run(["book", "edit", "unknown \(c)", "--title", "title \(c)"], status: 66)
        try world.run(["book", "want", book, "--on", "2026-11-01"], status: 0)
        try world.run(["book", "start", book, "--on", c], status: 64)
        try world.run(["book", "finish", book, "--on", "2030-01-01"], status: 65)
        try world.run(["book", "start", book, "--on", "2026-11-02"], status: 0)
        try world.run(["book", "abandon", book, "--on", "2026-11-03"], status: 0)
        try world.run(["book", "finish", book], status: 0)
        try world.run(["book", "abandon", "unknown \(c)"], status: 66)
        try world.run(["book", "rate", book, "4.5"], status: 0)
        try world.run(["book", "rate", book, c], status: 64)
        try world.run(["book", "list", "--status", "finished"], showsContent: true, status: 0)
        try world.run(["stats"], showsContent: true, status: 0)
        // MARK: Shell conventions: the scripts and the page hold no content; titles only when the shell asks
        try world.run(["version"], status: 0)
        for shell in ["bash", "zsh", "fish"] { try world.run(["completion", shell], status: 0) }
        try world.run(["completion", c], status: 64)
        try world.run(["man"], status: 0)
        let titles = try world.run(["__complete-book", "title"], showsContent: true, status: 0)
        #expect(titles.stdout.contains("title \(c)"), "unlocked, the helper gives the titles it was asked for")
        try world.run(["serach", c], status: 64)
        // Off the command line: a title piped in, then again (warned of by count and short id).
        try world.run(["book", "add", "--title-stdin"], stdin: "piped title \(c)\n", status: 0)
        let twice = try world.run(["book", "add", "--title-stdin"], stdin: "piped title \(c)\n", status: 0)
        #expect(twice.stderr.contains("Warning: the journal already had 1 book with this title"), "\(twice)")
        try world.run(["search", "--json"], stdin: c + "\n", showsContent: true, status: 0)
        let trashed = try world.run(["note", "add", book, "trashed \(c)"], status: 0).line
        try world.run(["delete", trashed], status: 0)
        try world.run(["trash"], showsContent: true, status: 0)
        try world.run(["undelete", trashed], status: 0)
        try world.run(["undelete", "0000\(c)"], status: 64)
        try world.run(["delete", book, "--with-notes"], status: 64)
        try world.run(["stats", "--year", c], status: 64)
        try world.run(["list", "--since", c], status: 64)
        try world.run(["search", c, "--book", "unknown \(c)"], status: 66)
        let note = try world.run(["note", "add", book, "note \(c)", "--locator", "locator \(c)"], status: 0).line
        let quote = world.id(fromJSON: try world.run(["quote", "add", book, "quote \(c)", "--locator", "page \(c)", "--json"], status: 0))
        let piped = try world.run(["note", "add", "title \(c) second"], stdin: "piped note \(c)\nits second line\n", status: 0).line
        try world.run(["note", "add", "title \(c)", "ambiguous \(c)"], status: 64)
        try world.run(["note", "add", "unknown \(c)", "orphan \(c)"], status: 66)
        try world.run(["quote", "add", book, "no locator \(c)"], status: 64)
        try world.run(["note", "add", book, "-my \(c) thought"], status: 64)
        try world.run(["note", "add", book, "--", "-- dashes \(c)"], status: 0)
        try world.run(["note", "add", book], stdin: "", status: 65)
        try world.run([c], status: 64)
        try world.run(["note", c], status: 64)
        try world.run(["help"], status: 0)
        try world.run(["help", "note", "add"], status: 0)
        try world.run(["note", "add", "--help"], status: 0)
        try world.run(["--version"], status: 0)
        try world.run(["--verbose", "status"], status: 0)

        // MARK: Reading back (content on standard output is the point there)
        try world.run(["list"], showsContent: true, status: 0)
        try world.run(["list", "--json"], showsContent: true, status: 0)
        try world.run(["list", "--book", "title \(c) second"], showsContent: true, status: 0)
        try world.run(["list", "--book", "unknown \(c)"], showsContent: true, status: 66)
        try world.run(["list", "--kind", "quote"], showsContent: true, status: 0)
        try world.run(["list", "--kind", c], showsContent: true, status: 64)
        for id in [note, quote, book, session] {
            try world.run(["show", id], showsContent: true, status: 0)
            try world.run(["show", id, "--json"], showsContent: true, status: 0)
        }
        try world.run(["show", c], showsContent: true, status: 64)
        try world.run(["show", "@last"], showsContent: true, status: 0)
        try world.run(["show", "@last~999"], showsContent: true, status: 66)
        try world.run(["show", "0123abcd"], showsContent: true, status: 66)
        try world.run(["search", c], showsContent: true, status: 0)
        try world.run(["search", c.lowercased(), "--json"], showsContent: true, status: 0)
        try world.run(["search", "nothing like it \(c)x"], showsContent: true, status: 0)
        try world.run(["search", " "], showsContent: true, status: 65)

        // MARK: Changing and deleting
        try world.run(["edit", note, "edited \(c)"], status: 0)
        try world.run(["edit", quote, "--locator", "moved \(c)"], status: 0)
        try world.run(["edit", quote, "--comment", "comment \(c)"], status: 0)
        try world.run(["show", quote], showsContent: true, status: 0)
        try world.run(["edit", piped], stdin: "restated \(c)\n", status: 0)
        try world.run(["edit", piped], stdin: "restated \(c)\n", status: 0)          // no change
        try world.run(["edit", book, "a book is not a note \(c)"], status: 65)
        try world.run(["edit", note, "--locator", "bad\u{7}\(c)"], status: 65)
        let doomed = try world.run(["note", "add", book, "doomed \(c)"], status: 0).line
        let unplaced = try world.run(["note", "add", book, "unplaced \(c)", "--locator", "locator \(c) to remove"], status: 0).line
        try world.run(["edit", unplaced, "--locator", ""], status: 0)
        try world.run(["edit", unplaced, "--kind", "quote"], status: 65)                // a quote needs a locator
        try world.run(["edit", quote, "--kind", "note"], status: 0)
        try world.run(["edit", quote, "--kind", "quote"], status: 0)
        try world.run(["move", note, "--to", "title \(c) second"], status: 0)
        try world.run(["move", note, "--to", book], status: 0)
        try world.run(["move", note, "--to", "unknown \(c)"], status: 66)
        try world.run(["move", book, "--to", book], status: 65)                        // a book is not a note
        // Tags are the reader's words too: only a listing shows them.
        try world.run(["tag", "add", note, c, "second-\(c)"], status: 0)
        try world.run(["tag", "add", note, c], status: 0)                               // there already
        try world.run(["tag", "add", book, c], status: 0)
        try world.run(["tag", "add", note, "two words \(c)"], status: 65)
        try world.run(["tag", "add", session, c], status: 65)                           // a session takes none
        try world.run(["tag", "remove", note, "other-\(c)", "second-\(c)"], status: 66)  // all or nothing
        try world.run(["tag", "remove", note, "second-\(c)"], status: 0)
        try world.run(["tag", "list"], showsContent: true, status: 0)
        try world.run(["tag", "list", "--json"], showsContent: true, status: 0)
        try world.run(["list", "--tag", c], showsContent: true, status: 0)
        try world.run(["search", c, "--tag", c], showsContent: true, status: 0)
        try world.run(["book", "list", "--tag", c], showsContent: true, status: 0)
        try world.run(["note", "add", book, "tagged \(c)", "--tag", "new-\(c)"], status: 0)
        try world.run(["edit", quote, "--locator", ""], status: 65)                    // a quote keeps one
        try world.run(["delete", doomed, "0000aaaa"], status: 66)                      // all or nothing
        try world.run(["delete", doomed, unplaced], status: 0)
        try world.run(["delete", doomed], status: 66)
        try world.run(["delete", book], status: 65)                                   // still has notes
        try world.run(["list", "--kind", "quote", "--book", secondBook], showsContent: true, status: 0)   // none: says so
        try world.run(["delete", c], status: 64)

        // MARK: Book files: the canary in the file's name, its metadata and text, and the locator.
        // The files themselves are the reader's, in `books`, outside the searched directories;
        // a plain copy asked for lands there too, and `file open` decrypts into a runtime
        // directory of its own (the point of it), emptied by the next command.
        let books = world.root.appendingPathComponent("books")
        try FileManager.default.createDirectory(at: books, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let epub = books.appendingPathComponent("title \(c).epub")
        try BookFileSamples.epub(at: epub, title: "file title \(c)", author: "file author \(c)", identifier: "urn:isbn:\(c)", text: "chapter \(c)")
        let linked = books.appendingPathComponent("linked \(c).epub")
        try BookFileSamples.epub(at: linked, title: "linked title \(c)", author: "file author \(c)", text: "linked chapter \(c)")
        let damaged = books.appendingPathComponent("damaged \(c).epub")
        try Data("PK\u{3}\u{4} not a zip \(c)".utf8).write(to: damaged)
        let fileID = world.id(fromJSON: try world.run(["file", "add", epub.path, "--json"], showsContent: true, status: 0))
        try world.run(["file", "add", epub.path], status: 0)                                        // the same content: nothing new
        let linkedID = world.id(fromJSON: try world.run(["file", "add", linked.path, "--link", "--book", "file title \(c)", "--json"],
                                                        showsContent: true, status: 0))
        try world.run(["file", "add", damaged.path], status: 65)
        try world.run(["file", "add", books.appendingPathComponent("missing \(c).epub").path], status: 66)
        try world.run(["file", "add", linked.path, "--book", "unknown \(c)"], status: 66)
        try world.run(["file", "list"], showsContent: true, status: 0)
        try world.run(["file", "list", "--json"], showsContent: true, status: 0)
        try world.run(["book", "progress", "file title \(c)", "--at", "loc \(c)"], status: 64)          // two files: --file says which
        try world.run(["book", "progress", "file title \(c)", "--at", "loc 1234 \(c)", "--file", fileID], status: 0)
        try world.run(["book", "progress", "file title \(c)", "--at", "bad\u{7}\(c)", "--file", fileID], status: 65)
        try world.run(["file", "export", fileID, "--out", books.appendingPathComponent("copy \(c).epub").path], showsContent: true, status: 0)
        try world.run(["file", "export", fileID, "--out", epub.path], status: 1)                     // never over a file
        try world.run(["file", "export", fileID, "--out", books.appendingPathComponent("nowhere \(c)/copy.epub").path], status: 66)
        let viewerRuntime = world.root.appendingPathComponent("viewer")
        try FileManager.default.createDirectory(at: viewerRuntime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let opened = try world.run(["file", "open", fileID, "--print-path"], environment: ["XDG_RUNTIME_DIR": viewerRuntime.path], status: 0)
        #expect(try String(contentsOfFile: opened.line, encoding: .isoLatin1).contains("chapter \(c)"), "the decrypted copy: \(opened)")
        try world.run(["file", "verify"], environment: ["XDG_RUNTIME_DIR": viewerRuntime.path], status: 0)
        #expect(!FileManager.default.fileExists(atPath: opened.line), "the next command removes what file open decrypted")
        world.search.searchTree(viewerRuntime, as: "viewer runtime")
        try world.run(["file", "verify", "--json"], status: 0)
        try FileManager.default.removeItem(at: linked)
        try world.run(["file", "verify", "--search", books.path], status: 65)
        try world.run(["file", "export", linkedID, "--out", books.appendingPathComponent("gone \(c).epub").path], status: 66)
        try world.run(["file", "remove", fileID], status: 0)

        // MARK: Sync: a remote folder, a second device, a conflict, failures and the outbox
        let remoteFolder = world.vaults.appendingPathComponent("remote-folder").path
        try FileManager.default.createDirectory(atPath: remoteFolder, withIntermediateDirectories: true)
        try world.run(["sync"], status: 66)                                            // no remote yet
        try world.run(["remote", "add", "usb", remoteFolder], status: 0)
        try world.run(["remote", "add", "usb", remoteFolder], status: 64)
        try world.run(["remote", "add", "bad name \(c)", remoteFolder], status: 64)
        try world.run(["remote", "add", "gone", remoteFolder + "/missing \(c)"], status: 69)
        try world.run(["remote", "list"], status: 0)
        try world.run(["remote", "list", "--json"], status: 0)
        try world.run(["remote", "retention"], status: 0)
        try world.run(["remote", "retention", "30"], status: 0)
        try world.run(["remote", "retention", "0"], status: 64)
        // The remote carries book files: the EPUB with the canary inside goes there sealed.
        try world.run(["file", "add", epub.path], status: 0)
        try world.run(["remote", "files", "usb", "on"], status: 0)
        try world.run(["remote", "files", "usb", "maybe \(c)"], status: 64)
        try world.run(["remote", "files", "nowhere", "on"], status: 66)     // a remote's name is a label, not content
        // A WebDAV remote whose password carries the canary: asked for, checked, kept in the
        // keyring, replaced, and forgotten with the remote; never in a log or a file.
        let server = try WebDAVServer(users: [("reader", "pw-\(c)")])
        try world.run(["remote", "add", "cloud", server.url, "--user", "reader", "--password-stdin"], stdin: "wrong-\(c)\n", status: 77)
        try world.run(["remote", "add", "cloud", server.url, "--user", "reader", "--password-stdin"], stdin: "pw-\(c)\n", status: 0)
        try world.run(["remote", "password", "cloud", "--password-stdin"], stdin: "wrong-\(c)\n", status: 77)
        try world.run(["remote", "password", "cloud", "--password-stdin"], stdin: "pw-\(c)\n", status: 0)
        try world.run(["remote", "password", "usb", "--password-stdin"], stdin: "pw-\(c)\n", status: 64)
        try world.run(["sync", "--remote", "cloud"], status: 0)
        try world.run(["remote", "remove", "cloud"], status: 0)
        try world.run(["sync"], status: 0)
        try world.run(["init", "--join", remoteFolder, "--passphrase-stdin"], vault: "second", stdin: "wrong \(c)\n", status: 77)
        try world.run(["init", "--join", remoteFolder, "--passphrase-stdin"], vault: "second", stdin: passphrase + "\n", status: 0)
        try world.run(["unlock", "--passphrase-stdin"], vault: "second", stdin: passphrase + "\n", status: 0)
        try world.run(["sync", "--json"], vault: "second", status: 0)
        try world.run(["remote", "files", "origin", "on"], vault: "second", status: 0)
        try world.run(["sync"], vault: "second", status: 0)                            // the EPUB's blob, received and checked
        try world.run(["file", "list"], vault: "second", showsContent: true, status: 0)
        let shared = try world.run(["note", "add", book, "shared \(c)"], status: 0).line
        try world.run(["sync"], status: 0)
        try world.run(["sync"], vault: "second", status: 0)
        try world.run(["edit", shared, "edited here \(c)"], status: 0)
        try world.run(["edit", shared, "edited there \(c)"], vault: "second", status: 0)
        try world.run(["sync"], status: 0)
        try world.run(["sync"], vault: "second", status: 0)
        try world.run(["sync"], status: 0)
        try world.run(["conflicts"], showsContent: true, status: 0)
        let conflicts = try world.run(["conflicts", "--json"], showsContent: true, status: 0)
        let copy = ((try? JSONSerialization.jsonObject(with: Data(conflicts.stdout.utf8))) as? [[String: Any]])?.first?["id"] as? String ?? ""
        #expect(!copy.isEmpty, "a conflict was listed")
        try world.run(["conflicts", "resolve", copy, "--keep", c], status: 64)
        try world.run(["conflicts", "resolve", "ffffffff-ffff-7fff-bfff-ffffffffffff", "--keep", "note"], status: 66)
        try world.run(["conflicts", "resolve", copy, "--keep", "both"], status: 0)
        try world.run(["purge"], status: 0)
        try world.run(["note", "add", book, "unsent \(c)"], status: 0)
        try world.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "fail-write:1"], status: 75)   // left to retry
        try world.run(["outbox"], status: 0)
        try world.run(["outbox", "--json"], status: 0)
        try world.run(["sync"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "unreachable"], status: 69)
        try world.run(["sync", "--retry-failed"], status: 0)
        try world.run(["list", "--fresh"], vault: "second", showsContent: true, status: 0)
        try world.run(["remote", "remove", "nowhere"], vault: "second", status: 66)
        try world.run(["remote", "remove", "origin"], vault: "second", status: 0)

        // MARK: Export and import. An archive is the journal itself, in plain text, by design: it
        // is written to `archives`, outside the searched directories; everything else is searched.
        let archives = world.root.appendingPathComponent("archives")
        try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let archive = archives.appendingPathComponent("export")
        try world.run(["export", "--out", archive.path], status: 0)
        try world.run(["export", "--out", archive.path], status: 1)                         // exists already
        try world.run(["export", "--out", archives.appendingPathComponent("with-deleted").path, "--include-deleted"], status: 0)
        try world.run(["export"], status: 64)
        // A notes folder (issue 46) is the journal in plain text too, by design, in `archives`;
        // its notes are named by their titles, which the lines about an edited note repeat.
        let notes = archives.appendingPathComponent("notes")
        try world.run(["export", "--markdown-folder", notes.path], status: 0)
        try world.run(["export", "--markdown-folder", notes.path], status: 0)               // nothing changed
        for name in try FileManager.default.contentsOfDirectory(atPath: notes.path) where name.hasSuffix(".md") {
            let note = notes.appendingPathComponent(name)
            let text = try String(contentsOf: note, encoding: .utf8)
            try text.replacingOccurrences(of: "<!-- bmvault:end -->", with: "edited in the notes app \(c)\n<!-- bmvault:end -->")
                .write(to: note, atomically: true, encoding: .utf8)
        }
        try world.run(["note", "add", book, "for the notes folder \(c)"], status: 0)
        try world.run(["export", "--markdown-folder", notes.path, "--show-edits"], showsContent: true, status: 1)
        try world.run(["export", "--markdown-folder", archive.path], status: 1)             // an archive is not a notes folder
        try world.createUnlocked("imported", passphrase: passphrase)
        try world.run(["import", archive.path, "--dry-run"], vault: "imported", status: 0)
        try world.run(["import", archive.path], vault: "imported", status: 0)
        try world.run(["import", archive.path, "--json"], vault: "imported", status: 0)   // nothing new
        // Book files carried in plain copies (the archive's, by design): stored encrypted again.
        try world.run(["file", "add", epub.path], status: 0)
        let withFiles = archives.appendingPathComponent("with-files")
        try world.run(["export", "--out", withFiles.path, "--with-files"], status: 65)      // the linked file is gone: listed, not copied
        try world.run(["import", withFiles.path, "--dry-run"], vault: "imported", status: 0)
        try world.run(["import", withFiles.path], vault: "imported", status: 0)
        try world.run(["file", "list"], vault: "imported", showsContent: true, status: 0)
        // journal.json on standard input: held in memory only, never in a file (the sweep searches TMPDIR and the runtime directory).
        let pipedJournal = try String(contentsOf: archive.appendingPathComponent("journal.json"), encoding: .utf8)
        #expect(pipedJournal.contains(c), "the piped journal holds the canary")
        try world.run(["import", "-", "--dry-run"], vault: "imported", stdin: pipedJournal, status: 0)
        try world.run(["import", "-"], vault: "imported", stdin: "not json \(c)", status: 65)
        try world.run(["list"], vault: "imported", showsContent: true, status: 0)
        func spoiled(_ name: String, _ spoil: (URL) throws -> Void) throws -> String {
            let copy = archives.appendingPathComponent(name)
            try FileManager.default.copyItem(at: archive, to: copy)
            try spoil(copy)
            return copy.path
        }
        func rewrite(_ file: URL, _ change: (String) -> String) throws {
            try change(try String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
        }
        let journalFile = "journal.json"
        let altered = try spoiled("altered") { try rewrite($0.appendingPathComponent(journalFile)) { $0.replacingOccurrences(of: "edited \(c)", with: "altered \(c)") } }
        try world.run(["import", altered], vault: "imported", status: 65)                  // checksum mismatch
        try world.run(["import", altered, "--force", "--dry-run"], vault: "imported", status: 0)
        let truncated = try spoiled("truncated") { copy in
            let file = copy.appendingPathComponent(journalFile)
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count / 2).write(to: file)
        }
        try world.run(["import", truncated, "--force"], vault: "imported", status: 65)      // malformed: cut short
        let malformed = try spoiled("malformed") { try rewrite($0.appendingPathComponent(journalFile)) { $0.replacingOccurrences(of: "\"body\" : \"", with: "\"body\" : \"\\x") } }
        try world.run(["import", malformed, "--force"], vault: "imported", status: 65)      // malformed: bad escape
        let emptied = try spoiled("emptied") { try rewrite($0.appendingPathComponent(journalFile)) { $0.replacingOccurrences(of: "\"title\" : \"title \(c)", with: "\"title\" : \"\\n\\u0007 \(c)") } }
        try world.run(["import", emptied, "--force"], vault: "imported", status: 65)        // a title that breaks the rules
        let edited = try spoiled("edited") { copy in
            let books = copy.appendingPathComponent("books")
            for name in try FileManager.default.contentsOfDirectory(atPath: books.path) {
                try rewrite(books.appendingPathComponent(name)) { $0 + "\nA paragraph added in the Markdown \(c).\n" }
            }
        }
        try world.run(["import", edited], vault: "imported", status: 0)
        let unended = try spoiled("unended") { copy in
            try FileManager.default.removeItem(at: copy.appendingPathComponent(journalFile))
            let books = copy.appendingPathComponent("books")
            for name in try FileManager.default.contentsOfDirectory(atPath: books.path) {
                try rewrite(books.appendingPathComponent(name)) { $0.replacingOccurrences(of: "<!-- /bmvault:note -->", with: "") }
            }
        }
        try world.run(["import", unended], vault: "imported", status: 65)                   // a Markdown note without its end marker
        try world.run(["import", archives.appendingPathComponent("nothing \(c)").path], vault: "imported", status: 66)
        // Another program's highlights (issue 20), the canary in every field: added, again (nothing
        // new, listed by location with --verbose), a malformed file, a title sent to a book.
        let clippings = archives.appendingPathComponent("My Clippings.txt")
        let clipping = { (kind: String, at: String, text: String) in
            "title \(c) (author \(c))\r\n- Your \(kind) on page 3 | location \(at) | Added on Monday, 11 May 2020 01:09:56\r\n\r\n\(text)\r\n==========\r\n"
        }
        try (clipping("Highlight", "10-12", "highlight \(c)") + clipping("Note", "12", "note \(c)") + clipping("Note", "40", "alone \(c)"))
            .write(to: clippings, atomically: true, encoding: .utf8)
        try world.run(["import", clippings.path, "--dry-run"], vault: "imported", showsContent: true, status: 0)
        try world.run(["import", clippings.path], vault: "imported", showsContent: true, status: 0)
        try world.run(["--verbose", "import", clippings.path, "--json"], vault: "imported", showsContent: true, status: 0)
        let brokenClippings = archives.appendingPathComponent("broken clippings.txt")
        try (clipping("Highlight", "10-12", "highlight \(c)") + "title \(c)\r\nno metadata \(c)\r\n==========\r\n")
            .write(to: brokenClippings, atomically: true, encoding: .utf8)
        try world.run(["import", brokenClippings.path], vault: "imported", status: 65)
        try world.run(["book", "alias", "title \(c)", "source title \(c)"], vault: "imported", status: 0)
        let calibre = archives.appendingPathComponent("highlights \(c).json")
        try (#"{"highlights": [{"highlighted_text": "calibre "# + c + #"", "notes": "note "# + c + #"", "toc_family_titles": ["chapter "# + c + #""], "type": "highlight", "uuid": "u1"}], "type": "calibre_highlights", "version": 1}"#)
            .write(to: calibre, atomically: true, encoding: .utf8)
        try world.run(["import", calibre.path], vault: "imported", status: 64)                    // names no book
        try world.run(["import", "--book", "title \(c)", calibre.path], vault: "imported", showsContent: true, status: 0)
        let readwise = archives.appendingPathComponent("readwise.csv")
        try ("Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,Document tags\n"
             + "readwise \(c),title \(c),author \(c),,note \(c),,,location,7,,\n").write(to: readwise, atomically: true, encoding: .utf8)
        try world.run(["import", readwise.path, "--json"], vault: "imported", showsContent: true, status: 0)
        let jrnl = archives.appendingPathComponent("jrnl.json")
        try (#"{"entries": [{"title": "jrnl "# + c + #"", "body": "body "# + c + #"", "date": "2024-03-01", "time": "21:05", "tags": ["@"# + c + #""]}]}"#)
            .write(to: jrnl, atomically: true, encoding: .utf8)
        try world.run(["import", jrnl.path], vault: "imported", showsContent: true, status: 0)
        try world.run(["import", "--from", "jrnl", readwise.path], vault: "imported", status: 65)  // not what --from says
        try world.run(["book", "add", "merge me \(c)"], vault: "imported", status: 0)
        try world.run(["book", "merge", "merge me \(c)", "title \(c)"], vault: "imported", status: 0)
        try world.run(["book", "merge", "title \(c)", "title \(c)"], vault: "imported", status: 64)
        try world.run(["book", "alias", "unknown \(c)", "source title \(c)"], vault: "imported", status: 66)

        // MARK: The editor: saved, failed, and its buffer never left behind
        let writes = "printf '%s\\n' \"$SWEEP_TEXT\" > \"$1\"; printf 'swap %s\\n' \"$SWEEP_TEXT\" > \"$1.swp\"; mkdir -p \"$(dirname \"$1\")/backup\"; printf '%s\\n' \"$SWEEP_TEXT\" > \"$(dirname \"$1\")/backup/note.md~\""
        let saving = try world.editor("saving.sh", "\(writes)\nexit 0")
        let failing = try world.editor("failing.sh", "\(writes)\nexit 3")
        let added = try world.runOnTerminal(["note", "add", book, "--locator", "p. 1"], environment: ["EDITOR": saving, "SWEEP_TEXT": "from the editor \(c)"],
                                            showsContent: true, status: 0)
        #expect(added.stdout.contains("Added a note to \"title \(c)") && added.stdout.contains("\" (p. 1): "),
                "at a terminal, the title and locator are named: \(added)")
        try world.runOnTerminal(["edit", note], environment: ["EDITOR": saving, "SWEEP_TEXT": "edited in the editor \(c)"], status: 0)
        let failed = try world.runOnTerminal(["note", "add", book], environment: ["EDITOR": failing, "SWEEP_TEXT": "draft \(c)"], status: 1)
        #expect(failed.stdout.contains("the editor exited with status 3; nothing was saved"), "\(failed)")
        try world.runOnTerminal(["edit", note], environment: ["VISUAL": failing, "SWEEP_TEXT": "draft \(c)"], status: 1)
        // Listings at a terminal go through the pager (cat here).
        let paged = try world.runOnTerminal(["list"], showsContent: true, status: 0)
        #expect(paged.stdout.contains("from the editor \(c)"), "\(paged)")
        try world.runOnTerminal(["search", c], showsContent: true, status: 0)
        // A draft a killed edit left: not taken (no answer on this terminal), and wiped.
        let killedEdit = world.runtime.appendingPathComponent("bmvault-edit-killed")
        try FileManager.default.createDirectory(at: killedEdit, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data("killed draft \(c)\n".utf8).write(to: killedEdit.appendingPathComponent("note.md"))
        let offered = try world.runOnTerminal(["note", "add", book], environment: ["EDITOR": saving, "SWEEP_TEXT": "after the draft \(c)"],
                                              showsContent: true, status: 0)
        #expect(offered.stdout.contains("A draft from an interrupted edit was found (1 line)."), "\(offered)")
        #expect(!offered.stdout.contains("killed draft"), "the question shows no content")
        #expect(world.files(in: world.runtime).isEmpty, "the editor buffer outlived the editor: \(world.files(in: world.runtime))")

        // MARK: Diagnostics and migrations on a current vault
        try world.run(["diagnostics"], status: 0)
        try world.run(["diagnostics", "--json"], status: 0)
        let bundle = world.outputs.appendingPathComponent("diagnostics.txt").path
        try world.run(["diagnostics", "--out", bundle], status: 0)
        try world.run(["diagnostics", "--json", "--out", world.outputs.appendingPathComponent("diagnostics.json").path], status: 0)
        try world.run(["diagnostics", "--out", bundle], status: 1)                  // never overwrites
        try world.run(["migrate", "--status"], status: 0)
        try world.run(["migrate", "--status", "--json"], status: 0)
        try world.run(["migrate", "--dry-run"], status: 0)
        try world.run(["migrate", "--dry-run", "--json"], status: 0)
        try world.run(["migrate"], status: 0)
        try world.run(["migrate", "--json"], status: 0)
        try world.run(["migrate", "--status", "--dry-run"], status: 64)

        // MARK: Passphrase change, lock, recovery key
        try world.run(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"], stdin: "wrong \(c)\n" + newPassphrase + "\n", status: 77)
        try world.run(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"], stdin: passphrase + "\n" + newPassphrase + "\n", status: 0)
        try world.run(["passphrase", "change", "--passphrase-stdin", "--kdf", "interactive"], stdin: newPassphrase + "\nshort\n", status: 65)
        try world.run(["unlock"], status: 0)                                                   // already unlocked: says until when
        try world.run(["unlock", "--extend", "--timeout", "3h"], status: 0)
        try world.run(["lock"], status: 0)
        try world.run(["lock"], status: 0)
        try world.run(["unlock", "--extend"], status: 77)                                      // nothing to extend
        try world.run(["status", "--json"], status: 0)
        try world.run(["passphrase", "change", "--passphrase-stdin"], stdin: "wrong \(c)\n" + newPassphrase + "\n", status: 77)
        let rotated = try world.run(["recovery-key", "rotate", "--passphrase-stdin"], stdin: newPassphrase + "\n", status: 0).line
        try world.run(["recovery-key", "rotate", "--passphrase-stdin"], stdin: "wrong \(c)\n", status: 77)
        try world.run(["unlock", "--recovery-key-stdin"], stdin: rotated + "\n", status: 0)
        try world.run(["lock"], status: 0)
        try world.run(["search", c], showsContent: true, status: 77)
        try world.run(["show", note], showsContent: true, status: 77)
        try world.run(["unlock", "--passphrase-stdin"], stdin: passphrase + "\n", status: 77)   // the old one
        try world.run(["unlock", "--recovery-key-stdin"], stdin: "not a key \(c)\n", status: 65)
        try world.run(["unlock", "--recovery-key-stdin", "--passphrase-stdin"], stdin: recoveryKey + "\n", status: 64)
        try world.run(["unlock", "--recovery-key-stdin"], stdin: recoveryKey + "\n", status: 77)             // rotated away
        try world.run(["recovery-key", "rotate", "--passphrase-stdin"], stdin: rotated + "\n", status: 0)  // the old recovery key proves it too
        // The headless path: no keyring used, the passphrase from a command, the key in one process.
        let command = ["BMVAULT_PASSPHRASE_COMMAND": "printf '%s\\n' '\(newPassphrase)'"]
        try world.run(["--no-keyring", "list"], environment: command, showsContent: true, status: 0)
        try world.run(["--no-keyring", "note", "add", book, "headless \(c)"], environment: command, status: 0)
        try world.run(["--no-keyring", "note", "add", book], stdin: "headless piped \(c)\n", environment: command, status: 0)
        try world.run(["--no-keyring", "list"], environment: ["BMVAULT_PASSPHRASE_COMMAND": "printf '%s\\n' 'wrong \(c)'"], showsContent: true, status: 77)
        try world.run(["--no-keyring", "list"], environment: ["BMVAULT_PASSPHRASE_COMMAND": "'unterminated \(c)"], showsContent: true, status: 64)
        try world.run(["--no-keyring", "list"], environment: ["BMVAULT_PASSPHRASE_COMMAND": "no-such-program-\(c)"], showsContent: true, status: 77)
        try world.run(["--no-keyring", "list"], showsContent: true, status: 77)
        try world.run(["--no-keyring", "unlock"], status: 64)
        try world.run(["list"], environment: command.merging(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/\(c)"]) { $1 },
                      showsContent: true, status: 0)
        try world.run(["unlock", "--passphrase-stdin", "--remember", "--timeout", "1h"], stdin: newPassphrase + "\n", status: 0)
        try world.run(["lock"], status: 0)
        try world.run(["unlock", "--passphrase-stdin"], stdin: newPassphrase + "\n", status: 0)

        // MARK: Rekey: whole, refused, interrupted and resumed
        try world.run(["rekey", "--passphrase-stdin", "--kdf", "interactive"], stdin: newPassphrase + "\n", status: 0)
        try world.run(["rekey", "--passphrase-stdin"], stdin: "wrong \(c)\n", status: 77)
        try world.run(["rekey", "--passphrase-stdin", "--batch-size", "1"], stdin: newPassphrase + "\n",
                      environment: ["BMVAULT_TEST_CRASH_AT": "rekey:batch:1"], status: 137)
        try world.run(["list"], showsContent: true, status: 1)
        try world.run(["note", "add", book, "during the rekey \(c)"], status: 1)
        try world.run(["status", "--json"], status: 0)
        try world.run(["diagnostics", "--json"], status: 0)
        try world.run(["rekey", "--passphrase-stdin", "--batch-size", "1"], stdin: "wrong \(c)\n", status: 77)
        try world.run(["rekey", "--passphrase-stdin", "--batch-size", "1"], stdin: newPassphrase + "\n", status: 0)

        // MARK: Check, backup and restore (the backup lands in the searched outputs)
        try world.run(["check"], status: 0)
        try world.run(["check", "--json"], status: 0)
        let backup = world.outputs.appendingPathComponent("vault.backup").path
        try world.run(["backup", "--out", backup], status: 0)
        try world.run(["backup", "--out", backup], status: 1)                      // never overwrites
        try world.run(["restore", backup], vault: "restored", status: 0)
        try world.run(["restore", backup], vault: "restored", status: 1)           // a vault is there

        // MARK: A tampered row
        try world.sqlite("main", """
            UPDATE annotation SET body = substr(body, 1, 40)
                || CASE WHEN substr(body, 41, 1) = X'00' THEN X'01' ELSE X'00' END || substr(body, 42)
            WHERE id = '\(note)';
            """)
        try world.run(["list"], showsContent: true, status: 65)
        try world.run(["list", "--json"], showsContent: true, status: 65)
        try world.run(["show", note], showsContent: true, status: 65)
        try world.run(["search", c], showsContent: true, status: 65)
        try world.run(["edit", note, "over the damage \(c)"], status: 65)
        try world.run(["check"], status: 65)
        try world.run(["check", "--json"], status: 65)
        try world.run(["rekey", "--passphrase-stdin", "--kdf", "interactive"], stdin: newPassphrase + "\n", status: 0)
        try world.run(["diagnostics"], status: 0)

        // MARK: No Secret Service to ask
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        try world.run(["status"], environment: noBus, status: 0)
        try world.run(["unlock", "--passphrase-stdin"], stdin: newPassphrase + "\n", environment: noBus, status: 69)
        try world.run(["list"], environment: noBus, showsContent: true, status: 77)          // headless: no passphrase source
        try world.run(["note", "add", book, "no bus \(c)"], environment: noBus, status: 77)
        let fromCommand = noBus.merging(["BMVAULT_PASSPHRASE_COMMAND": "printf '%s\\n' '\(newPassphrase)'"]) { $1 }
        try world.run(["note", "add", book, "no bus \(c)"], environment: fromCommand, status: 0)
        try world.run(["search", c], environment: fromCommand, showsContent: true, status: 65)   // the tampered row above
        try world.run(["diagnostics", "--json"], environment: noBus, status: 0)

        // MARK: A crash (a fatal signal while the editor is open)
        let crashing = try world.killingEditor(signal: "SEGV")
        let crashed = try world.runOnTerminal(["note", "add", book], environment: ["EDITOR": crashing], status: 139)
        let crashReports = world.files(in: world.reportsDirectory).filter { $0.contains("-crash-") }
        #expect(crashReports.count == 1, "\(crashed)\n\(world.files(in: world.reportsDirectory))")
        if let report = crashReports.first {
            let text = try String(contentsOf: world.reportsDirectory.appendingPathComponent(report), encoding: .utf8)
            #expect(text == "bmvault crash report\nversion=\(try SweepWorld.bmvaultVersion()) command=\"note add\"\nsignal=11\n", "\(text)")
        }
        // The crash left the (empty) buffer directory behind; clear it for what follows.
        for leftover in world.files(in: world.runtime) { try FileManager.default.removeItem(at: world.runtime.appendingPathComponent(leftover)) }

        // MARK: An old vault: rehearsed, inspected, upgrade interrupted twice, then finished
        try world.createUnlocked("old", passphrase: passphrase)
        let oldBook = try world.run(["book", "add", "old title \(c)", "--author", "old author \(c)"], vault: "old", status: 0).line
        try world.run(["note", "add", oldBook, "old note \(c)", "--locator", "old locator \(c)"], vault: "old", status: 0)
        try world.run(["quote", "add", oldBook, "old quote \(c)", "--locator", "old page \(c)"], vault: "old", status: 0)
        try world.downgradeToV1("old")
        try world.run(["migrate", "--status"], vault: "old", status: 0)
        try world.run(["migrate", "--dry-run", "--json"], vault: "old", status: 0)
        try world.run(["diagnostics", "--json"], vault: "old", status: 0)
        try world.run(["list"], vault: "old", environment: ["BMVAULT_TEST_CRASH_AT": "upgrade:snapshot-written"], showsContent: true, status: 137)
        #expect(world.files(in: world.vaultDirectory("old")).contains("vault.db.v1.snapshot.partial"))
        try world.run(["list"], vault: "old", environment: ["BMVAULT_TEST_CRASH_AT": "upgrade:applied:0002_rekey_job"], showsContent: true, status: 137)
        #expect(world.files(in: world.vaultDirectory("old")).contains("vault.db.v1.snapshot"))
        try world.run(["diagnostics"], vault: "old", status: 0)
        try world.run(["status"], vault: "old", environment: ["BMVAULT_TEST_CRASH_AT": "upgrade:committed"], status: 137)
        try world.run(["list", "--book", "old title"], vault: "old", showsContent: true, status: 0)
        try world.run(["search", "old"], vault: "old", showsContent: true, status: 0)

        // MARK: A failed upgrade (migration 0002 meets a table in its way): a failure report
        try world.createUnlocked("broken", passphrase: passphrase)
        let brokenBook = try world.run(["book", "add", "broken title \(c)"], vault: "broken", status: 0).line
        try world.run(["note", "add", brokenBook, "broken note \(c)"], vault: "broken", status: 0)
        try world.downgradeToV1("broken", keepRekeyJob: true)
        let upgradeFailed = try world.run(["list"], vault: "broken", showsContent: true, status: 1)
        #expect(upgradeFailed.stderr.contains("A failure report (no journal content) was written to \(world.reportsDirectory.path)/"), "\(upgradeFailed)")
        // A snapshot that cannot be written (its temporary name is taken by a directory).
        try world.createUnlocked("blocked", passphrase: passphrase)
        try world.run(["book", "add", "blocked title \(c)"], vault: "blocked", status: 0)
        try world.downgradeToV1("blocked")
        try FileManager.default.createDirectory(atPath: world.databasePath("blocked") + ".v1.snapshot.partial", withIntermediateDirectories: false)
        try world.run(["book", "list"], vault: "blocked", showsContent: true, status: 1)
        try world.run(["diagnostics", "--json"], vault: "blocked", status: 0)
        try FileManager.default.removeItem(atPath: world.databasePath("blocked") + ".v1.snapshot.partial")
        try world.run(["book", "list"], vault: "blocked", showsContent: true, status: 0)
        #expect(world.files(in: world.reportsDirectory).filter { $0.contains("-cli.command.failed-") }.count >= 2)

        // MARK: Out of space for the upgrade (a small tmpfs; root only)
        if try world.mountSmallFilesystem(for: "small", kilobytes: 512) {
            try world.createUnlocked("small-source", passphrase: passphrase)
            try world.run(["book", "add", "small title \(c)"], vault: "small-source", status: 0)
            try world.run(["lock"], vault: "small-source", status: 0)
            try world.downgradeToV1("small-source")
            try FileManager.default.copyItem(atPath: world.databasePath("small-source"), toPath: world.databasePath("small"))
            try world.run(["status"], vault: "small", status: 1)
            try world.run(["migrate", "--dry-run"], vault: "small", status: 1)
            try world.run(["diagnostics", "--json"], vault: "small", status: 0)
        }

        // MARK: The verdict
        world.searchFiles()
        #expect(world.search.hits.isEmpty, "the canary was found:\n\(world.search.hits.map(\.description).joined(separator: "\n"))")

        // Not vacuous: the content was there to leak, the search saw every kind of file,
        // and at --debug the events were logged.
        let shown = world.shownContent.joined()
        for fragment in ["title \(c)", "author \(c)", "note \(c)", "quote \(c)", "locator \(c)", "piped note \(c)", "from the editor \(c)",
                         "old note \(c)"] {
            #expect(shown.contains(fragment), "no reading command showed \"\(fragment)\"")
        }
        let searched = world.search.searched
        for suffix in ["main/vault.db", "main/vault.db-wal", "main/vault.db-shm", "restored/vault.db", "out/vault.backup",
                       "out/vault.backup.sha256", "old/vault.db.v1.snapshot",
                       "old/vault.db.v1.snapshot.partial", "broken/vault.db.v1.snapshot", "state/bmvault/bmvault.log",
                       "state/bmvault/bmvault.log.1", "out/diagnostics.txt", "out/diagnostics.json"] {
            #expect(searched.contains { $0.hasSuffix(suffix) }, "the search never saw \(suffix)")
        }
        #expect(searched.contains { $0.contains("state/bmvault/reports/") && $0.contains("-crash-") })
        #expect(searched.contains { $0.contains("state/bmvault/reports/") && $0.contains("-cli.command.failed-") })
        #expect(world.search.searchedBytes > 10 << 20)
        try expectEvents(world)
    }

    /// The events a reader (or a test) relies on were written, at `--debug`, to the log and
    /// to standard error, and private values in them are tags, not text.
    private func expectEvents(_ world: SweepWorld, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = world.logLines().filter { !$0.contains("sweep.filler") }
        let events = Set(lines.compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) })
        var expected: Set = ["cli.command.started", "cli.command.finished", "cli.command.failed", "keystore.call",
                             "journal.book.resolved", "vault.unlocked", "vault.unlock.refused", "vault.locked",
                             "vault.passphrase.changed", "store.upgrade.started", "store.upgrade.finished", "store.upgrade.failed",
                             "archive.exported", "archive.imported", "notes.exported"]
        if world.files(in: world.vaultDirectory("small")).contains("vault.db") { expected.insert("store.upgrade.refused") }
        #expect(expected.subtracting(events).isEmpty, "never logged: \(expected.subtracting(events).sorted())", sourceLocation: sourceLocation)
        let resolved = lines.filter { $0.contains(" journal.book.resolved ") }
        #expect(resolved.count >= 10, sourceLocation: sourceLocation)
        for line in resolved {
            #expect(line.range(of: #" debug journal.book.resolved book=<redacted:[0-9a-f]{8}> candidates=\d+$"#, options: .regularExpression) != nil,
                    "\(line)", sourceLocation: sourceLocation)
        }
        #expect(lines.contains { $0.contains(" warning vault.unlock.refused reason=wrongPassphrase") }, sourceLocation: sourceLocation)
        #expect(lines.contains { $0.contains(" warning keystore.call operation=lookup outcome=noSessionBus ") }, sourceLocation: sourceLocation)
        #expect(lines.contains { $0.contains(#" error store.upgrade.failed from=1 to=\#(Schema.latest) reason="SQLite error 1: table rekey_job already exists""#) },
                sourceLocation: sourceLocation)
        // Rotation happened within the sweep: bmvault's own events are in the rotated file.
        let rotated = (try? String(contentsOf: world.stateDirectory.appendingPathComponent("bmvault.log.1"), encoding: .utf8)) ?? ""
        #expect(rotated.contains(" cli.command.started "), sourceLocation: sourceLocation)
        // --debug mirrors the events on standard error.
        let stderr = world.runs.map(\.result.stderr).joined()
        for prefix in ["bmvault[info] ", "bmvault[debug] ", "bmvault[notice] ", "bmvault[warning] ", "bmvault[error] "] {
            #expect(stderr.contains(prefix), "no \(prefix)line on standard error", sourceLocation: sourceLocation)
        }
        #expect(stderr.contains("Z journal.book.resolved book=<redacted:"), sourceLocation: sourceLocation)
        let twice = stderr.split(separator: "\n").filter { line in
            guard line.hasPrefix("bmvault["), let close = line.firstIndex(of: "]") else { return false }
            let words = line[line.index(after: close)...].split(separator: " ")
            return words.count > 1 && line.dropFirst(8).hasPrefix(words[1] + "]")
        }
        #expect(twice.isEmpty, "the level is said once: \(twice.prefix(3))", sourceLocation: sourceLocation)
        // Every command `bmvault help` lists ran to success at least once (a command added
        // later fails this until the sweep runs it).
        let commands = try SweepWorld.commandPaths()
        #expect(commands.count >= 19 && commands.contains("passphrase change") && commands.contains("book progress"), "\(commands)",
                sourceLocation: sourceLocation)
        var finished = Set<String>()
        for line in lines {
            guard let match = line.firstMatch(of: #/ info cli\.command\.finished command=(?:"([^"]*)"|(\S+))/#) else { continue }
            finished.insert(String(match.1 ?? match.2 ?? ""))
        }
        #expect(Set(commands).subtracting(finished).isEmpty, "never ran to success: \(Set(commands).subtracting(finished).sorted())",
                sourceLocation: sourceLocation)
    }

    // MARK: Positive controls

    /// (a) The search finds a canary planted on purpose in the state directory, in each of
    /// its encodings and at any position, and nothing in look-alikes.
    @Test func theSearchFindsACanaryPlantedInEachEncoding() throws {
        let world = try SweepWorld()
        let canary = world.canary
        let planted = world.stateDirectory.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: true)
        func noise(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
        var files: [String: [UInt8]] = [:]
        for (index, form) in canary.forms.enumerated() {
            for offset in 0..<3 {
                files["form-\(index)-offset-\(offset)"] = noise(offset + 100) + form.bytes + noise(50)
            }
        }
        // Encodings of whole streams around the canary, at every alignment.
        for prefix in 0..<3 {
            let stream = Array("x".utf8) + noise(prefix + 2) + Array(canary.text.utf8) + noise(7)
            files["stream-base64-\(prefix)"] = Array(Data(stream).base64EncodedString().utf8)
            files["stream-hex-\(prefix)"] = Array(SweepCanary.hex(stream, uppercase: prefix == 1).utf8)
            files["stream-utf16-\(prefix)"] = Array(String(decoding: Array("né ".utf8) + Array(canary.text.utf8), as: UTF8.self)
                .data(using: prefix == 0 ? .utf16LittleEndian : .utf16BigEndian)!)
        }
        files["lowercase"] = Array("a \(canary.text.lowercased()) b".utf8)
        for (name, bytes) in files { try Data(bytes).write(to: planted.appendingPathComponent(name)) }
        // Look-alikes: another canary, and this one with its last character changed.
        var altered = Array(canary.text)
        altered[20] = altered[20] == "0" ? "1" : "0"
        let decoys = [SweepCanary().text, String(altered)]
        for (index, decoy) in decoys.enumerated() {
            try Data(Array(decoy.utf8) + Array(Data(decoy.utf8).base64EncodedString().utf8)).write(to: planted.appendingPathComponent("decoy-\(index)"))
        }
        // A file name alone.
        #expect(FileManager.default.createFile(atPath: world.state.appendingPathComponent("named \(canary.text)").path, contents: Data()))

        world.searchFiles()
        let found = Set(world.search.hits.map(\.artifact))
        for name in files.keys {
            #expect(found.contains("state/bmvault/planted/\(name)"), "the search missed \(name)")
        }
        #expect(found.contains("state (file names)"))
        #expect(!found.contains { $0.contains("decoy") }, "\(found)")
        #expect(world.search.hits.count >= files.count + 1)
        #expect(canary.forms.count >= 9, "\(canary.forms.map(\.name))")
    }

    /// (b) With the scrubber bypassed (`BMVAULT_TEST_UNSCRUBBED=1`), the `journal.book.resolved`
    /// debug event logs the title as it is, and the sweep finds it, in the log file and on
    /// standard error: the sweep fails when the scrubber is off. The same commands with the
    /// scrubber on leave nothing.
    @Test func theSearchFailsWhenTheScrubberIsBypassed() throws {
        let world = try SweepWorld()
        let c = world.canary.text
        try world.createUnlocked("main", passphrase: "pass phrase \(c)")
        try world.run(["book", "add", "title \(c)"], status: 0)
        try world.run(["note", "add", "title", "first"], status: 0)
        try world.run(["list", "--book", "title"], showsContent: true, status: 0)
        world.searchFiles()
        #expect(world.search.hits.isEmpty, "\(world.search.hits)")
        #expect(world.logLines().contains { $0.contains(" journal.book.resolved book=<redacted:") })

        let bypass = ["BMVAULT_TEST_UNSCRUBBED": "1"]
        let firstBypassed = world.runs.count
        let added = try world.run(["note", "add", "title", "second"], environment: bypass, status: 0)
        try world.run(["list", "--book", "title"], environment: bypass, showsContent: true, status: 0)
        world.searchFiles()
        let artifacts = Set(world.search.hits.map(\.artifact))
        #expect(artifacts.contains("state/bmvault/bmvault.log"), "\(artifacts)")
        #expect(artifacts.contains { $0.hasSuffix("[note add title second] stderr") }, "\(artifacts)")
        #expect(artifacts.contains { $0.hasSuffix("[list --book title] stderr") }, "\(artifacts)")
        #expect(added.stderr.contains(#"journal.book.resolved book="title \#(c)" candidates=1"#), "\(added)")
        // Only the lever made the difference: every hit is from the bypassed runs or the log.
        let bypassedRuns = (firstBypassed..<world.runs.count).map { "run \($0) " }
        #expect(world.search.hits.allSatisfy { hit in hit.artifact.hasPrefix("state/") || bypassedRuns.contains { hit.artifact.hasPrefix($0) } },
                "\(world.search.hits)")
    }

    // MARK: Tags

    /// `<redacted:TAG>` correlates one vault's log lines (same title, same tag) without
    /// being comparable across vaults (the tag key is derived from the vault key).
    @Test func tagsAreStableWithinAVaultAndDifferAcrossVaults() throws {
        let world = try SweepWorld()
        let c = world.canary.text
        func tag(_ result: CommandResult) -> String? {
            guard let range = result.stderr.range(of: #"journal\.book\.resolved book=<redacted:[0-9a-f]{8}>"#, options: .regularExpression) else { return nil }
            return String(result.stderr[range].dropFirst("journal.book.resolved book=<redacted:".count).dropLast())
        }
        for vault in ["one", "two"] {
            try world.createUnlocked(vault, passphrase: "pass phrase \(c)")
            try world.run(["book", "add", "Same title \(c)"], vault: vault, status: 0)
            try world.run(["book", "add", "Other title \(c)"], vault: vault, status: 0)
        }
        let first = tag(try world.run(["note", "add", "same", "x"], vault: "one", status: 0))
        let again = tag(try world.run(["book", "progress", "same", "10"], vault: "one", status: 0))
        let other = tag(try world.run(["note", "add", "other", "x"], vault: "one", status: 0))
        let elsewhere = tag(try world.run(["note", "add", "same", "x"], vault: "two", status: 0))
        #expect(first != nil)
        #expect(first == again, "the same title in one vault has one tag")
        #expect(first != other, "two titles have two tags")
        #expect(first != elsewhere, "the same title in another vault has another tag")
        // A rekey changes the vault key, and with it every tag.
        try world.run(["rekey", "--passphrase-stdin", "--kdf", "interactive"], vault: "one", stdin: "pass phrase \(c)\n", status: 0)
        let afterRekey = tag(try world.run(["note", "add", "same", "x"], vault: "one", status: 0))
        #expect(afterRekey != nil && afterRekey != first)
        world.searchFiles()
        #expect(world.search.hits.isEmpty, "\(world.search.hits)")
    }

    // MARK: Signals while the editor is open

    /// A bmvault stopped by SIGTERM or SIGHUP (the terminal closing) while the editor is open
    /// passes the signal to the editor, waits for it, shreds the buffer and saves nothing.
    @Test(arguments: ["TERM", "HUP"])
    func aBmvaultStoppedWhileTheEditorIsOpenLeavesNoBuffer(signal: String) throws {
        let world = try SweepWorld()
        let c = world.canary.text
        try world.createUnlocked("main", passphrase: "pass phrase \(c)")
        let book = try world.run(["book", "add", "title \(c)"], status: 0).line
        let note = try world.run(["note", "add", book, "note \(c)"], status: 0).line
        let editor = try world.killingEditor(signal: signal)
        let stopped = try world.runOnTerminal(["edit", note], environment: ["EDITOR": editor])
        #expect(stopped.status != 0, "\(stopped)")
        #expect(world.search.hits.isEmpty, "\(world.search.hits)")
        #expect(world.files(in: world.runtime).isEmpty, "left in the runtime directory: \(world.files(in: world.runtime))")
    }
}

extension SweepWorld {
    /// Every command path `bmvault help` lists, down to the leaves (`book add`), without `help`.
    static func commandPaths(_ prefix: [String] = []) throws -> [String] {
        let help = try Binary.run(Binary.path, ["help"] + prefix, environment: ProcessInfo.processInfo.environment).stdout
        guard let section = help.range(of: "\nSUBCOMMANDS:\n") else { return [prefix.joined(separator: " ")] }
        var paths: [String] = []
        for line in help[section.upperBound...].split(separator: "\n") {
            guard let match = line.firstMatch(of: /^  ([a-z][a-z0-9-]*)\s/) else { continue }
            let name = String(match.1)
            if name != "help" { paths += try commandPaths(prefix + [name]) }
        }
        return paths
    }

    /// `bmvault --version`'s number.
    static func bmvaultVersion() throws -> String {
        let result = try Binary.run(Binary.path, ["--version"], environment: ProcessInfo.processInfo.environment)
        return result.line.replacingOccurrences(of: "bmvault ", with: "")
    }
}
