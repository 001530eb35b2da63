/// A book as another program names it: what an import finds the book here by
/// (``BookIdentityPolicy``), or adds it as.
public struct ImportedBook: Sendable {
    public var title: String
    public var authors: [String]
    /// What the source identifies it by, strongest first: a program's own id
    /// (`<program>:<id>`), `isbn:<digits>`, a partial digest of the file.
    public var identifiers: [String]
    /// What the source knows of the edition, given to a book this import adds.
    public var edition: Edition

    public init(title: String, authors: [String], identifiers: [String] = [], edition: Edition = .unknown) {
        self.title = title
        self.authors = authors
        self.identifiers = identifiers
        self.edition = edition
    }
}

/// What another program's file says of the reader's reading of a book, beyond its notes:
/// where they stand, their rating, their status. Each is taken by its own rule
/// (``JournalMerge/merge(imported:into:)``).
public struct ImportedReading: Hashable, Sendable {
    /// Where the reader stands, 0–100.
    public var progress: Double?
    /// Stars, 0–5.
    public var rating: Double?
    public var status: ImportedStatus?

    /// A source that says nothing of the reading (only the book and its notes).
    public static let none = ImportedReading()

    public init(progress: Double? = nil, rating: Double? = nil, status: ImportedStatus? = nil) {
        self.progress = progress
        self.rating = rating
        self.status = status
    }
}

/// A status another program recorded: `status` on `day`; `dayKnown` false when the source
/// does not say when (`day` then only places it among the others).
public struct ImportedStatus: Hashable, Sendable {
    public var status: ReadingStatus
    public var day: Timestamp
    public var dayKnown: Bool

    public init(_ status: ReadingStatus, on day: Timestamp, dayKnown: Bool) {
        self.status = status
        self.day = day
        self.dayKnown = dayKnown
    }

    /// The event it becomes, recorded at `clock`.
    public func event(at clock: HybridTimestamp) -> ReadingEvent {
        ReadingEvent(status: status, on: day, clock: clock, dayKnown: dayKnown)
    }
}
