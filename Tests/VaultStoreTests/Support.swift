import Foundation
import Testing
import Journal
@testable import VaultStore
import Sync
import SyncWire
import VaultCrypto
import TestSupport

/// True when `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    let first = needle[0]
    var index = 0
    let last = haystack.count - needle.count
    while index <= last {
        if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return true
        }
        index += 1
    }
    return false
}

// MARK: - Vault fixtures

let testGeneratorVersion = "0.0.0-test"

/// A store, its key, and where it lives.
struct Fixture {
    let directory: TemporaryDirectory
    let store: Store
    let key: VaultKey
    let clock: TestClock
    let metadata: VaultMetadata

    var path: String { directory.databasePath }

    /// A second connection to the same file.
    func reopen(attach: Bool = true) throws -> Store {
        let other = try Store.open(at: path, clock: clock, generatorVersion: testGeneratorVersion)
        if attach { try other.attach(key) }
        return other
    }
}

/// Keyslots with the right shape but without a slow KDF, for tests that do not unwrap them.
func placeholderKeyslots() throws -> [Keyslot] {
    [Keyslot(id: "slot-passphrase", kind: .passphrase, kdf: KDFParameters(strength: .interactive),
             salt: try randomBytes(count: 16), wrappedKey: try randomBytes(count: 73)),
     Keyslot(id: "slot-recovery", kind: .recovery, kdf: KDFParameters(algorithm: Keyslot.recoveryKDF, opsLimit: 0, memLimit: 0),
             salt: try randomBytes(count: 16), wrappedKey: try randomBytes(count: 73))]
}

/// Creates a vault in a fresh temporary directory; attaches its key unless told not to.
/// A new vault. With `remote` (the default) it has a folder remote that is never synced, so
/// every operation waits in the outbox, as in a vault that syncs; without, each change's
/// operations replace the last one's (see `Store.enqueue`).
func makeFixture(attach: Bool = true, keyslots: [Keyslot]? = nil, clock: TestClock = TestClock(), remote: Bool = true) throws -> Fixture {
    let directory = try TemporaryDirectory()
    let key = try VaultKey.generate()
    let metadata = VaultMetadata(vaultID: UUID().uuidString.lowercased(), keyID: key.id, createdAt: clock.now())
    let store = try Store.create(at: directory.databasePath, metadata: metadata,
                                 keyslots: try keyslots ?? placeholderKeyslots(),
                                 clock: clock, generatorVersion: testGeneratorVersion)
    if attach { try store.attach(key) }
    if remote { try store.write { tables throws(StoreError) in try tables.remotes.add(name: "shared", kind: .folder, location: directory.file("remote")) } }
    return Fixture(directory: directory, store: store, key: key, clock: clock, metadata: metadata)
}

// MARK: - Records

func newBook(_ title: String = "The Name of the Rose", authors: [String] = ["Umberto Eco"], clock: TestClock) throws -> Book {
    try Book.new(title: title, authors: authors, at: clock.now())
}

func newNote(_ book: Book, _ body: String = "A labyrinth of a library.", locator: String? = nil, clock: TestClock) throws -> Annotation {
    try Annotation.new(bookID: book.id, kind: .note, body: body, locator: try locator.map { try Locator($0) }, at: clock.now())
}

func newQuote(_ book: Book, _ body: String = "Stat rosa pristina nomine.", locator: String = "p. 502", clock: TestClock) throws -> Annotation {
    try Annotation.new(bookID: book.id, kind: .quote, body: body, locator: try Locator(locator), at: clock.now())
}

func newSession(_ book: Book, pages: Int = 12, clock: TestClock) throws -> ReadingSession {
    let now = clock.now()
    return try ReadingSession.new(bookID: book.id, startedAt: Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 3_600_000),
                                  endedAt: now, pagesRead: pages, at: now)
}

// MARK: - Raw rows

/// One row of the outbox, as stored.
struct OutboxRow: Equatable {
    let id: Int64
    let entity: String
    let entityID: String
    let action: String
    let payload: [UInt8]
    let baseVersion: Int64
    let attemptCount: Int64
    let idempotencyKey: String
    let createdAt: Int64
    let state: String
    /// 1: the record's JSON sealed for the outbox (before schema v6); 2: the operation as sent.
    let payloadFormat: Int64
}

extension Store {
    func outboxRows() throws -> [OutboxRow] {
        var rows: [OutboxRow] = []
        try database.forEachRow("""
            SELECT id, entity, entity_id, action, payload, base_version, attempt_count, idempotency_key, created_at, state,
                   payload_format
            FROM outbox ORDER BY id
            """) { row in
            rows.append(OutboxRow(id: row.int64(0), entity: row.text(1), entityID: row.text(2), action: row.text(3),
                                  payload: row.blob(4), baseVersion: row.int64(5), attemptCount: row.int64(6),
                                  idempotencyKey: row.text(7), createdAt: row.int64(8), state: row.text(9), payloadFormat: row.int64(10)))
        }
        return rows
    }

    /// Every column of every annotation row, as text (blobs in hex), in id order.
    func rawAnnotationRows() throws -> [[String]] {
        try rawRows("SELECT id, book_id, kind, hex(body), hex(locator), created_at, updated_at, deleted_at, version FROM annotation ORDER BY id")
    }

    func rawRows(_ sql: String) throws -> [[String]] {
        var rows: [[String]] = []
        try database.forEachRow(sql) { row in
            rows.append((0..<9).map { row.isNull(Int32($0)) ? "NULL" : row.text(Int32($0)) })
        }
        return rows
    }

    func blob(_ column: String, of table: String, id: String) throws -> [UInt8] {
        var bytes: [UInt8]?
        try database.forEachRow("SELECT \(column) FROM \(table) WHERE id = ?", [.text(id)]) { row in bytes = row.blob(0) }
        return try #require(bytes)
    }

    func setBlob(_ column: String, of table: String, id: String, to bytes: [UInt8]) throws {
        try database.run("UPDATE \(table) SET \(column) = ? WHERE id = ?", [.blob(bytes), .text(id)])
        #expect(database.changes == 1)
    }

    func integer(_ sql: String) throws -> Int64 {
        try #require(try database.integer(sql))
    }

    func liveAnnotations(_ filter: AnnotationFilter = AnnotationFilter()) throws -> [Result<Annotation, UnreadableRecord>] {
        var results: [Result<Annotation, UnreadableRecord>] = []
        try read { tables throws(StoreError) in try tables.annotations.forEach(filter) { results.append($0) } }
        return results
    }
}

/// Opens an outbox payload with the vault key, as a sync worker would.
func openPayload(_ row: OutboxRow, key: VaultKey, vaultID: String) throws -> [String: Any] {
    let sealer = FieldSealer(key: key, vaultID: vaultID)
    let json = row.payloadFormat == 2
        ? try OperationCipher(sealer: sealer).open(operation: row.payload, idempotencyKey: row.idempotencyKey)
        : try sealer.open(row.payload, table: "outbox", recordID: row.idempotencyKey, field: "payload")
    return try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
}

/// The error `body` throws, or nil when it does not throw.
func storeError<T>(_ body: () throws(StoreError) -> T) -> StoreError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// `text`'s UTF-8 bytes in secure memory, as a passphrase or recovery key is held.
func secret(_ text: String) throws -> SecretBytes {
    let bytes = Array(text.utf8)
    let secret = try SecretBytes(count: bytes.count)
    secret.withUnsafeMutableBytes { out in
        for (index, byte) in bytes.enumerated() { out[index] = byte }
    }
    return secret
}

extension VaultMetadata {
    /// The vault's identity without this device's id, which a new vault draws at random.
    var ignoringDevice: VaultMetadata {
        VaultMetadata(vaultID: vaultID, keyID: keyID, createdAt: createdAt)
    }
}
