public import Journal

/// One record read from an archive, ready for a vault to merge.
public enum ArchiveRecord: Sendable {
    case book(Book)
    case session(ReadingSession)
    /// A note or quote with the id the archive gives it.
    case annotation(Annotation)
    /// A note or quote the reader added to a Markdown file, with no id of its own: it got a
    /// new one, and the vault skips it when its book already holds the same text, so that
    /// importing the same file twice adds it once.
    case addition(Annotation)
    /// The tags of the book, note or quote read just before (journal.json's optional `tags`,
    /// bmvault 0.13): given to it where it does not show them already.
    case tags(recordID: EntityID, kind: TaggedKind, names: [String])
    /// The files of the book read just before (journal.json's optional `files`, bmvault
    /// 0.17), each `path` checked to be one of the archive's plain copies.
    case bookFiles(bookID: EntityID, files: [ArchiveBookFile])
}

/// Where in the archive a record was read: for error messages, which name places, never text.
public struct ArchiveRecordOrigin: Sendable, Equatable, CustomStringConvertible {
    /// Relative to the archive; a book's Markdown file by the short id in its name.
    public let file: String
    public let line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file) line \(line)" }
}
