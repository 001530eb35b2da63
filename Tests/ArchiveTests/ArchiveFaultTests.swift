import Foundation
import Testing
import FileIO
@testable import Archive
import TestSupport

/// File-system failures of an export, injected (FileIO's debug-only faults, armed for the
/// exporting thread), come out as `ArchiveError.io` naming the call and the file the way
/// errors name it, and leave nothing half-written under the destination's name.
@Suite struct ArchiveFaultTests {
    @Test func aFileSystemThatFailsToFlushTheArchiveLeavesNothing() throws {
        let journal = try SampleJournal.make()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = InjectedFaults.with([.syncfs: .ioError]) { archiveError { _ = try journal.export(to: directory.file("archive")) } }
        #expect(error == .io(operation: "syncfs", path: "the archive", errno: EIO))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    @Test func aFullDiskWhenAFileIsCreatedLeavesNothing() throws {
        let journal = try SampleJournal.make()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = InjectedFaults.with([.create: .noSpace]) { archiveError { _ = try journal.export(to: directory.file("archive")) } }
        #expect(error == .io(operation: "create", path: "journal.json", errno: ENOSPC))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    @Test func aStagingDirectoryThatCannotBeOpenedIsRemoved() throws {
        let journal = try SampleJournal.make()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = InjectedFaults.with([.open: .permissionDenied]) { archiveError { _ = try journal.export(to: directory.file("archive")) } }
        #expect(error == .io(operation: "open", path: "the directory beside the archive", errno: EACCES))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    /// The archive is complete and in place; only its name may not survive a crash.
    @Test func aParentDirectoryThatCannotBeFlushedIsReported() throws {
        let journal = try SampleJournal.make()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = InjectedFaults.with([.fsync: .ioError]) { archiveError { _ = try journal.export(to: directory.file("archive")) } }
        #expect(error == .io(operation: "fsync", path: "the archive's parent directory", errno: EIO))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["archive"])
    }
}
