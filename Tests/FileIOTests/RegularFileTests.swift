import Foundation
import Testing
import TestSupport
@testable import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40: every read-only open is of a regular file, refused otherwise without waiting
/// (a FIFO with no writer blocked the open for ever).
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
}
