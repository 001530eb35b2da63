import Foundation
import Synchronization
import Testing
import Journal
import Keystore
import VaultCrypto
@testable import VaultKit

/// A clock that says what the test tells it to, and moves only when told.
final class TestClock: Journal.Clock {
    static let start: Int64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z

    private let milliseconds: Mutex<Int64>

    init(_ start: Int64 = TestClock.start) {
        milliseconds = Mutex(start)
    }

    func now() -> Timestamp {
        Timestamp(millisecondsSince1970: milliseconds.withLock { $0 })
    }

    func advance(milliseconds delta: Int64) {
        milliseconds.withLock { $0 += delta }
    }

    func advance(seconds: Int64) {
        advance(milliseconds: seconds * 1000)
    }
}

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bmvault-vaultkittests-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func fileBytes(_ path: String) throws -> [UInt8] {
    let data = try #require(FileManager.default.contents(atPath: path), "cannot read \(path)")
    return Array(data)
}

/// A database file's bytes, but for the two header fields in which SQLite counts the
/// transactions written with a rollback journal (the file change counter at offset 24 and
/// the version-valid-for number at 92). A failed import that wrote with a rollback journal
/// leaves every other byte as it was once SQLite has rolled it back.
func databaseBytesIgnoringChangeCounter(_ path: String) throws -> [UInt8] {
    var bytes = try fileBytes(path)
    for offset in [24, 92] where bytes.count >= offset + 4 {
        bytes.replaceSubrange(offset..<(offset + 4), with: [0, 0, 0, 0])
    }
    return bytes
}

/// `text`'s UTF-8 bytes in secure memory, as a passphrase or recovery key is held.
func secret(_ text: String) throws -> SecretBytes {
    try secret(Array(text.utf8))
}

func secret(_ bytes: [UInt8]) throws -> SecretBytes {
    let secret = try SecretBytes(count: bytes.count)
    secret.withUnsafeMutableBytes { out in
        for (index, byte) in bytes.enumerated() { out[index] = byte }
    }
    return secret
}

/// The bytes of a secret, for tests that must alter what a reader types.
func revealed(_ secret: SecretBytes) -> [UInt8] {
    secret.withUnsafeBytes { Array($0) }
}

let interactive = KDFParameters(strength: .interactive)
let testPassphrase = "correct horse battery"

/// One vault in a fresh directory, with its keystore, clock and recovery key.
struct VaultFixture {
    let directory: TemporaryDirectory
    let location: VaultLocation
    let vault: Vault
    let keyStore: MemoryKeyStore
    let clock: TestClock
    let recoveryKey: [UInt8]

    var databasePath: String { location.databasePath }

    /// Another `Vault` on the same location and keystore: the next command.
    func reopen() throws(VaultError) -> Vault {
        try Vault.open(at: location, keyStore: keyStore, clock: clock)
    }

    func isKeyStored() throws -> Bool {
        if case .found = try keyStore.lookup(vaultID: vault.vaultID) { return true }
        return false
    }

    func storedKey() throws -> StoredVaultKey {
        guard case .found(let stored) = try keyStore.lookup(vaultID: vault.vaultID) else {
            Issue.record("no key in the keystore")
            throw VaultError.locked
        }
        return stored
    }
}

func makeVault(unlocked: Bool = true, passphrase: String = testPassphrase, clock: TestClock = TestClock(),
               keyStore: MemoryKeyStore = MemoryKeyStore()) throws -> VaultFixture {
    let directory = try TemporaryDirectory()
    let location = VaultLocation(directory: directory.path + "/vault")
    let created = try Vault.create(at: location, passphrase: try secret(passphrase), kdf: interactive,
                                   keyStore: keyStore, clock: clock)
    if unlocked { try created.vault.unlock(passphrase: try secret(passphrase)) }
    return VaultFixture(directory: directory, location: location, vault: created.vault, keyStore: keyStore,
                        clock: clock, recoveryKey: revealed(created.recoveryKey))
}

/// The error `body` throws, or nil when it does not throw.
func vaultError<T>(_ body: () throws(VaultError) -> T) -> VaultError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Counts as `[books, sessions, notes, quotes]` (the Store's type is not visible here).
func countList(_ status: VaultStatus) -> [Int] {
    [status.counts.books, status.counts.sessions, status.counts.notes, status.counts.quotes]
}

func countList(_ details: BookDetails) -> [Int] {
    [details.counts.books, details.counts.sessions, details.counts.notes, details.counts.quotes]
}

extension Vault {
    /// Every live note and quote, readable or not.
    func allAnnotations() throws -> [Result<AnnotationListing, UnreadableRecord>] {
        var results: [Result<AnnotationListing, UnreadableRecord>] = []
        try forEachAnnotation(book: nil, kind: nil) { results.append($0) }
        return results
    }

    /// The ids of the notes and quotes `search` yields for `query`, sorted.
    func searchIDs(_ query: String) throws -> [EntityID] {
        var ids: [EntityID] = []
        try search(query) { result in
            if case .success(let listing) = result { ids.append(listing.annotation.id) }
        }
        return ids.sorted()
    }
}
