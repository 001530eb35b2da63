import Foundation
import Testing
import FileIO
@testable import Sync

/// File-system failures of a folder remote, injected (FileIO's debug-only faults), come out
/// as `RemoteError.io` naming the call, and leave no temporary file behind.
@Suite struct FolderRemoteFaultTests {
    static func leftovers(_ scratch: Scratch) throws -> [String] {
        let devices = scratch.path + "/bmvault-vault-1/devices/dev-1"
        return try FileManager.default.contentsOfDirectory(atPath: devices).filter { $0.contains(".tmp-") }
    }

    @Test func aFullDiskWhileLinkingAnOperationIsReportedAndNothingIsLeft() throws {
        let scratch = try Scratch("folder-faults")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        #expect(throws: RemoteError.io(operation: "link", errno: ENOSPC)) {
            try InjectedFaults.with([.link: .noSpace]) { try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1, 2]) }
        }
        #expect(try remote.operationNames(of: "dev-1") == [])
        #expect(try Self.leftovers(scratch) == [])
        #expect(throws: RemoteError.io(operation: "write", errno: ENOSPC)) {
            try InjectedFaults.with([.write: .noSpace]) { try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1, 2]) }
        }
        #expect(try Self.leftovers(scratch) == [])
        #expect(try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1, 2]))
    }

    @Test func aBatchThatDoesNotReachTheDiskIsReported() throws {
        let scratch = try Scratch("folder-faults")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1])
        #expect(throws: RemoteError.io(operation: "syncfs", errno: EIO)) {
            try InjectedFaults.with([.syncfs: .ioError]) { try remote.commitWrites() }
        }
        try remote.commitWrites()
    }

    /// The directory is flushed after the acknowledgement is renamed into it; a failure
    /// there used to be ignored.
    @Test func aDirectoryThatCannotBeFlushedAfterAReplaceIsReported() throws {
        let scratch = try Scratch("folder-faults")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        // Files are made with create; only the directory is opened with open.
        #expect(throws: RemoteError.io(operation: "open", errno: EACCES)) {
            try InjectedFaults.with([.open: .permissionDenied]) { try remote.writeAcknowledgement([7], of: "dev-1") }
        }
        #expect(try remote.readAcknowledgement(of: "dev-1") == [7])
        #expect(try Self.leftovers(scratch) == [])
        try remote.writeAcknowledgement([8], of: "dev-1")
        #expect(try remote.readAcknowledgement(of: "dev-1") == [8])
    }
}
