import Foundation
#if canImport(Glibc)
import Glibc
#endif
import VaultCrypto

/// Where an export is written before it exists: a private directory beside the
/// destination, renamed into place only once every file in it is complete and on disk.
/// A reader never finds half an archive under the name they asked for; a failed or
/// interrupted export leaves at most a `<name>.partial-<16 hex digits>` directory beside it.
final class StagingDirectory {
    /// The archive's final path.
    let destination: String
    /// The directory being filled.
    let path: String
    /// Open from the start: `syncfs` reports the write-back errors of its file system that
    /// happened since this descriptor was opened, so it must predate every file written.
    private let descriptor: Int32
    private var committed = false

    /// Refuses an existing destination, creates missing parents (0700), then the staging
    /// directory (0700) beside the destination.
    init(destination: String) throws(ArchiveError) {
        var destination = destination
        while destination.count > 1 && destination.hasSuffix("/") { destination.removeLast() }
        self.destination = destination
        var info = stat()
        guard lstat(destination, &info) != 0 else { throw .destinationExists(path: destination) }
        let parent = Self.parent(of: destination)
        try Self.makeDirectories(parent)
        let suffix: String
        do { suffix = encodeHex(try randomBytes(count: 8)) } catch { throw .io(operation: "random", path: "the archive", errno: EIO) }
        path = "\(destination).partial-\(suffix)"
        guard mkdir(path, 0o700) == 0 else { throw .io(operation: "mkdir", path: "the directory beside the archive", errno: errno) }
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        // Thrown once every member is set: deinit removes the directory.
        guard descriptor >= 0 else { throw .io(operation: "open", path: "the directory beside the archive", errno: errno) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { discard() }
    }

    /// Makes a private subdirectory (such as `books`).
    func makeSubdirectory(_ name: String) throws(ArchiveError) {
        guard mkdir(path + "/" + name, 0o700) == 0 else { throw .io(operation: "mkdir", path: name, errno: errno) }
    }

    /// Puts every file and directory written into the staging directory on disk with ONE
    /// `syncfs` of its file system (one journal commit, where a flush per file costs one
    /// each: thousands for a large journal), then gives the staging directory the
    /// destination's name. Every file must be closed first. `rename` cannot replace a
    /// directory that has anything in it, so nothing the reader made since the export began
    /// is lost.
    func commit() throws(ArchiveError) {
        guard linuxSyncfs(descriptor) == 0 else { throw .io(operation: "syncfs", path: "the archive", errno: errno) }
        var info = stat()
        guard lstat(destination, &info) != 0 else { throw .destinationExists(path: destination) }
        guard rename(path, destination) == 0 else {
            throw errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR
                ? .destinationExists(path: destination) : .io(operation: "rename", path: "the archive", errno: errno)
        }
        committed = true
        try Self.synchronize(Self.parent(of: destination), name: "the archive's parent directory")
    }

    /// Removes the staging directory and everything in it.
    func discard() {
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func synchronize(_ directory: String, name: String) throws(ArchiveError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(operation: "open", path: name, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .io(operation: "fsync", path: name, errno: errno) }
    }

    private static func makeDirectories(_ path: String) throws(ArchiveError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw .io(operation: "mkdir", path: "the archive's parent directory", errno: errno) }
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// glibc's `syncfs(2)` (flush one file system), which Swift's Glibc module hides behind
/// `_GNU_SOURCE`.
@_silgen_name("syncfs")
private func linuxSyncfs(_ descriptor: Int32) -> Int32
