/// What a reader did with one book: its live notes, quotes and sessions, and when the
/// latest session ended (`book list`). All of it is counted from what is in the clear.
public struct BookActivity: Sendable, Equatable {
    public var notes = 0
    public var quotes = 0
    public var sessions = 0
    public var lastSession: Timestamp?

    public init(notes: Int = 0, quotes: Int = 0, sessions: Int = 0, lastSession: Timestamp? = nil) {
        self.notes = notes
        self.quotes = quotes
        self.sessions = sessions
        self.lastSession = lastSession
    }
}
