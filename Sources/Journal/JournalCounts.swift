/// How many records of each kind: what a vault holds, what an import added or changed,
/// what an archive carries. One type for every such count, so they add and print alike.
public struct JournalCounts: Hashable, Sendable, Codable {
    public var books: Int
    public var sessions: Int
    public var notes: Int
    public var quotes: Int

    public init(books: Int = 0, sessions: Int = 0, notes: Int = 0, quotes: Int = 0) {
        self.books = books
        self.sessions = sessions
        self.notes = notes
        self.quotes = quotes
    }

    public var total: Int { books + sessions + notes + quotes }
}
