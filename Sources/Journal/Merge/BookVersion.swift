/// A book with the clocks its merge reads: one for the whole record, one for its metadata
/// (title, authors, deletion: ``BookMetadataPolicy``) and one for its progress
/// (``ProgressPolicy``), so a change to one never undoes a change to the other.
public struct BookVersion: Hashable, Sendable {
    public var book: Book
    /// The latest change of any kind.
    public var clock: HybridTimestamp
    /// The latest change of title, authors or deletion.
    public var metadataClock: HybridTimestamp
    /// The latest change of position.
    public var progressClock: HybridTimestamp
    /// Whether the position was set as an explicit move backwards (`progress --rewind`).
    public var progressRewind: Bool

    public init(_ book: Book, clock: HybridTimestamp, metadataClock: HybridTimestamp,
                progressClock: HybridTimestamp, progressRewind: Bool) {
        self.book = book
        self.clock = clock
        self.metadataClock = metadataClock
        self.progressClock = progressClock
        self.progressRewind = progressRewind
    }

    /// A deleted book whose title and authors were purged (or travel as a content-free
    /// stand-in): nothing of it can be shown again.
    public var isContentFree: Bool { book.deletedAt != nil && book.title.isEmpty }
}
