/// One sitting with a book. Sessions are append-only: they are never edited, so they
/// merge between devices as a union by id.
public struct ReadingSession: Hashable, Sendable {
    public static let maximumPages = 100_000

    public let id: EntityID
    public let bookID: EntityID
    public let startedAt: Timestamp
    public let endedAt: Timestamp
    public let pagesRead: Int

    public init(id: EntityID, bookID: EntityID, startedAt: Timestamp, endedAt: Timestamp, pagesRead: Int) {
        self.id = id
        self.bookID = bookID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.pagesRead = pagesRead
    }

    /// A new session, checked: it may not end before it starts or after `now` (a session
    /// in 2030 is a typing mistake), and pages are 0...100,000.
    public static func new(bookID: EntityID, startedAt: Timestamp, endedAt: Timestamp, pagesRead: Int,
                           at now: Timestamp) throws(JournalError) -> ReadingSession {
        guard (0...maximumPages).contains(pagesRead) else { throw .pagesOutOfRange }
        guard endedAt >= startedAt else { throw .sessionEndsBeforeStart }
        guard endedAt <= now else { throw .sessionInFuture }
        return ReadingSession(id: .generate(at: now), bookID: bookID, startedAt: startedAt,
                              endedAt: endedAt, pagesRead: pagesRead)
    }
}
