import Journal

/// The state of a record after a change, as carried (sealed) by its outbox operation and,
/// inside a sealed operation file, to other devices. Version 1; it changes only additively
/// (new optional fields), so every older device can still read what a newer one writes.
struct OutboxPayload: Codable {
    var v = 1
    var book: BookSnapshot?
    var session: SessionSnapshot?
    var annotation: AnnotationSnapshot?

    struct BookSnapshot: Codable {
        let id: String, title: String, authors: [String], progress: Double
        let createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, version: Int64
        /// Added with sync: the progress was set as an explicit rewind, and when.
        let progressRewind: Bool?
        let progressClock: String?
    }

    struct SessionSnapshot: Codable {
        let id: String, bookId: String, startedAt: Int64, endedAt: Int64, pagesRead: Int
    }

    struct AnnotationSnapshot: Codable {
        let id: String, bookId: String, kind: String, body: String, locator: String?
        let createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, version: Int64
        /// Added with sync: conflict copies and unresolved conflicts travel too.
        let conflictOf: String?, conflictReason: String?
    }

    init(_ book: Book, progressRewind: Bool, progressClock: HybridTimestamp?) {
        self.book = BookSnapshot(id: book.id.rawValue, title: book.title, authors: book.authors, progress: book.progress,
                                 createdAt: book.createdAt.millisecondsSince1970, updatedAt: book.updatedAt.millisecondsSince1970,
                                 deletedAt: book.deletedAt?.millisecondsSince1970, version: book.version,
                                 progressRewind: progressRewind, progressClock: progressClock?.description)
    }

    init(_ session: ReadingSession) {
        self.session = SessionSnapshot(id: session.id.rawValue, bookId: session.bookID.rawValue,
                                       startedAt: session.startedAt.millisecondsSince1970,
                                       endedAt: session.endedAt.millisecondsSince1970, pagesRead: session.pagesRead)
    }

    init(_ annotation: Annotation) {
        self.annotation = AnnotationSnapshot(
            id: annotation.id.rawValue, bookId: annotation.bookID.rawValue, kind: annotation.kind.rawValue,
            body: annotation.body, locator: annotation.locator?.text,
            createdAt: annotation.createdAt.millisecondsSince1970, updatedAt: annotation.updatedAt.millisecondsSince1970,
            deletedAt: annotation.deletedAt?.millisecondsSince1970, version: annotation.version,
            conflictOf: annotation.conflictOf?.rawValue, conflictReason: annotation.conflictReason?.rawValue)
    }
}

extension OutboxPayload.BookSnapshot {
    /// The model value, checked: a snapshot from another device is input like any other.
    func book() throws(JournalError) -> Book {
        var authors: [String] = []
        for author in self.authors { authors.append(try TextRules.line(author, field: "author")) }
        // A purged tombstone travels with no title (Store+Tombstones); a live book needs one.
        let contentFree = deletedAt != nil && title.isEmpty && authors.isEmpty
        return Book(id: try EntityID(validating: id), title: contentFree ? "" : try TextRules.line(title, field: "title"), authors: authors,
                    progress: try Book.checkedProgress(progress),
                    createdAt: Timestamp(millisecondsSince1970: createdAt), updatedAt: Timestamp(millisecondsSince1970: updatedAt),
                    deletedAt: deletedAt.map(Timestamp.init(millisecondsSince1970:)), version: version)
    }
}

extension OutboxPayload.SessionSnapshot {
    func session() throws(JournalError) -> ReadingSession {
        guard (0...ReadingSession.maximumPages).contains(pagesRead) else { throw .pagesOutOfRange }
        guard endedAt >= startedAt else { throw .sessionEndsBeforeStart }
        return ReadingSession(id: try EntityID(validating: id), bookID: try EntityID(validating: bookId),
                              startedAt: Timestamp(millisecondsSince1970: startedAt),
                              endedAt: Timestamp(millisecondsSince1970: endedAt), pagesRead: pagesRead)
    }
}

extension OutboxPayload.AnnotationSnapshot {
    func annotation() throws(JournalError) -> Annotation {
        guard let kind = AnnotationKind(rawValue: kind) else { throw .invalidID }
        let checkedLocator: Locator? = try locator.map { (text) throws(JournalError) in try Locator(text) }
        // A purged tombstone travels with no text (Store+Tombstones); a live note needs some.
        let contentFree = deletedAt != nil && body.isEmpty && locator == nil
        return Annotation(id: try EntityID(validating: id), bookID: try EntityID(validating: bookId), kind: kind,
                          body: contentFree ? "" : try TextRules.body(body, field: kind.rawValue), locator: checkedLocator,
                          createdAt: Timestamp(millisecondsSince1970: createdAt), updatedAt: Timestamp(millisecondsSince1970: updatedAt),
                          deletedAt: deletedAt.map(Timestamp.init(millisecondsSince1970:)), version: version,
                          conflictOf: try conflictOf.map { (text) throws(JournalError) in try EntityID(validating: text) },
                          conflictReason: conflictReason.flatMap(ConflictReason.init(rawValue:)))
    }
}
