public import Journal

/// What merging one book into another moved.
public struct BookMergeSummary: Sendable, Equatable {
    /// Notes and quotes moved.
    public var annotations = 0
    /// Sessions recorded again on the kept book.
    public var sessions = 0
    /// The merged book's tags the kept one did not have.
    public var tags = 0

    public init() {}
}

/// `bmvault book merge`: two records of one book (an import that made a second one, a book
/// typed twice) made one.
extension BookTable {
    /// Merges book `duplicate` into `kept` in the transaction at hand, every change with its
    /// outbox operation: its notes and quotes move (a change of each, as `move` makes); its
    /// sessions are recorded again on `kept` and deleted from it (a session's book never
    /// changes, so every device ends with the same sessions); its tags and reading log join
    /// `kept`'s, and its rating, edition and position where `kept` has none or is behind;
    /// the names other programs gave it, and its own title (with and without its authors),
    /// name `kept` in every later import; then `duplicate` is deleted (a tombstone, which
    /// `bmvault undelete` can bring back, empty).
    public func merge(_ duplicate: EntityID, into kept: EntityID) throws(StoreError) -> BookMergeSummary {
        try requireLive(duplicate)
        try requireLive(kept)
        var summary = BookMergeSummary()
        guard duplicate != kept else { return summary }
        for id in try tables.annotations.liveIDs(of: duplicate) {
            try tables.annotations.change(id, action: .update) { $0.bookID = kept }
            summary.annotations += 1
        }
        let sessions = tables.sessions
        for session in try sessions.live(of: duplicate) {
            try sessions.insert(ReadingSession(id: .generate(at: store.clock.now()), bookID: kept, startedAt: session.startedAt,
                                               endedAt: session.endedAt, pagesRead: session.pagesRead, source: session.source),
                                outboxState: .pending)
            try sessions.delete(session.id)
            summary.sessions += 1
        }
        summary.tags = try tables.tags.add(try tables.tags.shown(on: duplicate), to: kept, kind: .book).count
        let merged = try book(duplicate), here = try book(kept)
        let parts = BookParts(progress: merged.progress > here.progress, rating: here.rating == nil && merged.rating != nil,
                              edition: here.edition.isEmpty && !merged.edition.isEmpty)
        // The merged book's status changes, but those the kept one has already (the same
        // status that day, as an import records it twice otherwise): no finish counted twice.
        let log = here.readingLog.union(ReadingLog(events: merged.readingLog.events.filter { !here.readingLog.holds($0) }))
        if parts.progress || parts.rating || parts.edition || log != here.readingLog {
            try change(kept, action: .update, parts: parts) { book in
                if parts.progress { book.progress = merged.progress }
                if parts.rating { book.rating = merged.rating }
                if parts.edition { book.edition = merged.edition }
                book.readingLog = log
            }
        }
        try tables.bookAliases.move(from: duplicate, to: kept)
        // Its files go with it: each removed from it and attached to the kept book (unless
        // that has the same content already), each change with its operation.
        try tables.bookFiles.move(from: duplicate, to: kept)
        let held = Set(try tables.bookAliases.all().filter { $0.book == kept }.map(\.alias))
        for alias in [BookAlias.titleAndAuthors(merged.title, authors: merged.authors), BookAlias.title(merged.title)]
        where !held.contains(alias) {
            try tables.bookAliases.remove(alias)   // from any other book: the reader said which book this is
            try tables.bookAliases.insert(alias, book: kept)
        }
        try delete(duplicate)
        return summary
    }
}
