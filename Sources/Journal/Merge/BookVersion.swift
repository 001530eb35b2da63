/// A book with the clocks its merge reads: one for the whole record, one for its metadata
/// (title, authors, deletion: ``BookMetadataPolicy``), and its recorded positions with their
/// own clocks (``ProgressPolicy``), so a change to one never undoes a change to the other.
public struct BookVersion: Hashable, Sendable {
    /// The book; its `progress` is `positions.current`.
    public var book: Book
    /// The latest change of any kind.
    public var clock: HybridTimestamp
    /// The latest change of title, authors or deletion.
    public var metadataClock: HybridTimestamp
    /// Every position that can still matter, with when each was recorded.
    public var positions: ProgressPolicy.Positions

    public init(_ book: Book, clock: HybridTimestamp, metadataClock: HybridTimestamp, positions: ProgressPolicy.Positions) {
        self.book = book
        self.clock = clock
        self.metadataClock = metadataClock
        self.positions = positions
        self.book.progress = positions.current.percent
    }
}
