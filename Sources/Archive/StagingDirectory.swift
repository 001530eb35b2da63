internal import FileIO
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
    private let descriptor: FileDescriptor
    private var committed = false

    /// Refuses an existing destination, creates missing parents (0700), then the staging
    /// directory (0700) beside the destination.
    init(destination: String) throws(ArchiveError) {
        var destination = destination
        while destination.count > 1 && destination.hasSuffix("/") { destination.removeLast() }
        self.destination = destination
        guard !FileSystem.exists(destination, followingLinks: false) else { throw .destinationExists(path: destination) }
        let parent = FileSystem.directory(of: destination)
        do {
            try FileSystem.makeDirectories(parent, permissions: 0o700)
        } catch {
            throw .io(error, path: "the archive's parent directory")
        }
        let suffix: String
        do { suffix = encodeHex(try randomBytes(count: 8)) } catch { throw .io(operation: "random", path: "the archive", errno: Errno.ioError.rawValue) }
        path = "\(destination).partial-\(suffix)"
        do { try FileSystem.makeDirectory(path, permissions: 0o700) } catch { throw .io(error, path: "the directory beside the archive") }
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: .directory)
            // Held while this export lives, so another export knows it is not a leftover.
            _ = try descriptor.lockExclusively(waiting: false)
        } catch {
            // Thrown before every member is set, so deinit does not run to remove it.
            try? FileSystem.removeDirectory(path)
            throw .io(error, path: "the directory beside the archive")
        }
        removedLeftovers = Self.removeLeftovers(of: destination, keeping: path)
    }

    /// How many staging directories of earlier exports to the same destination, killed
    /// before they finished, this one removed: plaintext nothing else would remove.
    private(set) var removedLeftovers = 0

    /// Removes every `<destination>.partial-<16 hex digits>` directory but `kept` whose lock
    /// is free: its export is gone (a live one holds the lock until it ends).
    private static func removeLeftovers(of destination: String, keeping kept: String) -> Int {
        let parent = FileSystem.directory(of: destination)
        let prefix = FileSystem.fileName(of: destination) + ".partial-"
        var removed = 0
        for name in (try? FileSystem.entries(of: parent)) ?? [] where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            let path = parent + "/" + name
            guard suffix.count == 16, suffix.allSatisfy(\.isHexDigit), path != kept,
                  let leftover = try? FileDescriptor.open(path, .readOnly, options: .directory) else { continue }
            defer { try? leftover.close() }
            guard (try? leftover.lockExclusively(waiting: false)) == true else { continue }
            if (try? FileSystem.removeTree(path)) != nil { removed += 1 }
        }
        return removed
    }

    deinit {
        try? descriptor.close()
        if !committed { discard() }
    }

    /// Makes a private subdirectory (such as `books`).
    func makeSubdirectory(_ name: String) throws(ArchiveError) {
        do { try FileSystem.makeDirectory(path + "/" + name, permissions: 0o700) } catch { throw .io(error, path: name) }
    }

    /// Puts every file and directory written into the staging directory on disk with ONE
    /// `syncfs` of its file system (one journal commit, where a flush per file costs one
    /// each: thousands for a large journal), then gives the staging directory the
    /// destination's name only if nothing has it (`RENAME_NOREPLACE`), so nothing the reader
    /// made there since the export began is replaced. Every file must be closed first.
    func commit() throws(ArchiveError) {
        do { try descriptor.syncFileSystem() } catch { throw .io(error, path: "the archive") }
        do {
            try renameIntoPlace()
        } catch {
            throw [.directoryNotEmpty, .exists, .notDirectory].contains(error.errno)
                ? .destinationExists(path: destination) : .io(error, path: "the archive")
        }
        committed = true
        do {
            try FileSystem.syncDirectory(FileSystem.directory(of: destination))
        } catch {
            throw .io(error, path: "the archive's parent directory")
        }
    }

    private func renameIntoPlace() throws(FileIOError) {
        do {
            try FileSystem.renameWithoutReplacing(path, to: destination)
        } catch where error.errno == .invalidArgument {
            // A file system without the flag: look first; `rename` still cannot replace a
            // directory that has anything in it.
            guard !FileSystem.exists(destination, followingLinks: false) else { throw FileIOError(.rename, .exists) }
            try FileSystem.rename(path, to: destination)
        }
    }

    /// Removes the staging directory and everything in it.
    func discard() {
        try? FileSystem.removeTree(path)
    }
}
