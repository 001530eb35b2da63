import Journal

/// The state of a record after a change, as carried (sealed) by its outbox operation.
/// Version 1 of the payload; sync reads it, so it changes only additively.
struct OutboxPayload: Encodable {
    let v = 1
    var book: BookSnapshot?
    var session: SessionSnapshot?
    var annotation: AnnotationSnapshot?

    struct BookSnapshot: Encodable {
        let id: String, title: String, authors: [String], progress: Double
        let createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, version: Int64
        /// Added with sync (v1, additive): the progress was set as an explicit rewind.
        let progressRewind: Bool?
    }

    struct SessionSnapshot: Encodable {
        let id: String, bookId: String, startedAt: Int64, endedAt: Int64, pagesRead: Int
    }

    struct AnnotationSnapshot: Encodable {
        let id: String, bookId: String, kind: String, body: String, locator: String?
        let createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, version: Int64
    }

    init(_ book: Book, progressRewind: Bool) {
        self.book = BookSnapshot(id: book.id.rawValue, title: book.title, authors: book.authors, progress: book.progress,
                                 createdAt: book.createdAt.millisecondsSince1970, updatedAt: book.updatedAt.millisecondsSince1970,
                                 deletedAt: book.deletedAt?.millisecondsSince1970, version: book.version,
                                 progressRewind: progressRewind)
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
            deletedAt: annotation.deletedAt?.millisecondsSince1970, version: annotation.version)
    }
}
