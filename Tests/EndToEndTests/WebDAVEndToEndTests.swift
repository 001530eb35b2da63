import Foundation
import Synchronization
import Testing
import TestSupport

/// Issue 18: two devices sync through a real WebDAV server (lighttpd with mod_webdav, on
/// loopback, basic auth) from the command line: `remote add URL`, `init --join URL`, `sync`.
@Suite struct WebDAVEndToEndTests {
    static let user = "reader"
    static let password = "correct horse battery"

    @Test func twoDevicesSyncThroughAWebDAVServer() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let canary = "CANARY-\(UUID().uuidString)"
        let a = try TestVault()
        try a.createUnlocked()
        let book = try a.succeed(["book", "add", "Title \(canary)"]).line
        try a.succeed(["note", "add", book, "written on A \(canary)"])
        let added = try a.succeed(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], stdin: Self.password + "\n")
        #expect(added.stderr.contains("Added remote cloud at \(server.url)."), "\(added)")
        try a.succeed(["sync"])

        let b = try TestVault()
        let joined = try b.run(["init", "--join", server.url, "--user", Self.user, "--passphrase-stdin", "--password-stdin"],
                               stdin: TestVault.passphrase + "\n" + Self.password + "\n")
        #expect(joined.status == 0 && joined.stderr.contains("it syncs through \(server.url)"), "\(joined)")
        try b.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try b.succeed(["sync"])
        let onB = try #require(try b.json(["list", "--json"]) as? [[String: Any]])
        #expect(onB.map { $0["body"] as? String } == ["written on A \(canary)"])
        try b.succeed(["note", "add", book, "written on B \(canary)"])
        try b.succeed(["sync"])
        try a.succeed(["sync"])
        let onA = try #require(try a.json(["list", "--json"]) as? [[String: Any]])
        #expect(Set(onA.compactMap { $0["body"] as? String }) == ["written on A \(canary)", "written on B \(canary)"])
        #expect(try a.json(["outbox", "--json"]) as? [Any] == nil || (try a.json(["outbox", "--json"]) as? [Any])?.isEmpty == true)

        // The server holds sealed files named by ids; the vault files hold no password.
        for (path, bytes) in try server.files() {
            #expect(!path.contains("CANARY") && bytes.range(of: Data(canary.utf8)) == nil && bytes.range(of: Data("Title".utf8)) == nil, "\(path)")
        }
        for vault in [a, b] {
            for (name, bytes) in try vault.filesOnDisk() {
                #expect(bytes.range(of: Data(Self.password.utf8)) == nil, "\(name) holds the server's password")
            }
        }
        // A second remote under a name in use (another server, whose password it accepts) is
        // refused before the keyring is touched: the password kept for the first still works.
        let other = try WebDAVServer(users: [(Self.user, "another password")])
        let again = try a.run(["remote", "add", "cloud", other.url, "--user", Self.user, "--password-stdin"], stdin: "another password\n")
        #expect(again.status == 64 && again.stderr == "Error: a remote named cloud exists already\n", "\(again)")
        try a.succeed(["sync"])
        let remotes = try #require(try b.json(["remote", "list", "--json"]) as? [[String: Any]])
        #expect(remotes.first?["kind"] as? String == "webdav" && remotes.first?["location"] as? String == server.url, "\(remotes)")
    }

    /// Issue 19 over WebDAV: a remote added `--files` carries a book file, streamed up
    /// (`PUT` to a temporary name, `MOVE` into place) and down (`GET`), checked before it is
    /// kept; the server holds the blob sealed, under the content's id.
    @Test func aBookFileTravelsThroughAWebDAVServerThatCarriesFiles() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let canary = "CANARY-\(UUID().uuidString)"
        let a = try TestVault()
        try a.createUnlocked()
        let books = a.root.appendingPathComponent("books")
        try FileManager.default.createDirectory(at: books, withIntermediateDirectories: true)
        // Larger than a chunk of the file store and than libcurl's buffers: streamed both ways.
        let epub = try BookFileSamples.epub(at: books.appendingPathComponent("heron.epub"), title: "The Heron",
                                            text: canary + String(repeating: " the heron counts silver umbrellas", count: 80_000))
        try a.succeed(["file", "add", books.appendingPathComponent("heron.epub").path])
        let added = try a.succeed(["remote", "add", "cloud", server.url, "--files", "--user", Self.user, "--password-stdin"],
                                  stdin: Self.password + "\n")
        #expect(added.stderr.contains("carrying book files"), "\(added)")
        #expect(try a.succeed(["sync"]).stdout.contains("1 book file sent"))

        let b = try TestVault()
        try b.succeed(["init", "--join", server.url, "--user", Self.user, "--passphrase-stdin", "--password-stdin"],
                      stdin: TestVault.passphrase + "\n" + Self.password + "\n")
        try b.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try b.succeed(["remote", "files", "origin", "on"])
        #expect(try b.succeed(["sync"]).stdout.contains("1 book file received"))
        let listed = try #require(try b.json(["file", "list", "--json"]) as? [[String: Any]])
        let id = try #require(listed.first?["id"] as? String)
        #expect(listed.first?["presence"] as? String == "present")
        let out = b.root.appendingPathComponent("heron.epub")
        try b.succeed(["file", "export", id, "--out", out.path])
        #expect(try Data(contentsOf: out) == epub)
        let stored = try server.files().filter { $0.key.contains("/files/") }
        #expect(stored.count == 1 && stored.keys.allSatisfy { !$0.contains(".tmp-") }, "\(stored.keys)")
        for (path, bytes) in try server.files() {
            #expect(bytes.range(of: Data(canary.utf8)) == nil && bytes.range(of: Data("The Heron".utf8)) == nil, "\(path)")
        }
    }

    /// The headless path: with no keyring (`--no-keyring`), nothing keeps the server's
    /// password, so `sync` asks for it at the terminal (after the passphrase), uses it for this
    /// sync only, and never writes it; without a terminal the server's refusal says what to do.
    @Test func withoutAKeyringThePasswordIsAskedAtEachSync() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["note", "add", try vault.succeed(["book", "add", "Headless"]).line, "synced without a keyring"])
        try vault.succeed(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], stdin: Self.password + "\n")
        let synced = try Terminal.run(["--no-keyring", "sync"], answers: [("Passphrase for ", TestVault.passphrase),
                                                                           ("Password for remote cloud", Self.password)],
                                      environment: vault.environment)
        #expect(synced.status == 0 && synced.stdout.contains("Synced: "), "\(synced)")
        #expect(!synced.stdout.contains(Self.password), "the password was echoed")
        #expect(try server.files().keys.contains { $0.hasSuffix(".op") })
        // Issue 41: without a terminal it no longer blames the server for a password it never sent.
        let refused = try vault.run(["--no-keyring", "sync"], environment: ["BMVAULT_PASSPHRASE_COMMAND": "printf '%s' '\(TestVault.passphrase)'"])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr == "Error: no keyring holds the password of remote cloud, so none was sent: set BMVAULT_REMOTE_PASSWORD_COMMAND "
                    + "to a command that prints it, run `bmvault sync` at a terminal to type it, or keep it with `bmvault remote password cloud` "
                    + "where a Secret Service runs\n", "\(refused)")
        for (name, bytes) in try vault.filesOnDisk() {
            #expect(bytes.range(of: Data(Self.password.utf8)) == nil, "\(name) holds the server's password")
        }
    }

    /// Issue 41: unattended sync (cron, SSH) without a keyring: `BMVAULT_REMOTE_PASSWORD_COMMAND`
    /// prints the remote's password, run without a shell with the remote's name in
    /// `$BMVAULT_REMOTE`; its failures and a password the server refuses are each one line, exit 77.
    @Test func aPasswordCommandGivesTheRemotesPasswordWithoutAKeyring() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["note", "add", try vault.succeed(["book", "add", "Unattended"]).line, "synced from cron"])
        try vault.succeed(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], stdin: Self.password + "\n")
        let passphrase = ["BMVAULT_PASSPHRASE_COMMAND": "printf '%s' '\(TestVault.passphrase)'"]
        func sync(_ command: String) throws -> CommandResult {
            try vault.run(["--no-keyring", "sync"], environment: passphrase.merging(["BMVAULT_REMOTE_PASSWORD_COMMAND": command]) { $1 })
        }

        // The remote's name reaches the command; a password for another remote would not do.
        let synced = try sync(#"sh -c 'test "$BMVAULT_REMOTE" = cloud && printf "%s\n" "correct horse battery"'"#)
        #expect(synced.status == 0 && synced.stdout.hasPrefix("Synced: 2 pushed"), "\(synced)")
        #expect(try server.files().keys.contains { $0.hasSuffix(".op") })

        let wrong = try sync("printf wrong")
        #expect(wrong.status == 77, "\(wrong)")
        #expect(wrong.stderr == "Error: the server of remote cloud refused the user name or the password given for this sync "
                    + "(typed, or printed by BMVAULT_REMOTE_PASSWORD_COMMAND); nothing was synced with it\n", "\(wrong)")
        let failed = try sync("sh -c 'exit 3'")
        #expect(failed.status == 77 && failed.stderr == "Error: BMVAULT_REMOTE_PASSWORD_COMMAND exited with status 3 for remote cloud; nothing was synced\n",
                "\(failed)")
        let missing = try sync("no-such-program-\(UUID().uuidString)")
        #expect(missing.status == 77 && missing.stderr == "Error: BMVAULT_REMOTE_PASSWORD_COMMAND could not be started: its first word is not a program in PATH\n",
                "\(missing)")
        let unterminated = try sync("printf 'open")
        #expect(unterminated.status == 64 && unterminated.stderr == "Error: BMVAULT_REMOTE_PASSWORD_COMMAND is empty or has an unterminated quote (it runs without a shell)\n",
                "\(unterminated)")
        // A password kept in the keyring wins: the command is not run.
        #expect(try vault.run(["sync"], environment: ["BMVAULT_REMOTE_PASSWORD_COMMAND": "sh -c 'exit 3'"]).status == 0)
    }

    /// A server with a certificate no CA in the system store signed: refused, naming libcurl's
    /// reason; trusted with `--ca-file` (there is no "insecure" switch).
    @Test func aSelfSignedServerNeedsItsCertificateGiven() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)], tls: true)
        #expect(server.url.hasPrefix("https://"))
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["note", "add", try vault.succeed(["book", "add", "Over TLS"]).line, "sealed, then sent over TLS"])
        let refused = try vault.run(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], stdin: Self.password + "\n")
        #expect(refused.status == 69 && refused.stderr.hasPrefix("Error: TLS with the server of remote cloud failed: ")
                && refused.stderr.contains("certificate") && refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        let certificate = try #require(server.certificateFile)
        try vault.succeed(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin", "--ca-file", certificate],
                          stdin: Self.password + "\n")
        try vault.succeed(["sync"])
        #expect(try server.files().keys.contains { $0.hasSuffix(".op") })
        let remotes = try #require(try vault.json(["remote", "list", "--json"]) as? [[String: Any]])
        #expect(remotes.first?["location"] as? String == server.url)
    }

    /// Issue 40: a plain-HTTP remote on this machine never goes through a proxy (libcurl
    /// would honour `http_proxy` for it), and one a 0.18.0 vault recorded with a look-alike
    /// host is refused at sync before anything is sent: one line, exit 69 (as for a remote
    /// that cannot be used), nothing changed.
    @Test func plainHTTPStaysOnThisMachine() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["book", "add", "Through no proxy"])
        try vault.succeed(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], stdin: Self.password + "\n")
        let closedPort = try WebDAVServer.freePort()
        let proxy = "http://127.0.0.1:\(closedPort)"
        let synced = try vault.run(["sync"], environment: ["http_proxy": proxy, "HTTP_PROXY": proxy, "ALL_PROXY": proxy])
        #expect(synced.status == 0, "a proxy was used for this machine: \(synced)")
        #expect(!(try server.files()).isEmpty)

        _ = try vault.sqlite("UPDATE remote SET location = 'http://127.0.0.1.nip.io:\(closedPort)/bmvault' WHERE name = 'cloud';")
        try vault.succeed(["note", "add", "through", "waiting in the outbox"])
        let outbox = try vault.succeed(["outbox", "--json"]).stdout
        let refused = try vault.run(["sync"])
        #expect(refused.status == 69, "\(refused)")
        #expect(refused.stderr.contains("remote cloud is a plain http:// URL to another machine"), "\(refused)")
        #expect(try vault.succeed(["outbox", "--json"]).stdout == outbox, "the operation stays waiting, as it was")
    }

    @Test func whatTheServerRefusesIsOneLineWithItsExitCode() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let vault = try TestVault()
        try vault.createUnlocked()
        let before = try vault.databaseBytesIgnoringChangeCounter()
        let cases: [(arguments: [String], stdin: String?, status: Int32, message: String)] = [
            (["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], "wrong\n", 77,
             "Error: the server of remote cloud refused the user name or password"),
            (["remote", "add", "cloud", server.url + "/missing", "--user", Self.user, "--password-stdin"], Self.password + "\n", 69,
             "Error: no such folder on the server of remote cloud"),
            (["remote", "add", "cloud", "http://example.org/dav"], nil, 64, "Error: that URL cannot be a remote: http:// is for this machine only"),
            // Names that only look like this machine resolve wherever their owner says (issue 40).
            (["remote", "add", "cloud", "http://127.0.0.1.nip.io/dav"], nil, 64, "Error: that URL cannot be a remote: http:// is for this machine only"),
            (["remote", "add", "cloud", "http://127.evil.example/dav"], nil, 64, "Error: that URL cannot be a remote: http:// is for this machine only"),
            (["remote", "add", "cloud", "http://localhost.example/dav"], nil, 64, "Error: that URL cannot be a remote: http:// is for this machine only"),
            (["remote", "add", "cloud", "https://reader:secret@example.org/dav"], nil, 64, "Error: that URL cannot be a remote: a user name goes in --user"),
            (["remote", "add", "cloud", server.url, "--ca-file", "/nonexistent/ca.pem"], nil, 66, "Error: cannot read the CA file"),
            (["remote", "add", "cloud", vault.root.path, "--user", Self.user], nil, 64, "Error: "),
        ]
        for item in cases {
            let result = try vault.run(item.arguments, stdin: item.stdin)
            #expect(result.status == item.status, "\(item.arguments): \(result)")
            #expect(result.stderr.hasPrefix(item.message) && result.stderr.split(separator: "\n").count == 1, "\(item.arguments): \(result)")
            #expect(!result.stderr.contains(Self.password) && !result.stderr.contains("secret"), "\(result)")
        }
        // Issue 41: no advice to replace the password of a remote that was not added.
        let refused = try vault.run(["remote", "add", "cloud", server.url, "--user", Self.user, "--password-stdin"], stdin: "wrong\n")
        #expect(refused.stderr == "Error: the server of remote cloud refused the user name or password; nothing was set up (check them, then try again)\n",
                "\(refused)")
        #expect(try vault.databaseBytesIgnoringChangeCounter() == before, "a refused remote changes nothing")
        #expect(try (vault.json(["remote", "list", "--json"]) as? [Any])?.isEmpty == true)
    }

    /// Issue 40: a server that answers every GET at 4 bytes a second stays above the stall
    /// floor (1 byte/s for 30 s), and the sync ran for ever; now each request runs out of
    /// time by its deadline (shortened here to 1 s plus a second per 1,000 bytes), and the
    /// sync ends with one line and exit 75, the operation waiting in the outbox.
    @Test func aServerThatTricklesEndsTheSyncWith75() throws {
        let server = try WebDAVServer(users: [(Self.user, Self.password)])
        let trickling = Mutex(false)
        let proxy = try FaultProxy(upstreamPort: server.port) { _, method, _ in
            trickling.withLock { $0 } && method == "GET" ? .trickle(bytesPerSecond: 4) : .pass
        }
        let vault = try TestVault()
        try vault.createUnlocked()
        try vault.succeed(["remote", "add", "cloud", proxy.url + "/bmvault", "--user", Self.user, "--password-stdin"], stdin: Self.password + "\n")
        try vault.succeed(["sync"])
        try vault.succeed(["book", "add", "Written while the server trickles"])
        trickling.withLock { $0 = true }
        let started = ContinuousClock.now
        let result = try vault.run(["sync"], environment: ["BMVAULT_TEST_NETWORK_DEADLINES": "request:1,rate:1000"])
        #expect(started.duration(to: .now) < .seconds(15), "\(result)")
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr == "Error: the server of remote cloud did not answer in time; try again later\n", "\(result)")
        #expect(proxy.faultsChosen.contains(.trickle(bytesPerSecond: 4)))
        #expect((try vault.json(["outbox", "--json"]) as? [Any])?.count == 1, "the book waits for the next sync")
    }
}
