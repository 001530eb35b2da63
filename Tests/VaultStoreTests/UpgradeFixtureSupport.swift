import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

// Support for the upgrade tests: the fixture vaults in Tests/Fixtures/vaults (one per
// schema version, each made by that version's own code; see Docs/MIGRATIONS.md), and the
// checks that every record they hold survives an upgrade.

// MARK: - Fixtures

/// `Tests/Fixtures/vaults`, found from this file's own path.
enum UpgradeFixtures {
    static var root: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // VaultStoreTests
            .deletingLastPathComponent() // Tests
            .appendingPathComponent("Fixtures/vaults")
    }

    /// Every fixture there is (`v1`, `v2`, ...), by schema version, oldest first.
    static let versions: [Int] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.compactMap { $0.hasPrefix("v") ? Int($0.dropFirst()) : nil }.sorted()
    }()

    /// Fixtures of vaults older than this build's newest schema: the ones an upgrade applies to.
    static var olderThanNewest: [Int] { versions.filter { $0 < Migrations.latestVersion } }

    /// Vaults written from a text of a migration that was edited after it shipped, named
    /// `v<version>-<commit>` (Docs/MIGRATIONS.md, "Migrations edited after they shipped").
    static let shippedVariants: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { $0.hasPrefix("v") && $0.contains("-") }.sorted()
    }()

    static func load(_ version: Int) throws -> UpgradeFixture {
        try load(named: "v\(version)", version: version)
    }

    /// The fixture of a shipped variant, at the version its name begins with.
    static func load(variant name: String) throws -> UpgradeFixture {
        let version = try #require(Int(name.dropFirst().prefix { $0 != "-" }), "\(name) names no version")
        return try load(named: name, version: version)
    }

    private static func load(named name: String, version: Int) throws -> UpgradeFixture {
        let directory = root.appendingPathComponent(name)
        let sql = try String(contentsOf: directory.appendingPathComponent("vault.sql"), encoding: .utf8)
        var passphrase = try String(contentsOf: directory.appendingPathComponent("passphrase.txt"), encoding: .utf8)
        if passphrase.hasSuffix("\n") { passphrase.removeLast() }
        let expected = try JSONDecoder().decode(ExpectedVault.self,
                                                from: Data(contentsOf: directory.appendingPathComponent("expected.json")))
        return UpgradeFixture(version: version, directory: directory, sql: sql, passphrase: passphrase, expected: expected)
    }
}

/// One fixture: the vault as text, its passphrase, and every record it holds.
struct UpgradeFixture {
    let version: Int
    let directory: URL
    let sql: String
    let passphrase: String
    let expected: ExpectedVault

    /// Writes the fixture's database to `path` from `vault.sql`, in WAL mode, as a reader's
    /// disk holds it (only the database file: the WAL is folded in and removed on close).
    func materialize(at path: String) throws {
        let database = try Database(path: path, create: true)
        try database.execute(sql)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileSystem.restrictToOwner(path)
    }

    /// A fresh temporary directory holding this fixture's database as `vault.db`.
    func materialized() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        do {
            try materialize(at: directory.databasePath)
        } catch {
            directory.remove()
            throw error
        }
        return directory
    }
}

/// `expected.json`: every record of a fixture vault as it was written. Times are
/// milliseconds since 1970.
struct ExpectedVault: Decodable {
    struct Book: Decodable {
        let id: String, title: String, authors: [String], progress: Double
        let version: Int64, createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, deleted: Bool
        /// From schema v10 (reading status and rating); absent before, when no book had them.
        let rating: Double?, readingLog: [StatusChange]?
        /// From schema v11 (the edition); absent before, when no book had one.
        let isbn: String?, year: Int?, pagesTotal: Int?
        /// From schema v13 (tags); absent before, when no record had any.
        let tags: [String]?
    }
    struct StatusChange: Decodable, Equatable {
        let status: String, on: String
    }
    struct Session: Decodable {
        let id: String, bookId: String, startedAt: Int64, endedAt: Int64, pagesRead: Int
        /// From schema v9 (sessions can be corrected and deleted); absent before.
        let deletedAt: Int64?, version: Int64?
        /// From schema v20 (where an import found it); absent before, and for a typed one.
        let source: String?
    }
    struct Annotation: Decodable {
        let id: String, bookId: String, kind: String, body: String, locator: String?
        let version: Int64, createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, deleted: Bool
        /// From schema v13 (tags); absent before.
        let tags: [String]?
        /// From schema v16 (a quote's comment); absent before, and null when none.
        let comment: String?
    }
    struct Counts: Decodable, Equatable {
        let books: Int, notes: Int, quotes: Int, sessions: Int
    }
    struct OutboxCounts: Decodable {
        let pending: Int, inFlight: Int, done: Int, failed: Int
    }
    struct Operation: Decodable {
        let id: Int64, entity: String, entityId: String, action: String, baseVersion: Int64, attemptCount: Int64
        let idempotencyKey: String, createdAt: Int64, state: String
    }
    struct Outbox: Decodable {
        let counts: OutboxCounts
        let operations: [Operation]
    }

    let schemaVersion: Int
    let bmvaultVersion: String
    let vaultId: String
    let books: [Book]
    let sessions: [Session]
    let annotations: [Annotation]
    let liveCounts: Counts
    let outbox: Outbox
}

// MARK: - Raw contents

/// The tables that hold the reader's data and keys. An upgrade may add tables; it must
/// never change a byte of these.
let journalTables = ["vault_meta", "keyslot", "book", "reading_session", "annotation", "outbox", "sqlite_sequence"]

/// The columns of `table`, in order.
func tableColumns(_ database: Database, _ table: String) throws -> [String] {
    var columns: [String] = []
    try database.forEachRow("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) { row in
        columns.append(row.text(0))
    }
    return columns
}

/// Every row of `table` as SQL literals (blobs in hex), in rowid order: all columns, or
/// only `only` (the columns a table had before an upgrade added some).
func tableRows(_ database: Database, _ table: String, only: [String]? = nil) throws -> [String] {
    let columns = try only ?? tableColumns(database, table)
    try #require(!columns.isEmpty, "no table \(table)")
    let select = columns.map { "quote(\"\($0)\")" }.joined(separator: " || ',' || ")
    var rows: [String] = []
    try database.forEachRow("SELECT \(select) FROM \"\(table)\" ORDER BY rowid") { row in rows.append(row.text(0)) }
    return rows
}

/// The journal tables of a database, by table.
func journalContents(_ database: Database) throws -> [String: [String]] {
    var contents: [String: [String]] = [:]
    for table in journalTables { contents[table] = try tableRows(database, table) }
    return contents
}

/// The reader's data as it was before an upgrade, to check that the upgrade changed none
/// of it: migrations may add columns (with their values) and vault_meta keys, never alter
/// or drop what was there.
struct DataBeforeUpgrade: Equatable {
    let columns: [String: [String]]
    let rows: [String: [String]]

    init(_ database: Database) throws {
        var columns: [String: [String]] = [:]
        for table in journalTables { columns[table] = try tableColumns(database, table) }
        self.columns = columns
        self.rows = try journalContents(database)
    }

    /// Whether every row and value that existed is still there, unchanged.
    func isPreserved(in database: Database) throws -> Bool {
        for table in journalTables {
            let now = try tableRows(database, table, only: columns[table])
            let then = rows[table] ?? []
            if table == "vault_meta" {
                guard Set(then).isSubset(of: Set(now)) else { return false }
            } else if now != then {
                return false
            }
        }
        return true
    }
}

/// The journal tables of the database file at `path`, read through a private copy so the
/// file itself (a snapshot, say) is never opened by the test.
func journalContents(ofFileAt path: String) throws -> (version: Int, schema: String, contents: [String: [String]], integrity: [String]) {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    try FileManager.default.copyItem(atPath: path, toPath: scratch.databasePath)
    let database = try Database(path: scratch.databasePath, create: false)
    var integrity: [String] = []
    try database.forEachRow("PRAGMA integrity_check") { row in integrity.append(row.text(0)) }
    return (try MigrationRunner.version(of: database), try SchemaText.of(database), try journalContents(database), integrity)
}

/// Every `schema_migration` row as one line, in the order they were written.
func migrationHistory(_ database: Database) throws -> [String] {
    var rows: [String] = []
    try database.forEachRow("SELECT id, checksum, applied_at, duration_ms, bmvault_version FROM schema_migration ORDER BY rowid") { row in
        rows.append("\(row.text(0)) \(row.text(1)) \(row.int64(2)) \(row.int64(3)) \(row.text(4))")
    }
    return rows
}

func schemaMigrationIDs(_ database: Database) throws -> [String] {
    var ids: [String] = []
    try database.forEachRow("SELECT id FROM schema_migration ORDER BY rowid") { row in ids.append(row.text(0)) }
    return ids
}

/// The frozen schema of version `version`, without its header line.
func frozenSchema(version: Int) throws -> String {
    let text = try String(contentsOf: SchemaSnapshotTests.schemasDirectory.appendingPathComponent("v\(version).sql"), encoding: .utf8)
    let header = SchemaSnapshotTests.header(version: version) + "\n"
    try #require(text.hasPrefix(header), "Schemas/sqlite/v\(version).sql has no header")
    return String(text.dropFirst(header.count))
}

/// The files beside the vault whose names say they are snapshots (finished or not).
func snapshotFiles(in directory: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".snapshot") }.sorted()
}

// MARK: - Every record

/// Unwraps the vault key from the passphrase keyslot with the fixture's passphrase and
/// attaches it: the keyslots must have survived the upgrade too.
func unlockWithFixturePassphrase(_ store: Store, _ fixture: UpgradeFixture) throws -> VaultKey {
    #expect(store.metadata.vaultID == fixture.expected.vaultId)
    let slot = try #require(try store.read { tables throws(StoreError) in try tables.keys.slots() }.first { $0.kind == .passphrase }, "no passphrase keyslot")
    let key = try slot.unwrap(passphrase: try secret(fixture.passphrase), vaultID: store.metadata.vaultID)
    #expect(key.id == store.metadata.keyID)
    try store.attach(key)
    return key
}

/// Checks that every record `expected.json` lists reads back from `store` exactly as it
/// was written: books, sessions, notes and quotes (tombstones with their text), counts,
/// versions, progress, and the outbox (same rows, states and idempotency keys, and every
/// payload still opens with the vault key and describes its record).
func expectEveryRecord(in store: Store, of fixture: UpgradeFixture,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expected = fixture.expected
    let key = try unlockWithFixturePassphrase(store, fixture)

    // Books, tombstones included.
    for book in expected.books {
        let id = try EntityID(validating: book.id)
        let read = try store.read { tables throws(StoreError) in try tables.books.book(id) }
        #expect(read.title == book.title, "title of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.authors == book.authors, "authors of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.progress == book.progress, "progress of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.rating == book.rating, "rating of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.readingLog.events.map { ExpectedVault.StatusChange(status: $0.status.rawValue, on: $0.on.iso8601) } == book.readingLog ?? [],
                "reading log of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.edition == Edition(isbn: book.isbn, year: book.year, pages: book.pagesTotal), "edition of book \(book.id)",
                sourceLocation: sourceLocation)
        #expect(try store.read { tables throws(StoreError) in try tables.tags.shown(on: id) } == book.tags ?? [], "tags of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.version == book.version, "version of book \(book.id)", sourceLocation: sourceLocation)
        #expect(read.createdAt.millisecondsSince1970 == book.createdAt, sourceLocation: sourceLocation)
        #expect(read.updatedAt.millisecondsSince1970 == book.updatedAt, sourceLocation: sourceLocation)
        #expect(read.deletedAt?.millisecondsSince1970 == book.deletedAt, "tombstone of book \(book.id)", sourceLocation: sourceLocation)
    }
    let allBooks = try store.read { tables throws(StoreError) in try tables.books.all(includeDeleted: true) }
    #expect(allBooks.count == expected.books.count, sourceLocation: sourceLocation)
    #expect(allBooks.allSatisfy { (try? $0.get()) != nil }, "a book does not decrypt", sourceLocation: sourceLocation)
    #expect(try store.read { tables throws(StoreError) in try tables.books.all() }.count == expected.books.filter { !$0.deleted }.count, sourceLocation: sourceLocation)

    // Sessions, deleted ones (from v9) included.
    let liveSessions = expected.sessions.filter { $0.deletedAt == nil }
    var sessionCount = 0
    for book in expected.books {
        let bookID = try EntityID(validating: book.id)
        let read = try store.read { tables throws(StoreError) in try tables.sessions.live(of: bookID) }
        let want = liveSessions.filter { $0.bookId == book.id }
        sessionCount += read.count
        #expect(read.map(\.id.rawValue).sorted() == want.map(\.id).sorted(), "sessions of \(book.id)", sourceLocation: sourceLocation)
    }
    #expect(sessionCount == liveSessions.count, sourceLocation: sourceLocation)
    for session in expected.sessions {
        let sessionID = try EntityID(validating: session.id)
        let read = try #require(try store.read { tables throws(StoreError) in try tables.sessions.version(sessionID) },
                                sourceLocation: sourceLocation).session
        #expect(read.bookID.rawValue == session.bookId, sourceLocation: sourceLocation)
        #expect(read.startedAt.millisecondsSince1970 == session.startedAt, sourceLocation: sourceLocation)
        #expect(read.endedAt.millisecondsSince1970 == session.endedAt, sourceLocation: sourceLocation)
        #expect(read.pagesRead == session.pagesRead, sourceLocation: sourceLocation)
        #expect(read.deletedAt?.millisecondsSince1970 == session.deletedAt, "tombstone of session \(session.id)", sourceLocation: sourceLocation)
        #expect(read.version == session.version ?? 1, "version of session \(session.id)", sourceLocation: sourceLocation)
        // Every session of a vault from before v20 upgrades with no source (it was typed).
        #expect(read.source == session.source, "source of session \(session.id)", sourceLocation: sourceLocation)
    }

    // Notes and quotes, tombstones included, each to its original text.
    for annotation in expected.annotations {
        let annotationID = try EntityID(validating: annotation.id)
        let read = try store.read { tables throws(StoreError) in try tables.annotations.annotation(annotationID) }
        #expect(read.body == annotation.body, "body of \(annotation.id)", sourceLocation: sourceLocation)
        #expect(read.locator?.text == annotation.locator, "locator of \(annotation.id)", sourceLocation: sourceLocation)
        #expect(read.bookID.rawValue == annotation.bookId, sourceLocation: sourceLocation)
        #expect(read.kind.rawValue == annotation.kind, sourceLocation: sourceLocation)
        #expect(try store.read { tables throws(StoreError) in try tables.tags.shown(on: read.id) } == annotation.tags ?? [], "tags of \(annotation.id)", sourceLocation: sourceLocation)
        #expect(read.comment == annotation.comment, "comment of \(annotation.id)", sourceLocation: sourceLocation)
        #expect(read.version == annotation.version, "version of \(annotation.id)", sourceLocation: sourceLocation)
        #expect(read.createdAt.millisecondsSince1970 == annotation.createdAt, sourceLocation: sourceLocation)
        #expect(read.updatedAt.millisecondsSince1970 == annotation.updatedAt, sourceLocation: sourceLocation)
        #expect(read.deletedAt?.millisecondsSince1970 == annotation.deletedAt, "tombstone of \(annotation.id)", sourceLocation: sourceLocation)
    }
    var every: [String] = []
    var unreadable: [String] = []
    try store.read { tables throws(StoreError) in try tables.annotations.forEach(AnnotationFilter(includeDeleted: true)) { result in
        switch result {
        case .success(let annotation): every.append(annotation.id.rawValue)
        case .failure(let failure): unreadable.append(failure.id)
        }
    } }
    #expect(unreadable.isEmpty, "annotations that no longer decrypt: \(unreadable)", sourceLocation: sourceLocation)
    #expect(every.sorted() == expected.annotations.map(\.id).sorted(), sourceLocation: sourceLocation)
    let live = try store.liveAnnotations().compactMap { try? $0.get().id.rawValue }
    #expect(live.sorted() == expected.annotations.filter { !$0.deleted }.map(\.id).sorted(), sourceLocation: sourceLocation)

    // Counts of live records.
    let counts = try store.read { tables throws(StoreError) in try tables.records.counts() }
    #expect(ExpectedVault.Counts(books: counts.books, notes: counts.notes, quotes: counts.quotes, sessions: counts.sessions)
            == expected.liveCounts, sourceLocation: sourceLocation)

    // The outbox: the same operations, in the same states, with the same idempotency keys.
    let rows = try store.outboxRows()
    #expect(rows.count == expected.outbox.operations.count, sourceLocation: sourceLocation)
    for (row, operation) in zip(rows, expected.outbox.operations) {
        #expect(row.id == operation.id && row.entity == operation.entity && row.entityID == operation.entityId
                && row.action == operation.action && row.baseVersion == operation.baseVersion
                && row.attemptCount == operation.attemptCount && row.idempotencyKey == operation.idempotencyKey
                && row.createdAt == operation.createdAt && row.state == operation.state,
                "outbox row \(row.id) changed", sourceLocation: sourceLocation)
    }
    let outboxCounts = try store.read { tables throws(StoreError) in try tables.outbox.counts() }
    #expect(outboxCounts[.pending] == expected.outbox.counts.pending && outboxCounts[.inFlight] == expected.outbox.counts.inFlight
            && outboxCounts[.done] == expected.outbox.counts.done && outboxCounts[.failed] == expected.outbox.counts.failed,
            sourceLocation: sourceLocation)

    // Every payload opens, and describes the record it belongs to; the last operation of
    // each record carries the record as it is now. Up to schema v6 the outbox of a vault
    // with no remote kept every operation; from v7 it keeps only the last change's (each
    // change's operations replace those of the one before), so a record may have none.
    let everyRecordHasAnOperation = expected.schemaVersion < 7
    var last: [String: [String: Any]] = [:]
    for row in rows {
        let payload = try openPayload(row, key: key, vaultID: store.metadata.vaultID)
        let record = try #require(payload[row.entity] as? [String: Any], "payload of outbox row \(row.id)", sourceLocation: sourceLocation)
        #expect(record["id"] as? String == row.entityID, sourceLocation: sourceLocation)
        if row.entity != "session" {
            #expect((record["version"] as? NSNumber)?.int64Value == row.baseVersion + 1, sourceLocation: sourceLocation)
        }
        last[row.entityID] = record
    }
    for book in expected.books {
        guard everyRecordHasAnOperation || last[book.id] != nil else { continue }
        let record = try #require(last[book.id], "no outbox operation for book \(book.id)", sourceLocation: sourceLocation)
        #expect(record["title"] as? String == book.title && record["authors"] as? [String] == book.authors
                && (record["progress"] as? NSNumber)?.doubleValue == book.progress
                && (record["deletedAt"] as? NSNumber)?.int64Value == book.deletedAt,
                "last outbox payload of book \(book.id)", sourceLocation: sourceLocation)
    }
    for annotation in expected.annotations {
        guard everyRecordHasAnOperation || last[annotation.id] != nil else { continue }
        let record = try #require(last[annotation.id], "no outbox operation for \(annotation.id)", sourceLocation: sourceLocation)
        #expect(record["body"] as? String == annotation.body && record["locator"] as? String == annotation.locator
                && (record["version"] as? NSNumber)?.int64Value == annotation.version
                && (record["deletedAt"] as? NSNumber)?.int64Value == annotation.deletedAt,
                "last outbox payload of \(annotation.id)", sourceLocation: sourceLocation)
    }
    for session in expected.sessions {
        guard everyRecordHasAnOperation || last[session.id] != nil else { continue }
        let record = try #require(last[session.id], "no outbox operation for session \(session.id)", sourceLocation: sourceLocation)
        #expect((record["pagesRead"] as? NSNumber)?.intValue == session.pagesRead, sourceLocation: sourceLocation)
    }
}
