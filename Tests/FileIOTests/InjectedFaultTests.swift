import Foundation
import Testing
import TestSupport
@testable import FileIO

/// Faults armed for one closure surface as the typed error, before the system call is made,
/// and nowhere else.
@Suite struct InjectedFaultTests {
    @Test func aFullDiskOnWriteIsReportedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let descriptor = try FileDescriptor.create(directory.file("file"))
        defer { try? descriptor.close() }
        #expect(throws: FileIOError(.write, .noSpace)) {
            try InjectedFaults.with([.write: .noSpace]) { try descriptor.writeAll("bytes") }
        }
        #expect(try FileSystem.status(directory.file("file")).size == 0)
        // Outside the closure nothing is armed.
        try descriptor.writeAll("bytes")
        #expect(try FileSystem.status(directory.file("file")).size == 5)
    }

    @Test func aPermissionDeniedOnCreateLeavesNoFile() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        #expect(throws: FileIOError(.create, .permissionDenied)) {
            try InjectedFaults.with([.create: .permissionDenied]) { try FileDescriptor.create(directory.file("file")) }
        }
        #expect(!FileSystem.exists(directory.file("file")))
    }

    @Test func onlyTheNamedOperationFails() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try InjectedFaults.with([.syncfs: .ioError, .fsync: .noSpace]) {
            let descriptor = try FileDescriptor.open(directory.path, .readOnly, options: .directory)
            defer { try? descriptor.close() }
            #expect(throws: FileIOError(.syncfs, .ioError)) { try descriptor.syncFileSystem() }
            #expect(throws: FileIOError(.fsync, .noSpace)) { try FileSystem.syncDirectory(directory.path) }
            #expect(throws: FileIOError(.fsync, .noSpace)) { try descriptor.sync() }
            try FileDescriptor.create(directory.file("file")).close()
        }
        #expect(FileSystem.exists(directory.file("file")))
    }

    @Test func pathOperationsFailAsArmed() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try directory.write("x", to: "file")
        InjectedFaults.with([.list: .permissionDenied, .link: .noSpace, .rename: .ioError, .mkdir: .noSpace,
                                 .mkdtemp: .noSpace, .stat: .permissionDenied]) {
            #expect(throws: FileIOError(.list, .permissionDenied)) { try FileSystem.entries(of: directory.path) }
            #expect(throws: FileIOError(.link, .noSpace)) { try FileSystem.link(directory.file("file"), to: directory.file("other")) }
            #expect(throws: FileIOError(.rename, .ioError)) { try FileSystem.rename(directory.file("file"), to: directory.file("other")) }
            #expect(throws: FileIOError(.mkdir, .noSpace)) { try FileSystem.makeDirectories(directory.file("a/b")) }
            #expect(throws: FileIOError(.mkdtemp, .noSpace)) { try FileSystem.makeTemporaryDirectory(prefix: directory.file("t-")) }
            #expect(!FileSystem.exists(directory.file("file")))
        }
        #expect(try FileSystem.entries(of: directory.path) == ["file"])
    }

    /// The files this process has open. Not a look at a descriptor's number: a test running
    /// beside this one may have been given it again.
    static func openFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }
    }

    @Test func anInjectedCloseFailureStillClosesTheDescriptor() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let descriptor = try FileDescriptor.create(directory.file("file"))
        #expect(try Self.openFiles().contains(directory.file("file")))
        #expect(throws: FileIOError(.close, .ioError)) {
            try InjectedFaults.with([.close: .ioError]) { try descriptor.close() }
        }
        #expect(try !Self.openFiles().contains(directory.file("file")))
    }

    @Test func anInterruptedCallIsMadeAgainAndAFailureIsNot() throws {
        var calls = 0
        let interruptedOnce = { () -> Int32 in
            calls += 1
            if calls == 1 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(try systemCall(.read, interruptedOnce) == 42)
        #expect(calls == 2)
        calls = 0
        let failing = { () -> Int32 in
            calls += 1
            errno = EIO
            return -1
        }
        #expect(throws: FileIOError(.read, .ioError)) { try systemCall(.read, failing) }
        #expect(calls == 1)
    }

    @Test func errorsPrintTheOperationAndTheCName() {
        #expect(FileIOError(.write, .noSpace).description == "write: ENOSPC")
        #expect(FileIOError(.open, Errno(rawValue: ENAMETOOLONG)).description == "open: errno \(ENAMETOOLONG)")
        #expect(Errno(named: "EACCES") == .permissionDenied)
        #expect(Errno(named: "28") == .noSpace)
        #expect(Errno(named: "ENOPE") == nil)
    }
}
