/// The names and numbers that make a directory a bmvault archive. Docs/EXPORT-FORMAT.md is
/// their specification; the archive's own README.md repeats it (``ArchiveReadme``).
public enum ArchiveFormat {
    /// The value of `format` in manifest.json and of `archive.format` in journal.json.
    public static let name = "bmvault-archive"
    /// The version this build writes. Raised only for a change an older reader would
    /// misread (a renamed or retyped field, a new meaning, another escaping); new optional
    /// fields are not one. 2 (bmvault 0.15): the reader's Markdown written as it is.
    public static let currentVersion = 2
    /// Every version this build reads, each as it was written (``JournalReader``,
    /// ``BookMarkdownReader``, ``MarkdownBody/Encoding``).
    public static let readableVersions: ClosedRange<Int> = 1...2

    public static let manifestFile = "manifest.json"
    public static let journalFile = "journal.json"
    public static let readmeFile = "README.md"
    public static let schemaFile = "archive.schema.json"
    /// Every book, linked, by reading status (``ArchiveIndex``); written from bmvault 0.14.
    public static let indexFile = "index.md"
    public static let booksDirectory = "books"
    /// Plain copies of the reader's book files, written by `export --with-files` (bmvault 0.17).
    public static let filesDirectory = "files"

    /// The front-matter key that marks a Markdown file as a book of a bmvault archive; its
    /// value is the format version.
    public static let markdownVersionKey = "bmvault-archive"

    /// Refuses a version this build cannot read, naming both numbers.
    static func checkReadable(_ version: Int, file: String) throws(ArchiveError) {
        guard version <= readableVersions.upperBound else {
            throw .newerFormat(found: version, supported: readableVersions.upperBound)
        }
        guard readableVersions.contains(version) else {
            throw .invalidField(file: file, line: nil, record: nil, field: "formatVersion")
        }
    }
}
