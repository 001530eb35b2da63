import Foundation
import Testing
import Journal
import Keystore
import VaultCrypto
@testable import VaultKit
import TestSupport

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

extension VaultFixture {
    /// A folder remote that is never synced: every operation then waits in the outbox, as in
    /// a vault that syncs (with no remote, each change's operations replace the last one's).
    func addUnsyncedRemote() throws {
        let folder = directory.path + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try vault.addRemote(name: "shared", path: folder)
    }
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
        try forEachAnnotation(ListingRequest()) { results.append($0) }
        return results
    }

    /// The ids of the notes and quotes `search` yields for `query`, sorted.
    func searchIDs(_ query: String) throws -> [EntityID] {
        var ids: [EntityID] = []
        try search(SearchRequest(query)) { result in
            if case .success(let listing) = result { ids.append(listing.annotation.id) }
        }
        return ids.sorted()
    }
}
