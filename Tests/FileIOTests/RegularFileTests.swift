import Foundation
import Testing
import TestSupport
@testable import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40: every read-only open is of a regular file, refused otherwise without waiting
/// (a FIFO with no writer blocked the open for ever); and a file read whole is checked not
/// to have changed meanwhile.
@Suite struct RegularFileTests {
    @Test func aFIFOIsRefusedAtTheOpenInsteadOfWaitedOn() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Before the seam checked, this open waited for a writer for ever.
        #expect(throws: FileIOError(.type, .invalidArgument)) { try FileDescriptor.open(fifo, .readOnly) }
        #expect(throws: FileIOError(.type, .invalidArgument)) { try FileSystem.readFile(at: fifo) }
        #expect(throws: FileIOError(.type, .isDirectory)) { try FileDescriptor.open(directory.path, .readOnly) }
        #expect(throws: FileIOError(.type, .invalidArgument)) { try FileDescriptor.open("/dev/zero", .readOnly) }
        // A directory asked for as one still opens (to be flushed).
        try FileDescriptor.open(directory.path, .readOnly, options: .directory).close()
    }

    @Test func aRegularFileReadsBlockingAgainUnlessAskedOtherwise() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let path = directory.file("plain")
        try Data("text".utf8).write(to: URL(fileURLWithPath: path))
        let blocking = try FileDescriptor.open(path, .readOnly)
        defer { try? blocking.close() }
        #expect(fcntl(blocking.rawValue, F_GETFL) & O_NONBLOCK == 0)
        let nonBlocking = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
        defer { try? nonBlocking.close() }
        #expect(fcntl(nonBlocking.rawValue, F_GETFL) & O_NONBLOCK != 0)
        #expect(try blocking.readAll() == Array("text".utf8))
    }

    @Test func aFileCutShortRewrittenOrGrownWhileReadIsSeen() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let path = directory.file("changing")
        let bytes = [UInt8](repeating: 7, count: 10_000)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try FileDescriptor.open(path, .readOnly)
        defer { try? file.close() }
        let before = try file.status()
        try file.checkUnchanged(since: before, bytesRead: 10_000)
        // Fewer bytes than the size said: the end came early.
        #expect(throws: FileIOError(.changed, .wouldBlock)) { try file.checkUnchanged(since: before, bytesRead: 1_000) }
        #expect(truncate(path, 1_000) == 0)
        #expect(throws: FileIOError(.changed, .wouldBlock)) { try file.checkUnchanged(since: before, bytesRead: 10_000) }
        // The same size again, but written since: its modification time moved.
        #expect(truncate(path, 10_000) == 0)
        var times = [timespec(tv_sec: 1, tv_nsec: 0), timespec(tv_sec: 1, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(throws: FileIOError(.changed, .wouldBlock)) { try file.checkUnchanged(since: before, bytesRead: 10_000) }
    }
}
