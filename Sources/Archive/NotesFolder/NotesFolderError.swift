internal import FileIO

/// Everything `export --markdown-folder` can refuse or fail with. Like ``ArchiveError``, no
/// case carries journal content: a note is never named by its file name (which comes from a
/// title), only by what it is ("a note in the folder").
public enum NotesFolderError: Error, Equatable, Sendable {
    /// The folder holds files and no state file of an earlier export: it is not an earlier
    /// export's folder, and `--into-existing` was not given. Nothing was written.
    case notEmpty
    /// The path names something that is not a directory (or a symbolic link to one).
    case notADirectory
    /// Another export is writing into this folder now (it holds the folder's lock).
    case busy
    /// The state file was written by a newer bmvault (its `format` is above the one this
    /// build knows). Nothing was written.
    case newerState(found: Int, supported: Int)
    /// The state file is not one bmvault wrote (not JSON, a field missing or of the wrong
    /// type, a file name that climbs out of the folder); `reason` is a fixed phrase.
    case malformedState(reason: String)
    /// The state file, or a note the state lists, is a symbolic link or not a regular file:
    /// bmvault never follows or replaces one. `what` is a fixed phrase.
    case notAFile(what: String)
    /// A file-system call failed; `path` says which file in fixed words ("the state file",
    /// "a note in the folder"), never its name.
    case io(operation: String, path: String, errno: Int32)
}

extension NotesFolderError {
    static func io(_ error: FileIOError, path: String) -> NotesFolderError {
        .io(operation: error.operation.rawValue, path: path, errno: error.errno.rawValue)
    }
}
