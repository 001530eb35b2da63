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

    // MARK: - File systems without hard links (issue 17: FAT and exFAT sticks, SMB, sshfs)

    /// `link` refused as FAT refuses it: the remote creates each file once by renaming
    /// without replacing, or, where that flag is refused too (exFAT through FUSE), by an
    /// exclusive create. Either way a name is written once, and a second write is refused.
    @Test(arguments: [
        ([FileIOError.Operation.link: Errno.notPermitted], FolderRemote.CreateOnce.renameWithoutReplacing),
        ([.link: .notSupported], .renameWithoutReplacing),
        ([.link: .notPermitted, .renameat2: .invalidArgument], .exclusiveCreate),
        ([.link: .noSuchCall, .renameat2: .noSuchCall], .exclusiveCreate),
    ])
    func withoutHardLinksEachFileIsStillCreatedOnce(faults: [FileIOError.Operation: Errno], learnt: FolderRemote.CreateOnce) throws {
        let scratch = try Scratch("folder-no-links")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try InjectedFaults.with(faults) {
            #expect(try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1, 2, 3]))
            #expect(remote.createOnce == learnt)
            #expect(try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [9]) == false, "a name is written once")
            #expect(try remote.writeOperation("b.k2.op", of: "dev-1", bytes: [4]))
            try remote.commitWrites()
            try remote.probe()
        }
        #expect(try remote.readOperation("a.k1.op", of: "dev-1") == [1, 2, 3])
        #expect(try remote.operationNames(of: "dev-1") == ["a.k1.op", "b.k2.op"])
        #expect(try Self.leftovers(scratch) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".bmvault-probe-") } == [],
                "the probe cleans up")
    }

    /// Any other failure of `link` is a failure, not a reason to try another way.
    @Test func aLinkThatFailsForAnotherReasonIsReported() throws {
        let scratch = try Scratch("folder-no-links")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        #expect(throws: RemoteError.io(operation: "link", errno: EACCES)) {
            try InjectedFaults.with([.link: .permissionDenied]) { try remote.writeOperation("a.k1.op", of: "dev-1", bytes: [1]) }
        }
        #expect(remote.createOnce == .link)
    }

    /// The probe names the step a folder cannot do.
    @Test func theProbeNamesWhatTheFolderCannotDo() throws {
        let scratch = try Scratch("folder-probe")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        #expect(throws: RemoteError.io(operation: "write", errno: ENOSPC)) {
            try InjectedFaults.with([.write: .noSpace]) { try remote.probe() }
        }
        #expect(throws: RemoteError.io(operation: "rename", errno: EIO)) {
            try InjectedFaults.with([.rename: .ioError]) { try remote.probe() }
        }
        try remote.probe()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [])
    }

    /// A link where a remote folder belongs, at any depth: nothing is made through it, not
    /// even this device's folder (each folder is checked before anything is made inside it).
    @Test(arguments: ["bmvault-vault-1", "bmvault-vault-1/devices", "bmvault-vault-1/devices/" + deviceID("1")])
    func nothingIsMadeThroughALinkedFolder(linked: String) throws {
        let scratch = try Scratch("folder-linked")
        let elsewhere = try Scratch("folder-elsewhere")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try FileManager.default.createDirectory(atPath: scratch.path + "/" + linked, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: scratch.path + "/" + linked)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/" + linked, withDestinationPath: elsewhere.path)
        #expect(throws: RemoteError.malformed(what: "a link or a file where a folder belongs")) {
            try remote.writeOperation("a.k1.op", of: deviceID("1"), bytes: [1])
        }
        #expect(throws: RemoteError.malformed(what: "a link or a file where a folder belongs")) {
            try remote.writeAcknowledgement([1], of: deviceID("1"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }
}
