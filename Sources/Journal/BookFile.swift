/// A book file attached to a book, as devices exchange it: the attachment (which book, the
/// reader's place in the file, attached or removed) with the content it names. The content
/// (format, size, SHA-256, what the file says of itself) never changes once added; the file
/// itself never travels in it, only its key, sealed under the vault key, when the device
/// that added it stored it (a file only linked where it lies has none).
public struct BookFile: Hashable, Sendable {
    /// The attachment's id: what `file list` shows.
    public let id: EntityID
    /// The book it is attached to; never changes (a book merge removes it and attaches the
    /// content to the other book).
    public let bookID: EntityID
    public var content: Content
    /// The reader's current place in this file (`epubcfi(...)`, `p. 120`, `42%`).
    public var locator: Locator?
    public let createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Set when the reader removed it from its book (a tombstone, so the removal syncs).
    public var removedAt: Timestamp?
    /// Incremented on every change, like every record's.
    public var version: Int64

    public init(id: EntityID, bookID: EntityID, content: Content, locator: Locator?, createdAt: Timestamp, updatedAt: Timestamp,
                removedAt: Timestamp?, version: Int64) {
        self.id = id
        self.bookID = bookID
        self.content = content
        self.locator = locator
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.removedAt = removedAt
        self.version = version
    }

    public var isRemoved: Bool { removedAt != nil }

    /// A book file's content: one per file added (two devices that add the same file make
    /// two, recognised as one by ``checksum``).
    public struct Content: Hashable, Sendable {
        public let id: EntityID
        /// `epub`, `mobi`, `azw3` or `pdf`.
        public let format: String
        public let size: Int64
        /// The SHA-256 of the plain file, 64 lowercase hex digits.
        public let checksum: String
        /// What the file says of itself (title, creators, identifiers...), as JSON.
        public let metadata: String
        /// The device that added it.
        public let deviceID: String
        /// Its key sealed under the vault key (bound to the content), when it was stored
        /// encrypted; nil for a file only linked where it lies. Given once, it is kept.
        public var sealedKey: [UInt8]?
        public let createdAt: Timestamp

        public init(id: EntityID, format: String, size: Int64, checksum: String, metadata: String, deviceID: String,
                    sealedKey: [UInt8]?, createdAt: Timestamp) {
            self.id = id
            self.format = format
            self.size = size
            self.checksum = checksum
            self.metadata = metadata
            self.deviceID = deviceID
            self.sealedKey = sealedKey
            self.createdAt = createdAt
        }

        /// The formats a content may have.
        public static let formats: Set<String> = ["epub", "mobi", "azw3", "pdf"]

        /// Whether `text` is a SHA-256 as a content records it.
        public static func isChecksum(_ text: String) -> Bool {
            text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
    }
}

/// A book file with the clocks its merge reads: of its last attachment change (attached,
/// removed) and of its locator's last change, each decided on its own.
public struct BookFileVersion: Hashable, Sendable {
    public var file: BookFile
    public var clock: HybridTimestamp
    public var locatorClock: HybridTimestamp

    public init(_ file: BookFile, clock: HybridTimestamp, locatorClock: HybridTimestamp) {
        self.file = file
        self.clock = clock
        self.locatorClock = locatorClock
    }
}
