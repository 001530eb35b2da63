import Foundation
import Testing
import TestSupport
@testable import FileIO

/// Descriptors on real files in a temporary directory: every byte written is read back,
/// create-or-fail fails, and flushes succeed where the kernel allows them.
@Suite struct FileDescriptorTests {
    static func roundTrip(_ bytes: [UInt8], in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file("file")
        let written = try FileDescriptor.create(path)
        try written.writeAll(bytes)
        try written.sync()
        try written.close()
        return try FileSystem.readFile(at: path)
    }

    @Test(arguments: [0, 1, 4096, 65_535, 65_536, 65_537, 5 << 20 + 3])
    func everyByteWrittenIsReadBack(count: Int) throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(try Self.roundTrip(bytes, in: directory) == bytes)
    }

    @Test func aReadAtAnOffsetLeavesThePositionAlone() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let path = directory.file("offsets")
        _ = try Self.roundTrip(Array("0123456789".utf8), in: directory)
        try FileSystem.rename(directory.file("file"), to: path)
        let file = try FileDescriptor.open(path, .readOnly)
        defer { try? file.close() }
        var buffer = [UInt8](repeating: 0, count: 4)
        let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 6) }
        #expect(count == 4 && buffer == Array("6789".utf8))
        let past = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 100) }
        #expect(past == 0)
        var first = [UInt8](repeating: 0, count: 3)
        #expect(try file.read(into: &first) == 3 && first == Array("012".utf8), "the position is still at the start")
    }

    @Test func emptyBuffersAreWrittenAndReadWithoutTouchingTheirAddress() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let descriptor = try FileDescriptor.open(directory.file("empty"), .readWrite, options: .create)
        defer { try? descriptor.close() }
        // An empty buffer may have no base address; forcing it would crash.
        try descriptor.writeAll(UnsafeRawBufferPointer(start: nil, count: 0))
        try descriptor.writeAll([UInt8]())
        try descriptor.writeAll("")
        #expect(try descriptor.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) == 0)
        #expect(try descriptor.readAll() == [])
        #expect(try FileSystem.status(directory.file("empty")).size == 0)
    }

    @Test func aFileIsReadThroughOneReusedChunk() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }
        try directory.write("", to: "file")
        let writer = try FileDescriptor.open(directory.file("file"), .writeOnly)
        try writer.writeAll(bytes)
        try writer.close()
        let reader = try FileDescriptor.open(directory.file("file"), .readOnly)
        defer { try? reader.close() }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var read: [UInt8] = []
        while case let count = try reader.read(into: &chunk), count > 0 { read += chunk[0..<count] }
        #expect(read == bytes)
        #expect(chunk.count == 4096)
    }

    @Test func textIsWrittenAsUTF8() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let text = "Le désert est beau 👩🏽‍💻\n"
        let descriptor = try FileDescriptor.create(directory.file("text"))
        try descriptor.writeAll(text)
        try descriptor.close()
        #expect(try FileSystem.readFile(at: directory.file("text")) == Array(text.utf8))
    }

    @Test func createFailsWithEEXISTOnAnyExistingNameAndLeavesItAlone() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let path = directory.file("taken")
        try directory.write("first", to: "taken")
        #expect(throws: FileIOError(.create, .exists)) { try FileDescriptor.create(path) }
        #expect(try FileSystem.readFile(at: path) == Array("first".utf8))
        // Not through a symbolic link either, even one that leads nowhere.
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.file("nowhere"))
        #expect(throws: FileIOError(.create, .exists)) { try FileDescriptor.create(directory.file("link")) }
        #expect(!FileSystem.exists(directory.file("nowhere")))
        #expect(FileSystem.exists(directory.file("link"), followingLinks: false))
    }

    @Test func createMakesAnOwnerOnlyFileUnlessToldOtherwise() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try FileDescriptor.create(directory.file("private")).close()
        try FileDescriptor.create(directory.file("shared"), permissions: 0o640).close()
        #expect(try FileSystem.status(directory.file("private")).permissions == 0o600)
        #expect(try FileSystem.status(directory.file("shared")).permissions & 0o640 == 0o640)
    }

    @Test func openingWhatIsNotThereNamesTheCallAndTheErrno() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        #expect(throws: FileIOError(.open, .notFound)) { try FileDescriptor.open(directory.file("missing"), .readOnly) }
        #expect(throws: FileIOError(.open, .notFound)) { try FileSystem.readFile(at: directory.file("missing")) }
        try directory.write("x", to: "file")
        #expect(throws: FileIOError(.open, .notDirectory)) {
            try FileDescriptor.open(directory.file("file"), .readOnly, options: .directory)
        }
    }

    @Test func appendWritesAtTheEndAndSetPermissionsNarrowsTheMode() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let path = directory.file("log")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o644]))
        let descriptor = try FileDescriptor.open(path, .writeOnly, options: [.append, .create])
        try descriptor.setPermissions(0o600)
        try descriptor.writeAll("new\n")
        try descriptor.close()
        #expect(try FileSystem.readFile(at: path) == Array("old\nnew\n".utf8))
        #expect(try FileSystem.status(path).permissions == 0o600)
    }

    @Test func syncfsAndDirectoryFsyncSucceedOnARealFileSystem() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let handle = try FileDescriptor.open(directory.path, .readOnly, options: .directory)
        defer { try? handle.close() }
        try directory.write("data", to: "file")
        try handle.syncFileSystem()
        try FileSystem.syncDirectory(directory.path)
        try FileSystem.syncFile(directory.file("file"))
        #expect(throws: FileIOError(.open, .notDirectory)) { try FileSystem.syncDirectory(directory.file("file")) }
        #expect(throws: FileIOError(.open, .notFound)) { try FileSystem.syncDirectory(directory.file("missing")) }
    }

    @Test func anExclusiveLockHeldElsewhereIsRefusedWithoutWaitingThenFreedByClose() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let path = directory.file("lock")
        let first = try FileDescriptor.open(path, .readWrite, options: .create)
        #expect(try first.lockExclusively(waiting: true))
        // flock locks belong to the open file, so a second open conflicts even in this process.
        let second = try FileDescriptor.open(path, .readWrite)
        defer { try? second.close() }
        #expect(try !second.lockExclusively(waiting: false))
        try first.unlock()
        #expect(try second.lockExclusively(waiting: false))
        try second.unlock()
        #expect(try first.lockExclusively(waiting: false))
        try first.close()
        #expect(try second.lockExclusively(waiting: false))
    }

    @Test func aDescriptorThatIsNotOpenFailsWithEBADF() throws {
        // Never a closed number: tests run in parallel, and the kernel reuses numbers at once.
        let invalid = FileDescriptor(rawValue: -1)
        #expect(throws: FileIOError(.write, Errno(rawValue: EBADF))) { try invalid.writeAll("x") }
        #expect(throws: FileIOError(.read, Errno(rawValue: EBADF))) { try invalid.readAll() }
        #expect(throws: FileIOError(.close, Errno(rawValue: EBADF))) { try invalid.close() }
    }

    @Test func readAllReadsAPipeToItsEnd() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = FileDescriptor(rawValue: ends[0])
        let writer = FileDescriptor(rawValue: ends[1])
        let bytes = [UInt8](repeating: 7, count: 200_000)
        // More than a pipe holds: written on another thread while this one reads.
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? writer.writeAll(bytes)
            try? writer.close()
            done.signal()
        }
        #expect(try reader.readAll() == bytes)
        done.wait()
        try reader.close()
    }
}
