import Foundation
import Testing
import FileIO
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

/// File-system failures while a vault is made, injected (FileIO's debug-only faults), come
/// out as `StoreError.io` naming the call, and leave no vault and no temporary file.
@Suite struct StoreFaultTests {
    /// A full disk is said as such, whichever call met it; other failed calls by their name.
    @Test(arguments: [(FileIOError.Operation.link, Errno.noSpace, StoreError.diskFull),
                      (.fsync, .ioError, .io(operation: "fsync", errno: EIO)),
                      (.chmod, .permissionDenied, .io(operation: "chmod", errno: EACCES))])
    func aVaultThatCannotBeMadeDurableIsNotMade(operation: FileIOError.Operation, errno: Errno, expected: StoreError) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try VaultKey.generate()
        let metadata = VaultMetadata(vaultID: "v", keyID: key.id, createdAt: TestClock().now())
        let slots = try placeholderKeyslots()
        let error = InjectedFaults.with([operation: errno]) {
            storeError { () throws(StoreError) in
                _ = try Store.create(at: directory.databasePath, metadata: metadata, keyslots: slots, clock: TestClock(),
                                     generatorVersion: testGeneratorVersion)
            }
        }
        #expect(error == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }
}
