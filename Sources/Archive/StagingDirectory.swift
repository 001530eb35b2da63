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
    }

    deinit {
        if !committed { discard() }
    }

    /// Makes a private subdirectory (such as `books`).
    func makeSubdirectory(_ name: String) throws(ArchiveError) {
        guard mkdir(path + "/" + name, 0o700) == 0 else { throw .io(operation: "mkdir", path: name, errno: errno) }
    }

    /// Flushes the directories themselves, then gives the staging directory the
    /// destination's name. `rename` cannot replace a directory that has anything in it, so
    /// nothing the reader made since the export began is lost.
    func commit(subdirectories: [String]) throws(ArchiveError) {
        for (directory, name) in subdirectories.map({ (path + "/" + $0, $0) }) + [(path, "the archive")] {
            try Self.synchronize(directory, name: name)
        }
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
