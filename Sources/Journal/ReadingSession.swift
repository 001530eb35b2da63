/// One sitting with a book: when it started and ended and how many pages were read, and,
/// for one an import recorded, where it came from. All of it stays in the clear (it is no
/// text of the reader's). A session can be corrected or deleted; the last change wins
/// between devices (``SessionEditPolicy``).
public struct ReadingSession: Hashable, Sendable {
    public static let maximumPages = 100_000

    public let id: EntityID
    public let bookID: EntityID
    public var startedAt: Timestamp
    public var endedAt: Timestamp
    public var pagesRead: Int
    /// Set when deleted: a tombstone, so the deletion reaches every device.
    public var deletedAt: Timestamp?
    /// 1 when recorded, one more on every edit or deletion.
    public var version: Int64
    /// The program whose file an import recorded it from (`koreader`, in
    /// ``TextRules/sessionSource(_:)``'s form); nil for a session the reader typed. Set once,
    /// when recorded: an edit or a deletion keeps it.
    public var source: String?

    public init(id: EntityID, bookID: EntityID, startedAt: Timestamp, endedAt: Timestamp, pagesRead: Int,
                deletedAt: Timestamp? = nil, version: Int64 = 1, source: String? = nil) {
        self.id = id
        self.bookID = bookID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.pagesRead = pagesRead
        self.deletedAt = deletedAt
        self.version = version
        self.source = source
    }

    /// A new session, checked: it may not end before it starts or after `now` (a session
    /// in 2030 is a typing mistake), and pages are 0...100,000.
    public static func new(bookID: EntityID, startedAt: Timestamp, endedAt: Timestamp, pagesRead: Int,
                           at now: Timestamp) throws(JournalError) -> ReadingSession {
        let session = ReadingSession(id: .generate(at: now), bookID: bookID, startedAt: startedAt, endedAt: endedAt, pagesRead: pagesRead)
        try session.checkTyped(at: now)
        return session
    }

    /// This session with the fields given changed (nil keeps one), checked as a new one is.
    public func edited(startedAt: Timestamp?, endedAt: Timestamp?, pagesRead: Int?, at now: Timestamp) throws(JournalError) -> ReadingSession {
        var edited = self
        if let startedAt { edited.startedAt = startedAt }
        if let endedAt { edited.endedAt = endedAt }
        if let pagesRead { edited.pagesRead = pagesRead }
        try edited.checkTyped(at: now)
        return edited
    }

    /// The rules for times and pages the reader typed.
    private func checkTyped(at now: Timestamp) throws(JournalError) {
        guard (0...Self.maximumPages).contains(pagesRead) else { throw .pagesOutOfRange }
        guard endedAt >= startedAt else { throw .sessionEndsBeforeStart }
        guard endedAt <= now else { throw .sessionInFuture }
    }
}
