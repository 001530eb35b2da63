/// A book with the clocks its merge reads: one for the whole record, one for its metadata
/// (title, authors, deletion: ``BookMetadataPolicy``), one for its rating (``RatingPolicy``),
/// one for its edition (``EditionPolicy``),
/// and its recorded positions with their own clocks (``ProgressPolicy``), so a change to one
/// never undoes a change to another. Its reading log carries a clock per event
/// (``ReadingLogPolicy``).
public struct BookVersion: Hashable, Sendable {
    /// The book; its `progress` is `positions.current`.
    public var book: Book
    /// The latest change of any kind.
    public var clock: HybridTimestamp
    /// The latest change of title, authors or deletion.
    public var metadataClock: HybridTimestamp
    /// Every position that can still matter, with when each was recorded.
    public var positions: ProgressPolicy.Positions
    /// The latest rating given or taken away; ``HybridTimestamp/origin`` for a book never
    /// rated (and one from a device that does not know ratings), older than any rating.
    public var ratingClock: HybridTimestamp
    /// The latest change of the edition; ``HybridTimestamp/origin`` for a book whose edition
    /// was never given (and one from a device that does not know editions).
    public var editionClock: HybridTimestamp

    public init(_ book: Book, clock: HybridTimestamp, metadataClock: HybridTimestamp, positions: ProgressPolicy.Positions,
                ratingClock: HybridTimestamp = .origin, editionClock: HybridTimestamp = .origin) {
        self.book = book
        self.clock = clock
        self.metadataClock = metadataClock
        self.positions = positions
        self.ratingClock = ratingClock
        self.editionClock = editionClock
        self.book.progress = positions.current.percent
    }
}
