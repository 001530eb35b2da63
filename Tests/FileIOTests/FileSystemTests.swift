import Foundation
import Testing
import TestSupport
@testable import FileIO

/// Path operations on real files: names, create-or-fail, directories made and removed.
@Suite struct FileSystemTests {
    @Test func linkGivesASecondNameOnlyIfItIsFree() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try directory.write("new", to: "temporary")
        try directory.write("old", to: "final")
        #expect(throws: FileIOError(.link, .exists)) { try FileSystem.link(directory.file("temporary"), to: directory.file("final")) }
        #expect(try FileSystem.readFile(at: directory.file("final")) == Array("old".utf8))
        try FileSystem.link(directory.file("temporary"), to: directory.file("other"))
        #expect(try FileSystem.readFile(at: directory.file("other")) == Array("new".utf8))
        try FileSystem.unlink(directory.file("temporary"))
        #expect(try FileSystem.entries(of: directory.path).sorted() == ["final", "other"])
    }

    @Test func renameWithoutReplacingFailsOnATakenNameAndMovesToAFreeOne() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try directory.write("new", to: "temporary")
        try directory.write("old", to: "final")
        #expect(throws: FileIOError(.renameat2, .exists)) {
            try FileSystem.renameWithoutReplacing(directory.file("temporary"), to: directory.file("final"))
        }
        #expect(try FileSystem.readFile(at: directory.file("final")) == Array("old".utf8))
        try FileSystem.renameWithoutReplacing(directory.file("temporary"), to: directory.file("free"))
        #expect(try FileSystem.entries(of: directory.path).sorted() == ["final", "free"])
        // rename replaces.
        try FileSystem.rename(directory.file("free"), to: directory.file("final"))
        #expect(try FileSystem.readFile(at: directory.file("final")) == Array("new".utf8))
        #expect(throws: FileIOError(.rename, .notFound)) { try FileSystem.rename(directory.file("free"), to: directory.file("x")) }
    }

    @Test func makeDirectoriesMakesMissingParentsPrivateAndKeepsExistingModes() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("shared"), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        try FileSystem.makeDirectories(directory.file("shared/a/b"))
        try FileSystem.makeDirectories(directory.file("shared/a/b"))
        #expect(try FileSystem.status(directory.file("shared")).permissions == 0o755)
        #expect(try FileSystem.status(directory.file("shared/a")).permissions == 0o700)
        #expect(try FileSystem.status(directory.file("shared/a/b")).kind == .directory)
        try directory.write("x", to: "file")
        #expect(throws: FileIOError(.mkdir, .notDirectory)) { try FileSystem.makeDirectories(directory.file("file/sub")) }
        #expect(throws: FileIOError(.mkdir, .exists)) { try FileSystem.makeDirectory(directory.file("shared")) }
    }

    @Test func entriesListsNamesWithoutDotsAndFailsOnAMissingDirectory() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        #expect(try FileSystem.entries(of: directory.path) == [])
        let names = (0..<300).map { String(format: "%03d", $0) } + [".hidden", "é"]
        for name in names { try directory.write("", to: name) }
        #expect(try FileSystem.entries(of: directory.path).sorted() == names.sorted())
        #expect(throws: FileIOError(.list, .notFound)) { try FileSystem.entries(of: directory.file("missing")) }
    }

    @Test func statusTellsKindsApartAndSeesALinkAsOneWhenAsked() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try directory.write("12345", to: "file")
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.file("file"))
        let file = try FileSystem.status(directory.file("file"))
        #expect(file.kind == .regular && file.size == 5 && file.owner == getuid())
        #expect(try FileSystem.status(directory.file("link")).kind == .regular)
        #expect(try FileSystem.status(directory.file("link"), followingLinks: false).kind == .symbolicLink)
        #expect(try FileSystem.status(directory.path).kind == .directory)
        #expect(throws: FileIOError(.stat, .notFound)) { try FileSystem.status(directory.file("missing")) }
        #expect(FileSystem.exists(directory.file("file")) && !FileSystem.exists(directory.file("missing")))
        try FileSystem.setPermissions(directory.file("file"), 0o400)
        #expect(try FileSystem.status(directory.file("file")).permissions == 0o400)
        #expect(try FileSystem.availableBytes(onFileSystemOf: directory.path) > 0)
        try FileSystem.checkAccess(directory.path, [.read, .write, .search])
        #expect(throws: FileIOError(.access, .notFound)) { try FileSystem.checkAccess(directory.file("missing"), .read) }
    }

    @Test func removeTreeRemovesEverythingBelowAndNeverFollowsALink() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        try FileSystem.makeDirectories(directory.file("outside"))
        try directory.write("keep", to: "outside/kept")
        try FileSystem.makeDirectories(directory.file("tree/a/b"))
        try directory.write("x", to: "tree/a/b/file")
        try directory.write("y", to: "tree/top")
        try FileManager.default.createSymbolicLink(atPath: directory.file("tree/a/link"), withDestinationPath: directory.file("outside"))
        try FileSystem.removeTree(directory.file("tree"))
        #expect(!FileSystem.exists(directory.file("tree"), followingLinks: false))
        #expect(try FileSystem.readFile(at: directory.file("outside/kept")) == Array("keep".utf8))
        #expect(throws: FileIOError(.stat, .notFound)) { try FileSystem.removeTree(directory.file("tree")) }
    }

    @Test func makeTemporaryDirectoryMakesAPrivateNewDirectoryEachTime() throws {
        let directory = try TemporaryDirectory("fileio")
        defer { directory.remove() }
        let first = try FileSystem.makeTemporaryDirectory(prefix: directory.file("edit-"))
        let second = try FileSystem.makeTemporaryDirectory(prefix: directory.file("edit-"))
        #expect(first != second && first.hasPrefix(directory.file("edit-")) && first.count == directory.file("edit-").count + 6)
        #expect(try FileSystem.status(first).kind == .directory)
        #expect(try FileSystem.status(first).permissions == 0o700)
        try FileSystem.removeDirectory(first)
        #expect(throws: FileIOError(.mkdtemp, .notFound)) { try FileSystem.makeTemporaryDirectory(prefix: directory.file("missing/x-")) }
    }
}
