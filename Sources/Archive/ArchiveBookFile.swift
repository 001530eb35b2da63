public import Journal

/// A book file as an archive lists it (journal.json's optional `files` of a book, bmvault
/// 0.17): what the file is and the reader's place in it, never where it lies on a device.
/// `path` names its plain copy in the archive (`files/...`) when the export was made with
/// `--with-files`; an import re-attaches a file only from that copy, checked against `sha256`.
public struct ArchiveBookFile: Sendable, Equatable {
    /// How the vault kept it when the archive was made.
    public enum Kept: String, Sendable {
        /// Encrypted in the vault's file store.
        case stored
        /// A handle to the file where it lay, on the device that added it.
        case linked
    }

    /// What the file says of itself, as `file add` read it. The archive's own type, not the
    /// parser's (`BookFileMetadata`): the format is a promise to readers and must not change
    /// when the parser does; VaultKit maps one to the other.
    public struct Metadata: Sendable, Equatable {
        public var title: String?
        public var creators: [String]
        public var language: String?
        /// `isbn:9780...`, `uuid:...`, as the file gives them.
        public var identifiers: [String]
        public var publisher: String?
        public var date: String?
        public var hasCover: Bool

        public init(title: String?, creators: [String], language: String?, identifiers: [String], publisher: String?,
                    date: String?, hasCover: Bool) {
            self.title = title
            self.creators = creators
            self.language = language
            self.identifiers = identifiers
            self.publisher = publisher
            self.date = date
            self.hasCover = hasCover
        }
    }

    /// The book file's id (what `file list` shows), the same in every vault it reaches.
    public let id: EntityID
    /// `epub`, `mobi`, `azw3` or `pdf`.
    public let format: String
    public let size: Int64
    /// SHA-256 of the plain file, 64 lowercase hex digits.
    public let sha256: String
    public let kept: Kept
    public let addedAt: Timestamp
    public let locator: String?
    public let metadata: Metadata
    /// Where the archive holds the plain file, relative to it (`files/<name>`); nil when it does not.
    public var path: String?

    public static let formats: Set<String> = ["epub", "mobi", "azw3", "pdf"]

    /// How errors name the plain copy: without the part of its name that comes from a title.
    public var displayPath: String? { path.map(BookFileName.displayName(ofArchivePath:)) }

    public init(id: EntityID, format: String, size: Int64, sha256: String, kept: Kept, addedAt: Timestamp, locator: String?,
                metadata: Metadata, path: String?) {
        self.id = id
        self.format = format
        self.size = size
        self.sha256 = sha256
        self.kept = kept
        self.addedAt = addedAt
        self.locator = locator
        self.metadata = metadata
        self.path = path
    }

    /// Whether `text` is a SHA-256 as archives write it.
    static func isChecksum(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether `path` is one an archive's plain copy may have: `files/` and one name, no
    /// hidden file, nothing that climbs out of the archive.
    public static func isPlainCopyPath(_ path: String) -> Bool {
        let prefix = ArchiveFormat.filesDirectory + "/"
        guard path.hasPrefix(prefix) else { return false }
        let name = path.dropFirst(prefix.count)
        return !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.utf8.contains(0) && name.utf8.count <= 255
    }
}
