internal import FileIO

/// Everything reading or writing an archive can report. No case carries journal content:
/// files are named relative to the archive (a book's Markdown file by the short id in its
/// name, never by the title-derived part), records by id, problems by fixed phrases.
public enum ArchiveError: Error, Equatable, Sendable {
    /// The archive was written by a newer bmvault: its format version is above the newest
    /// this build reads. Nothing was imported.
    case newerFormat(found: Int, supported: Int)
    /// Nothing exists at the path given to import.
    case notFound(path: String)
    /// The path holds no manifest.json, journal.json or book Markdown, or declares another
    /// format than `bmvault-archive`.
    case notAnArchive(path: String)
    /// A file listed in the manifest is missing, or its size or SHA-256 differs: the archive
    /// was changed or damaged. (A book's Markdown file that differs is an edit, not this.)
    /// Named by its entry's place in the manifest's files, from 1, never by the path the
    /// manifest gives: that is the archive's text, which a message must not repeat.
    case checksumMismatch(entry: Int)
    /// The plain copy of a book file (`files/...`, named without its title) is not the file
    /// journal.json lists: its size or SHA-256 differs (checked even with `--force`).
    case plainCopyDiffers(file: String)
    /// Not well-formed where it must be: JSON syntax, a YAML front matter, a marker. `reason`
    /// is a fixed phrase from this module.
    case malformed(file: String, line: Int, reason: String)
    /// Bytes that are not UTF-8.
    case invalidUTF8(file: String, line: Int)
    /// The file ends before its content does: it was cut short.
    case truncated(file: String, line: Int)
    /// A record (or the manifest) lacks a field it must have.
    case missingField(file: String, line: Int?, record: String?, field: String)
    /// A field has the wrong type or breaks a journal rule; `reason` is a fixed phrase.
    case invalidField(file: String, line: Int?, record: String?, field: String, reason: String)
    /// Two records of the archive share one id.
    case duplicateRecord(file: String, line: Int, record: String)
    /// A session, note or quote names a book that is neither in the archive nor in the vault.
    case unknownBook(file: String, line: Int, record: String, book: String)
    /// The export's destination exists already; nothing was written.
    case destinationExists(path: String)
    /// A file-system call failed with `errno`. `path` names a file of the archive, or says
    /// which directory ("the archive"), never the path the reader typed.
    case io(operation: String, path: String, errno: Int32)
}

extension ArchiveError {
    /// A failed file-system call on the file (or directory) errors call `path`.
    static func io(_ error: FileIOError, path: String) -> ArchiveError {
        .io(operation: error.operation.rawValue, path: path, errno: error.errno.rawValue)
    }

    /// A field that breaks a rule, without the reason spelled out.
    static func invalidField(file: String, line: Int?, record: String?, field: String) -> ArchiveError {
        .invalidField(file: file, line: line, record: record, field: field, reason: "not valid")
    }
}
