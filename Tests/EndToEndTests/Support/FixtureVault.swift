import Foundation
import Testing

/// The upgrade fixtures in Tests/Fixtures/vaults (one per schema version, each made by that
/// version's own bmvault; see Docs/MIGRATIONS.md), for tests of the built binary.
struct FixtureVault {
    static var root: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // Support
            .deletingLastPathComponent() // EndToEndTests
            .deletingLastPathComponent() // Tests
            .appendingPathComponent("Fixtures/vaults")
    }

    /// Every fixture version, oldest first.
    static let versions: [Int] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.compactMap { $0.hasPrefix("v") ? Int($0.dropFirst()) : nil }.sorted()
    }()

    let version: Int
    let directory: URL
    let sql: String
    let passphrase: String
    /// expected.json, as parsed by JSONSerialization.
    let expected: [String: Any]

    /// Vaults written from a text of a migration that was edited after it shipped
    /// (`v<version>-<commit>`; Docs/MIGRATIONS.md, "Migrations edited after they shipped").
    static let shippedVariants: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { $0.hasPrefix("v") && $0.contains("-") }.sorted()
    }()

    init(version: Int) throws {
        try self.init(named: "v\(version)", version: version)
    }

    /// The fixture of a shipped variant, at the version its name begins with.
    init(variant name: String) throws {
        try self.init(named: name, version: try #require(Int(name.dropFirst().prefix { $0 != "-" })))
    }

    private init(named name: String, version: Int) throws {
        self.version = version
        directory = Self.root.appendingPathComponent(name)
        sql = try String(contentsOf: directory.appendingPathComponent("vault.sql"), encoding: .utf8)
        var passphrase = try String(contentsOf: directory.appendingPathComponent("passphrase.txt"), encoding: .utf8)
        if passphrase.hasSuffix("\n") { passphrase.removeLast() }
        self.passphrase = passphrase
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("expected.json")))
        expected = try #require(json as? [String: Any])
    }

    /// The oldest fixture: the vault every upgrade test starts from.
    static func oldest() throws -> FixtureVault {
        try FixtureVault(version: try #require(versions.first, "no fixtures in \(root.path)"))
    }

    var books: [[String: Any]] { expected["books"] as? [[String: Any]] ?? [] }
    var annotations: [[String: Any]] { expected["annotations"] as? [[String: Any]] ?? [] }
    var sessions: [[String: Any]] { expected["sessions"] as? [[String: Any]] ?? [] }
    var liveBooks: [[String: Any]] { books.filter { $0["deleted"] as? Bool == false } }
    var liveAnnotations: [[String: Any]] { annotations.filter { $0["deleted"] as? Bool == false } }
}

/// Milliseconds since 1970 as bmvault's JSON writes times: ISO 8601, UTC, with milliseconds.
func iso8601(milliseconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    let date = Date(timeIntervalSince1970: TimeInterval(seconds))
    return formatter.string(from: date) + String(format: ".%03dZ", Int(milliseconds - seconds * 1000))
}

func int64(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

extension TestVault {
    static let sqlite3 = "/usr/bin/sqlite3"

    /// Puts `fixture`'s database in this vault's directory, as the reader's disk holds it:
    /// built from vault.sql, in WAL mode, private to its owner; and its file store
    /// (`files/`, from v17), private too.
    func install(_ fixture: FixtureVault) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let load = try Binary.run(Self.sqlite3, [databasePath], stdin: fixture.sql, environment: environment)
        try #require(load.status == 0 && load.stderr.isEmpty, "\(load)")
        let wal = try Binary.run(Self.sqlite3, [databasePath, "PRAGMA journal_mode=WAL;"], environment: environment)
        try #require(wal.status == 0 && wal.line == "wal", "\(wal)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: databasePath)
        // From v17: the file store's blobs beside vault.sql (older fixtures have none).
        let blobs = fixture.directory.appendingPathComponent("files")
        if FileManager.default.fileExists(atPath: blobs.path) {
            let store = directory.appendingPathComponent("files")
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: store.path)
            for name in try FileManager.default.contentsOfDirectory(atPath: blobs.path) {
                let copy = store.appendingPathComponent(name)
                try FileManager.default.copyItem(at: blobs.appendingPathComponent(name), to: copy)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy.path)
            }
        }
    }

    /// Runs `sql` with the sqlite3 command-line shell on the database at `path` (this
    /// vault's by default); its output, without the final newline.
    func sqlite(_ sql: String, at path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try Binary.run(Self.sqlite3, [path ?? databasePath, sql], environment: environment)
        try #require(result.status == 0, "sqlite3 failed: \(result)", sourceLocation: sourceLocation)
        return result.line
    }

    /// `PRAGMA user_version` of the database at `path`, read by sqlite3.
    func schemaVersion(at path: String? = nil) throws -> Int {
        Int(try sqlite("PRAGMA user_version;", at: path)) ?? -1
    }

    /// The rows of the tables that hold the reader's data and keys, as sqlite3 dumps them:
    /// an upgrade must not change a byte of them.
    /// The reader's data as schema v1 defined it (upgrades may add columns and metadata,
    /// never change these), one row per line, values quoted, blobs in hex.
    func journalDump(at path: String? = nil) throws -> String {
        let tables: [(String, String, String)] = [
            ("vault_meta", "key, value", "WHERE key IN ('vault_id', 'key_id', 'created_at') ORDER BY key"),
            ("keyslot", "id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key, created_at", "ORDER BY id"),
            ("book", "id, title, authors, progress, created_at, updated_at, deleted_at, version", "ORDER BY rowid"),
            ("reading_session", "id, book_id, started_at, ended_at, pages_read", "ORDER BY rowid"),
            ("annotation", "id, book_id, kind, body, locator, created_at, updated_at, deleted_at, version", "ORDER BY rowid"),
            ("outbox", "id, entity, entity_id, action, payload, base_version, attempt_count, idempotency_key, created_at, state",
             "ORDER BY id"),
            ("sqlite_sequence", "name, seq", "ORDER BY name"),
        ]
        let sql = tables.map { table, columns, order in
            let quoted = columns.split(separator: ",").map { "quote(\($0.trimmingCharacters(in: .whitespaces)))" }.joined(separator: " || '|' || ")
            return "SELECT '\(table)|' || \(quoted) FROM \(table) \(order);"
        }.joined(separator: "\n")
        return try sqlite(sql, at: path)
    }

    /// Each row of schema_migration: `id|count`.
    func migrationCounts(at path: String? = nil) throws -> [String] {
        try sqlite("SELECT id || '|' || count(*) FROM schema_migration GROUP BY id ORDER BY id;", at: path)
            .split(separator: "\n").map(String.init)
    }

    /// Names of the files in the vault directory.
    func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// Every file in the vault directory, by name, with its bytes.
    func filesByName() throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try filesOnDisk().map { ($0.name, $0.bytes) })
    }

    /// Unlocks with the fixture's passphrase.
    @discardableResult
    func unlock(_ fixture: FixtureVault, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        try succeed(["unlock", "--passphrase-stdin"], stdin: fixture.passphrase + "\n", sourceLocation: sourceLocation)
    }

    /// `list --json` and `book list --json` (needs the vault unlocked) give exactly the
    /// fixture's live notes, quotes and books, and `show` each book's sessions.
    func expectLiveRecords(of fixture: FixtureVault, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let listed = try #require(try json(["list", "--json"], sourceLocation: sourceLocation) as? [[String: Any]],
                                  sourceLocation: sourceLocation)
        let want = fixture.liveAnnotations
        #expect(listed.count == want.count, "list --json has \(listed.count) records, expected \(want.count)", sourceLocation: sourceLocation)
        let byID = Dictionary(uniqueKeysWithValues: listed.compactMap { record in (record["id"] as? String).map { ($0, record) } })
        for annotation in want {
            let id = annotation["id"] as? String ?? "?"
            guard let got = byID[id] else {
                Issue.record("\(id) is missing from list --json", sourceLocation: sourceLocation)
                continue
            }
            #expect(got["body"] as? String == annotation["body"] as? String, "body of \(id)", sourceLocation: sourceLocation)
            #expect(got["locator"] as? String == annotation["locator"] as? String, "locator of \(id)", sourceLocation: sourceLocation)
            #expect(got["kind"] as? String == annotation["kind"] as? String, sourceLocation: sourceLocation)
            #expect(got["bookId"] as? String == annotation["bookId"] as? String, sourceLocation: sourceLocation)
            #expect(int64(got["version"]) == int64(annotation["version"]), "version of \(id)", sourceLocation: sourceLocation)
            #expect(got["createdAt"] as? String == int64(annotation["createdAt"]).map { iso8601(milliseconds: $0) }, sourceLocation: sourceLocation)
            #expect(got["updatedAt"] as? String == int64(annotation["updatedAt"]).map { iso8601(milliseconds: $0) }, sourceLocation: sourceLocation)
            #expect(got["deletedAt"] is NSNull, sourceLocation: sourceLocation)
        }

        let books = try #require(try json(["book", "list", "--json"], sourceLocation: sourceLocation) as? [[String: Any]],
                                 sourceLocation: sourceLocation)
        #expect(books.compactMap { $0["id"] as? String } == fixture.liveBooks.compactMap { $0["id"] as? String },
                "book list --json", sourceLocation: sourceLocation)
        for (got, book) in zip(books, fixture.liveBooks) {
            #expect(got["title"] as? String == book["title"] as? String, sourceLocation: sourceLocation)
            #expect(got["authors"] as? [String] == book["authors"] as? [String], sourceLocation: sourceLocation)
            #expect((got["progress"] as? NSNumber)?.doubleValue == (book["progress"] as? NSNumber)?.doubleValue, sourceLocation: sourceLocation)
            #expect(int64(got["version"]) == int64(book["version"]), sourceLocation: sourceLocation)
            let id = book["id"] as? String ?? ""
            let shown = try #require(try json(["show", id, "--json"], sourceLocation: sourceLocation) as? [String: Any],
                                     sourceLocation: sourceLocation)
            let sessions = (shown["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            // Live sessions only: from v9 a fixture holds deleted ones too (`session delete`).
            let wantSessions = fixture.sessions.filter { $0["bookId"] as? String == id && ($0["deletedAt"] == nil || $0["deletedAt"] is NSNull) }
                .compactMap { $0["id"] as? String }
            #expect(sessions.sorted() == wantSessions.sorted(), "sessions of \(id)", sourceLocation: sourceLocation)
        }
    }
}
