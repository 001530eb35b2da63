/// A book the reader is journaling about. Title and authors are sealed at rest;
/// progress and dates stay in the clear.
public struct Book: Hashable, Sendable {
    public let id: EntityID
    public var title: String
    public var authors: [String]
    /// Percent read, 0...100.
    public var progress: Double
    public let createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Set when deleted: a tombstone, so an offline device cannot resurrect the book.
    public var deletedAt: Timestamp?
    /// Incremented on every change; the outbox records the version each change was based on.
    public var version: Int64
    /// Every status change (want to read, started, finished, abandoned), in the clear.
    public var readingLog: ReadingLog
    /// 1 to 5 stars in halves (``Rating``), sealed; nil when not rated.
    public var rating: Double?
    /// ISBN, year and number of pages, sealed; ``Edition/unknown`` when none is known.
    public var edition: Edition

    public init(id: EntityID, title: String, authors: [String], progress: Double,
                createdAt: Timestamp, updatedAt: Timestamp, deletedAt: Timestamp?, version: Int64,
                readingLog: ReadingLog = .empty, rating: Double? = nil, edition: Edition = .unknown) {
        self.id = id
        self.title = title
        self.authors = authors
        self.progress = progress
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.version = version
        self.readingLog = readingLog
        self.rating = rating
        self.edition = edition
    }

    /// A new book, checked against ``TextRules``.
    public static func new(title: String, authors: [String], edition: Edition = .unknown, at now: Timestamp) throws(JournalError) -> Book {
        var checkedAuthors: [String] = []
        for author in authors { checkedAuthors.append(try TextRules.line(author, field: "author")) }
        return Book(id: .generate(at: now), title: try TextRules.line(title, field: "title"),
                    authors: checkedAuthors, progress: 0, createdAt: now, updatedAt: now, deletedAt: nil, version: 1,
                    edition: edition)
    }

    /// Checks a progress value typed by the reader.
    public static func checkedProgress(_ percent: Double) throws(JournalError) -> Double {
        guard percent.isFinite, (0...100).contains(percent) else { throw .progressOutOfRange }
        return percent
    }
}
