import Applier
import Foundation
import Synchronization
import Testing
import FileIO
import Journal
@testable import Sync
@testable import SyncWire
@testable import VaultStore
import VaultCrypto
import TestSupport

// Devices, a shared folder remote, and a way to compare what each device holds.
//
// A "device" is a real vault file made by Store.create with the SAME VaultMetadata and
// keyslots as the first one and attached with the same key: exactly what `init --join`
// builds. Each gets a device id of the test's choosing (so a seeded schedule replays the
// same way: the id is the last tie-break of every clock) and its own clock.

// MARK: - Clocks

/// A clock that moves only when told.
final class ManualClock: Journal.Clock {
    private let milliseconds: Mutex<Int64>

    init(_ start: Int64) { milliseconds = Mutex(start) }

    /// Starts at the real time now (what the engine's backoff is computed from), plus `offset`.
    convenience init(realTimePlus offset: Int64 = 0) {
        self.init(Int64(Date().timeIntervalSince1970 * 1000) + offset)
    }

    func now() -> Timestamp { Timestamp(millisecondsSince1970: milliseconds.withLock { $0 }) }
    func advance(milliseconds delta: Int64) { milliseconds.withLock { $0 += delta } }
    func advance(seconds: Int64) { advance(milliseconds: seconds * 1000) }
    func advance(hours: Int64) { advance(milliseconds: hours * 3_600_000) }
}

/// The real time, in milliseconds.
func realNowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

// MARK: - Temporary directories

final class Scratch {
    let path: String

    init(_ label: String = "sync") throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bmvault-synctests-\(label)-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func sub(_ name: String) throws -> String {
        let directory = path + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

let testGeneratorVersion = "0.0.0-synctest"
let remoteName = "shared"

/// Keyslots with the right shape but without a slow KDF (nothing here unwraps them).
func placeholderKeyslots() throws -> [Keyslot] {
    [try placeholderKeyslot(id: "slot-passphrase", kind: .passphrase), try placeholderKeyslot(id: "slot-recovery", kind: .recovery)]
}

/// A keyslot of the right form (format byte, sizes, KDF) that opens with nothing.
func placeholderKeyslot(id: String, kind: Keyslot.Kind) throws -> Keyslot {
    Keyslot(id: id, kind: kind, kdf: kind == .passphrase ? KDFParameters(strength: .interactive)
                : KDFParameters(algorithm: Keyslot.recoveryKDF, opsLimit: 0, memLimit: 0),
            salt: try randomBytes(count: 16), wrappedKey: [1] + (try randomBytes(count: 72)))
}

// MARK: - A vault on several devices

/// One vault (id, key, keyslots), a folder remote, and the devices that share them.
final class Cluster {
    let scratch: Scratch
    let key: VaultKey
    let metadata: VaultMetadata
    let keyslots: [Keyslot]
    /// The folder every device's `shared` remote points at.
    let remoteFolder: String

    init(label: String = "sync") throws {
        scratch = try Scratch(label)
        key = try VaultKey.generate()
        metadata = VaultMetadata(vaultID: UUID().uuidString.lowercased(), keyID: key.id,
                                 createdAt: Timestamp(millisecondsSince1970: realNowMilliseconds()))
        keyslots = try placeholderKeyslots()
        remoteFolder = try scratch.sub("remote")
        keys = [key]
    }

    /// Every vault key a device of this cluster made (the first, then each rekey's): what
    /// the passphrase would unwrap from a remote's keyslots, for a device taking up a rekey.
    private(set) var keys: [VaultKey]

    /// A cipher that opens whatever any device of the cluster sealed, under any of its keys.
    var cipher: OperationCipher {
        OperationCipher(sealer: FieldSealer(key: key, vaultID: metadata.vaultID),
                        retired: keys.map { FieldSealer(key: $0, vaultID: metadata.vaultID) })
    }

    /// Where rekeys draw their keys from: the CSPRNG, or a seeded generator, so that a
    /// schedule (whose outcome can depend on which key id is lower) replays from its seed.
    var keySource: SeededGenerator?

    /// A new vault key, as a device rekeying makes one.
    func newKey() throws -> VaultKey {
        let key: VaultKey
        if var source = keySource {
            let bytes = try SecretBytes(count: VaultKey.byteCount)
            bytes.withUnsafeMutableBytes { buffer in
                for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: source.next()) }
            }
            keySource = source
            key = try VaultKey(bytes: bytes)
        } else {
            key = try VaultKey.generate()
        }
        keys.append(key)
        return key
    }

    /// The key a remote's keyslots wrap, as the passphrase would unwrap it.
    func key(withID id: String) -> VaultKey? {
        keys.first { $0.id.description == id }
    }

    /// The vault's folder on the remote: `<folder>/bmvault-<vault id>`.
    var remoteRoot: String { remoteFolder + "/bmvault-" + metadata.vaultID }

    /// A new device holding an empty copy of the vault, with the shared remote recorded.
    @discardableResult
    func addDevice(_ name: String, deviceID: String? = nil, clock: ManualClock? = nil) throws -> Device {
        try Device(cluster: self, name: name, deviceID: deviceID, clock: clock ?? ManualClock(realTimePlus: 0))
    }

    /// A FolderRemote on the shared folder, as a device would build it.
    func folderRemote(name: String = remoteName) -> FolderRemote {
        FolderRemote(name: name, location: remoteFolder, vaultID: metadata.vaultID)
    }

    /// Every `.op` file on the remote, by device, names sorted.
    func remoteOperationFiles() throws -> [String: [String]] {
        let remote = folderRemote()
        var files: [String: [String]] = [:]
        for device in try remote.devices() { files[device] = try remote.operationNames(of: device) }
        return files
    }

    /// Every `.op` file on the remote whose operation is about `entityID`.
    func remoteOperations(about entityID: EntityID) throws -> [SyncOperation] {
        try operationFiles(on: folderRemote()).map(\.operation).filter { $0.entityID == entityID }
    }

    /// Every operation file on `remote`, opened: its device
    /// folder, its name, and the operation it holds.
    func operationFiles(on remote: FolderRemote) throws -> [(device: String, name: String, operation: SyncOperation)] {
        var found: [(device: String, name: String, operation: SyncOperation)] = []
        for owner in try remote.devices() {
            for name in try remote.operationNames(of: owner) {
                guard let key = OperationFileName.idempotencyKey(in: name) else { continue }
                let plain = try cipher.open(operation: try remote.readOperation(name, of: owner), idempotencyKey: key)
                guard case .operation(let operation) = try OperationDocument.decode(plain, expectedKey: key, device: owner) else { continue }
                found.append((owner, name, operation))
            }
        }
        return found
    }
}

/// One device: a vault file of its own, its own device id and clock.
final class Device {
    let name: String
    let path: String
    let clock: ManualClock
    /// Strong: the cluster (and its folders) lives as long as any of its devices.
    let cluster: Cluster
    private(set) var store: Store
    /// This device's vault key: the cluster's first, until it rekeys or takes up a rekey.
    private(set) var key: VaultKey

    init(cluster: Cluster, name: String, deviceID: String?, clock: ManualClock) throws {
        self.cluster = cluster
        self.name = name
        self.clock = clock
        key = cluster.key
        path = try cluster.scratch.sub("device-\(name)") + "/vault.db"
        var created: Store? = try Store.create(at: path, metadata: cluster.metadata, keyslots: cluster.keyslots,
                                               clock: clock, generatorVersion: testGeneratorVersion)
        if let deviceID {
            try created?.database.run("UPDATE vault_meta SET value = ? WHERE key = 'device_id'", [.text(deviceID)])
        }
        created = nil
        store = try Store.open(at: path, clock: clock, generatorVersion: testGeneratorVersion)
        try store.attach(cluster.key)
        try store.write { tables throws(StoreError) in try tables.remotes.add(name: remoteName, kind: .folder, location: cluster.remoteFolder) }
    }

    var deviceID: String { store.deviceID }

    /// The process dies and comes back: the Store object is dropped and the file reopened.
    func restart() throws {
        store = try Store.open(at: path, clock: clock, generatorVersion: testGeneratorVersion)
        try store.attach(key)
    }

    /// `bmvault rekey` here: a new key, every field re-sealed, the old key kept in the chain.
    func rekey() throws {
        let newKey = try cluster.newKey()
        try store.rekey.begin(from: key, to: newKey, keyslots: try placeholderKeyslots())
        try store.rekey.resume(from: key, to: newKey) { _ in }
        try store.attach(newKey)
        key = newKey
    }

    /// What `unlock` does with the passphrase when `remotes` hold a rekey made on another
    /// device: takes up its key (the cluster stands in for the passphrase unwrapping it).
    /// Returns whether there was one.
    @discardableResult
    func takeUpRekeyMadeElsewhere(on remotes: [any Remote]? = nil) throws -> Bool {
        guard let found = RekeyMadeElsewhere.newest(among: RemoteDescriptor.read(from: remotes ?? [cluster.folderRemote()], vaultID: store.metadata.vaultID),
                                                    keyID: key.id, generation: try store.read { tables throws(StoreError) in try tables.keys.generation() },
                                                    keyChain: try store.read { tables throws(StoreError) in try tables.keys.retired() }) else { return false }
        let descriptor = found.descriptor
        let newKey = try #require(cluster.key(withID: descriptor.keyId))
        try store.rekey.follow(from: key, to: newKey, keyslots: try #require(descriptor.vaultKeyslots()),
                               keyChain: try #require(descriptor.retiredKeys()), generation: descriptor.keyslotGeneration ?? 0) { _ in }
        key = newKey
        return true
    }

    /// Runs one sync through `remotes` (default: the shared folder remote).
    @discardableResult
    func sync(through remotes: [any Remote]? = nil, allowMassDelete: Bool = false,
              backoff: Backoff = Backoff()) throws(SyncError<StoreError>) -> SyncSummary {
        let cipher: OperationCipher
        do { cipher = try store.read { tables throws(StoreError) in try tables.keys.operationCipher() } } catch { throw .journal(error) }
        return try SyncEngine(journal: StoreSyncJournal(store), cipher: cipher, remotes: remotes ?? [cluster.folderRemote()], backoff: backoff)
            .run(allowMassDelete: allowMassDelete)
    }

    // Journal actions, as a reader would take them.

    @discardableResult
    func addBook(_ title: String, authors: [String] = ["An Author"]) throws -> Book {
        let book = try Book.new(title: title, authors: authors, at: clock.now())
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        return book
    }

    @discardableResult
    func addNote(_ body: String, to book: Book) throws -> Annotation {
        let note = try Annotation.new(bookID: book.id, kind: .note, body: body, locator: nil, at: clock.now())
        try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        return note
    }

    @discardableResult
    func addNote(_ body: String, toBook bookID: EntityID) throws -> Annotation {
        let note = try Annotation.new(bookID: bookID, kind: .note, body: body, locator: nil, at: clock.now())
        try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        return note
    }

    @discardableResult
    func addQuote(_ body: String, at locator: String, toBook bookID: EntityID) throws -> Annotation {
        let quote = try Annotation.new(bookID: bookID, kind: .quote, body: body, locator: try Locator(locator), at: clock.now())
        try store.write { tables throws(StoreError) in try tables.annotations.add(quote) }
        return quote
    }

    @discardableResult
    func edit(_ id: EntityID, _ body: String) throws -> Annotation {
        try store.write { tables throws(StoreError) in try tables.annotations.edit(id, body: body, locator: nil) }
    }

    @discardableResult
    func delete(_ id: EntityID) throws -> Annotation {
        try store.write { tables throws(StoreError) in try tables.annotations.delete(id) }
    }

    @discardableResult
    func addSession(to bookID: EntityID, pages: Int) throws -> ReadingSession {
        let now = clock.now()
        let session = try ReadingSession.new(bookID: bookID, startedAt: Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 60_000),
                                             endedAt: now, pagesRead: pages, at: now)
        try store.write { tables throws(StoreError) in try tables.sessions.add(session) }
        return session
    }

    func note(_ id: EntityID) throws -> Annotation { try store.read { tables throws(StoreError) in try tables.annotations.annotation(id) } }

    func liveAnnotations() throws -> [Annotation] {
        var all: [Annotation] = []
        try store.read { tables throws(StoreError) in try tables.annotations.forEach(AnnotationFilter()) { result in
            if case .success(let annotation) = result { all.append(annotation) }
        } }
        return all
    }

    func conflictIDs() throws -> [EntityID] {
        try store.read { tables throws(StoreError) in try tables.annotations.conflicts() }.compactMap { try? $0.get().id }
    }

    func state() throws -> JournalState { try JournalState(store) }

    /// The error a sync throws, or nil when it succeeds.
    func syncFailure(allowMassDelete: Bool = false) -> SyncError<StoreError>? {
        do {
            try sync(allowMassDelete: allowMassDelete)
            return nil
        } catch {
            return error
        }
    }

    /// Rows of the outbox that are not done.
    func waitingOperations() throws -> [OutboxEntry] { try store.read { tables throws(StoreError) in try tables.outbox.entries() } }
}

// MARK: - What a device holds

/// Everything a device holds of the journal, through Store reads (plus the sync columns a
/// later merge depends on), sorted by id: two devices converged when these are equal.
struct JournalState: Equatable, CustomStringConvertible {
    struct BookRow: Equatable {
        let book: Book
        let progressRewind: Bool
    }

    var books: [BookRow] = []
    var annotations: [Annotation] = []
    var sessions: [ReadingSession] = []

    /// Every record, tombstones included. A tombstone's content is left out: when it is
    /// purged differs from device to device (it follows acknowledgements), and nobody sees it.
    init(_ store: Store) throws {
        var rewind: [String: Bool] = [:]
        try store.database.forEachRow("SELECT id, progress_rewind FROM book") { row in rewind[row.text(0)] = row.int64(1) == 1 }
        var bookIDs: [EntityID] = []
        var annotationIDs: [EntityID] = []
        var sessionIDs: [EntityID] = []
        try store.database.forEachRow("SELECT id FROM book") { row in bookIDs.append(try! EntityID(validating: row.text(0))) }
        try store.database.forEachRow("SELECT id FROM reading_session") { row in sessionIDs.append(try! EntityID(validating: row.text(0))) }
        try store.database.forEachRow("SELECT id FROM annotation") { row in annotationIDs.append(try! EntityID(validating: row.text(0))) }
        for id in bookIDs {
            var book = try store.read { tables throws(StoreError) in try tables.books.book(id) }
            if book.deletedAt != nil { book.title = ""; book.authors = [] }
            books.append(BookRow(book: book, progressRewind: rewind[book.id.rawValue] ?? false))
        }
        for id in sessionIDs {
            if let version = try store.read({ tables throws(StoreError) in try tables.sessions.version(id) }) { sessions.append(version.session) }
        }
        books.sort { $0.book.id < $1.book.id }
        for id in annotationIDs {
            var annotation = try store.read { tables throws(StoreError) in try tables.annotations.annotation(id) }
            if annotation.deletedAt != nil { annotation.body = ""; annotation.locator = nil; annotation.comment = nil }
            annotations.append(annotation)
        }
        annotations.sort { $0.id < $1.id }
        sessions.sort { $0.id < $1.id }
    }

    /// Only what `list`, `book list` and `show` display: live records and their text.
    var visible: VisibleState {
        VisibleState(books: books.filter { $0.book.deletedAt == nil }.map { "\($0.book.id) \($0.book.title) \($0.book.progress)" },
                     annotations: annotations.filter { $0.deletedAt == nil }
                        .map { "\($0.id) \($0.kind) \($0.body) \($0.locator?.text ?? "-") \($0.comment ?? "-") \($0.conflictOf?.rawValue ?? "-") \($0.conflictReason?.rawValue ?? "-")" },
                     sessions: sessions.filter { $0.deletedAt == nil }.map { "\($0.id) \($0.pagesRead)" })
    }

    var description: String {
        var lines: [String] = []
        for row in books {
            let book = row.book
            lines.append("book \(book.id.rawValue.suffix(6)) \"\(book.title)\" progress=\(book.progress)\(row.progressRewind ? " (rewind)" : "") v\(book.version) updated=\(book.updatedAt.millisecondsSince1970)\(book.deletedAt.map { " DELETED@\($0.millisecondsSince1970)" } ?? "")")
        }
        for note in annotations {
            lines.append("\(note.kind) \(note.id.rawValue.suffix(6)) \"\(note.body)\" v\(note.version) updated=\(note.updatedAt.millisecondsSince1970)\(note.deletedAt.map { " DELETED@\($0.millisecondsSince1970)" } ?? "")\(note.conflictOf.map { " copyOf=\($0.rawValue.suffix(6))" } ?? "")\(note.conflictReason.map { " [\($0.rawValue)]" } ?? "")")
        }
        for session in sessions {
            lines.append("session \(session.id.rawValue.suffix(6)) pages=\(session.pagesRead) v\(session.version)\(session.deletedAt.map { " DELETED@\($0.millisecondsSince1970)" } ?? "")")
        }
        return lines.joined(separator: "\n")
    }

    /// The lines of `self` and `other` that differ, for failure messages.
    func difference(from other: JournalState) -> String {
        let mine = Set(description.split(separator: "\n").map(String.init))
        let theirs = Set(other.description.split(separator: "\n").map(String.init))
        return (mine.subtracting(theirs).sorted().map { "- \($0)" } + theirs.subtracting(mine).sorted().map { "+ \($0)" })
            .joined(separator: "\n")
    }
}

struct VisibleState: Equatable {
    let books: [String]
    let annotations: [String]
    let sessions: [String]
}

/// Expects every device to hold exactly the same journal.
func expectConverged(_ devices: [Device], _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
    guard let first = devices.first else { return }
    let reference = try first.state()
    for device in devices.dropFirst() {
        let state = try device.state()
        #expect(state == reference, "\(context) \(first.name) vs \(device.name) differ:\n\(reference.difference(from: state))",
                sourceLocation: sourceLocation)
    }
}

/// Syncs every device in turn until a whole round moves nothing, then once more.
func syncUntilQuiet(_ devices: [Device], maxRounds: Int = 8, allowMassDelete: Bool = true) throws {
    for _ in 0..<maxRounds {
        var moved = 0
        for device in devices {
            let summary = try device.sync(allowMassDelete: allowMassDelete)
            moved += summary.pushed + summary.pulled + summary.deferred
        }
        if moved == 0 { return }
    }
}

// MARK: - Remote doubles

/// A remote wrapping a real one that fails on purpose, as the script says.
final class ScriptedRemote: Remote {
    enum WriteFault {
        /// The file lands, then the answer is lost.
        case loseReply
        /// The write fails before anything lands.
        case fail(RemoteError)
    }

    let wrapped: any Remote
    var unreachable = false
    /// Faults by write number (1-based, counting every operation write this object sees).
    var writeFaults: [Int: WriteFault] = [:]
    /// Every write from this number on fails like this.
    var failAllWritesFrom: (Int, RemoteError)?
    /// A fault for writes of operations on these files (by name predicate).
    var failWhere: ((String) -> RemoteError?)?
    /// Every removal of an operation file fails like this.
    var failRemovals: RemoteError?
    private(set) var writes = 0
    private(set) var landed: [String] = []
    /// Files whose bytes were replaced (the engine found them damaged).
    private(set) var replaced: [String] = []

    var name: String { wrapped.name }

    init(wrapping remote: any Remote) { wrapped = remote }

    func checkReachable() throws(RemoteError) {
        if unreachable { throw .unreachable(errno: ENETUNREACH) }
        try wrapped.checkReachable()
    }

    func readDescriptor() throws(RemoteError) -> [UInt8]? {
        if unreachable { throw .unreachable(errno: ENETUNREACH) }
        return try wrapped.readDescriptor()
    }

    func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError) { try wrapped.writeDescriptor(bytes) }
    func commitWrites() throws(RemoteError) { try wrapped.commitWrites() }
    func fileBlobNames() throws(RemoteError) -> Set<String> { try wrapped.fileBlobNames() }
    func writeFileBlob(_ name: String, from source: FileDescriptor) throws(RemoteError) { try wrapped.writeFileBlob(name, from: source) }
    func readFileBlob(_ name: String, into output: FileDescriptor) throws(RemoteError) { try wrapped.readFileBlob(name, into: output) }
    func removeFileBlob(_ name: String) throws(RemoteError) { try wrapped.removeFileBlob(name) }
    func removeOperation(_ name: String, of device: String) throws(RemoteError) {
        if let failRemovals { throw failRemovals }
        try wrapped.removeOperation(name, of: device)
    }
    func readAcknowledgement(of device: String) throws(RemoteError) -> [UInt8]? { try wrapped.readAcknowledgement(of: device) }
    /// Set: every acknowledgement write fails so.
    var failAcknowledgements: RemoteError?
    func writeAcknowledgement(_ bytes: [UInt8], of device: String) throws(RemoteError) {
        if let failAcknowledgements { throw failAcknowledgements }
        try wrapped.writeAcknowledgement(bytes, of: device)
    }
    func replaceOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) {
        replaced.append(name)
        try wrapped.replaceOperation(name, of: device, bytes: bytes)
    }
    func devices() throws(RemoteError) -> [String] { try wrapped.devices() }
    /// Names left out of listings, as if a sync tool had not copied those files yet.
    var notYetArrived: (String) -> Bool = { _ in false }
    func operationNames(of device: String) throws(RemoteError) -> [String] {
        try wrapped.operationNames(of: device).filter { !notYetArrived($0) }
    }
    func readOperation(_ name: String, of device: String) throws(RemoteError) -> [UInt8] { try wrapped.readOperation(name, of: device) }

    func writeOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) -> Bool {
        writes += 1
        if let (from, error) = failAllWritesFrom, writes >= from { throw error }
        if let error = failWhere?(name) { throw error }
        switch writeFaults[writes] {
        case .fail(let error)?:
            throw error
        case .loseReply?:
            _ = try wrapped.writeOperation(name, of: device, bytes: bytes)
            landed.append(name)
            throw .timedOut
        case nil:
            let created = try wrapped.writeOperation(name, of: device, bytes: bytes)
            landed.append(name)
            return created
        }
    }
}

// MARK: - Test-only writes

extension Store {
    /// Changes a book's title as a retitle command would (there is none yet, but
    /// BookMetadataPolicy must hold for the day there is): a change of the book's metadata,
    /// with its clock and one outbox operation, in one transaction.
    @discardableResult
    func retitleBookForTest(_ id: EntityID, to title: String) throws -> Book {
        try write { tables throws(StoreError) in try tables.books.change(id, action: .update, parts: .metadata) { $0.title = title } }
    }

    /// Raw outbox rows with the sync columns.
    func outboxSyncRows() throws -> [(id: Int64, entityID: String, state: String, attempts: Int64, nextAttemptAt: Int64?, lastErrorClass: String?, hlc: String)] {
        var rows: [(Int64, String, String, Int64, Int64?, String?, String)] = []
        try database.forEachRow("""
            SELECT id, entity_id, state, attempt_count, next_attempt_at, last_error_class, hlc FROM outbox ORDER BY id
            """) { row in
            rows.append((row.int64(0), row.text(1), row.text(2), row.int64(3), row.isNull(4) ? nil : row.int64(4),
                         row.isNull(5) ? nil : row.text(5), row.text(6)))
        }
        return rows.map { (id: $0.0, entityID: $0.1, state: $0.2, attempts: $0.3, nextAttemptAt: $0.4, lastErrorClass: $0.5, hlc: $0.6) }
    }

    /// The sync columns of every record, as text: (id, hlc) for books and notes, plus the
    /// progress clock of books.
    func recordClocks() throws -> [String] {
        var rows: [String] = []
        try database.forEachRow("SELECT id, hlc, progress_hlc FROM book ORDER BY id") { row in
            rows.append("book \(row.text(0)) \(row.isNull(1) ? "-" : row.text(1)) progress \(row.isNull(2) ? "-" : row.text(2))")
        }
        try database.forEachRow("SELECT id, hlc FROM annotation ORDER BY id") { row in
            rows.append("annotation \(row.text(0)) \(row.isNull(1) ? "-" : row.text(1))")
        }
        return rows
    }

    /// The idempotency keys of every outbox row, whatever its state.
    func outboxIdempotencyKeys() throws -> [String] {
        var keys: [String] = []
        try database.forEachRow("SELECT idempotency_key FROM outbox ORDER BY id") { row in keys.append(row.text(0)) }
        return keys
    }

    func appliedOperationCount() throws -> Int {
        var count = 0
        try database.forEachRow("SELECT count(*) FROM applied_operation") { row in count = Int(row.int64(0)) }
        return count
    }
}

/// A fixed device id that sorts where the test wants it.
func deviceID(_ letter: Character) -> String { String(repeating: String(letter), count: 32) }

