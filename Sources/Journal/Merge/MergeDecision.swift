/// What a merge decided for a book from another device. The applier applies it as it is.
public enum BookDecision: Hashable, Sendable {
    /// The book here already has this version, or wins on every part.
    case unchanged
    /// The book is new here.
    case insert(BookVersion)
    /// The book here becomes this (metadata, progress and deletion each decided by its clock).
    case update(BookVersion)
}

/// What a merge decided for a reading session from another device.
public enum SessionDecision: Hashable, Sendable {
    case unchanged
    /// The session to keep under its id: new here, or changed later there than here.
    case store(SessionVersion)
    /// Its book has not arrived yet: the same operation is tried again at the next sync.
    case deferred
}

/// What a merge decided for a tag from another device.
public enum TaggingDecision: Hashable, Sendable {
    case unchanged
    /// The tagging to keep under its id: new here, or changed later there than here.
    case store(TaggingVersion)
    /// The book or note it is on has not arrived yet: tried again at the next sync.
    case deferred
}

/// What a merge decided for a book file from another device.
public enum BookFileDecision: Hashable, Sendable {
    case unchanged
    /// The book file to keep under its id: new here, or its attachment or place changed
    /// later there than here (each decided by its own clock), or its key arrived.
    case store(BookFileVersion)
    /// Its book has not arrived yet: tried again at the next sync.
    case deferred
}

/// What a merge decided for a reading session from an archive.
public enum ArchivedSessionDecision: Hashable, Sendable {
    case unchanged
    /// New here: added, as the reader's own.
    case add(ReadingSession)
}

/// What a merge decided for a note or quote from another device.
public enum AnnotationDecision: Hashable, Sendable {
    /// The version is here already, or superseded by one here.
    case unchanged
    /// It needs a record that has not arrived yet (a note before its book): tried again
    /// at the next sync.
    case deferred
    /// These versions now stand together in the record (it becomes a record of its own if
    /// it was a derived conflict copy), shown as `presentation`. `reviveBook`: a live note
    /// came for a book deleted here, which comes back with it. `newConflicts`: copies and
    /// marks this version added, for the sync summary.
    case store(AnnotationVersions, AnnotationPresentation, reviveBook: Bool, newConflicts: Int)
}

/// What a merge decided for a book from an archive: changes made here, as the reader's own.
public enum ArchivedBookDecision: Hashable, Sendable {
    case unchanged
    case insert(Book)
    /// The book here does not open; the archive's, which does, replaces it.
    case replaceUnreadable(Book)
    case change(BookChange)
}

/// A change an archive makes to a book here.
public struct BookChange: Hashable, Sendable {
    public let title: String
    public let authors: [String]
    public let progress: Double
    /// Deleted after the change (the deletion time stays the book's if it had one).
    public let isDeleted: Bool
    /// Title, authors or deletion changed: the book's metadata clock moves (only then, so a
    /// position from an archive does not outrank a retitle made elsewhere).
    public let metadataChanged: Bool
    /// The position moved: it is then a plain one, no longer a rewind.
    public let progressMoved: Bool
    public let rating: Double?
    /// The rating changed: its clock moves.
    public let ratingChanged: Bool
    public let edition: Edition
    /// The edition changed: its clock moves.
    public let editionChanged: Bool
    /// Both logs joined.
    public let readingLog: ReadingLog
}

/// What a merge decided for a note or quote from an archive: changes made here, as the
/// reader's own.
public enum ArchivedAnnotationDecision: Hashable, Sendable {
    case unchanged
    /// A note new here; `reviveBook`: a live note for a book deleted here, which comes back
    /// with it (a note is never left inside a deleted book).
    case insert(Annotation, reviveBook: Bool)
    /// The note here does not open; the archive's, which does, replaces it.
    case replaceUnreadable(Annotation)
    /// The note here changes; `isConflict` when the change brings it back or marks it for
    /// the reader; `reviveBook` when it brings back a note of a book deleted here, which
    /// comes back with it.
    case change(AnnotationChange, isConflict: Bool, reviveBook: Bool)
    /// Both texts stand: the archive's becomes this conflict copy.
    case addCopy(Annotation)
}

/// A change an archive makes to a note or quote here. Nil fields stay as they are (so
/// `isDeleted` is set only when the change deletes or brings back).
public struct AnnotationChange: Hashable, Sendable {
    public var body: String?
    public var locator: Locator??
    public var comment: String??
    /// Deleted or not after the change.
    public var isDeleted: Bool?
    public var conflictReason: ConflictReason??
    /// The book and kind it moves to (`move`, `edit --kind`: bmvault 0.12).
    public var bookID: EntityID?
    public var kind: AnnotationKind?

    public init(body: String? = nil, locator: Locator?? = nil, comment: String?? = nil, isDeleted: Bool? = nil,
                conflictReason: ConflictReason?? = nil, bookID: EntityID? = nil, kind: AnnotationKind? = nil) {
        self.body = body
        self.locator = locator
        self.comment = comment
        self.isDeleted = isDeleted
        self.conflictReason = conflictReason
        self.bookID = bookID
        self.kind = kind
    }

    /// Applies the change to `annotation` (the Store's write keeps its dates and version).
    public func apply(to annotation: inout Annotation) {
        if let body { annotation.body = body }
        if let locator { annotation.locator = locator }
        if let comment { annotation.comment = comment }
        if let isDeleted { annotation.deletedAt = isDeleted ? (annotation.deletedAt ?? annotation.updatedAt) : nil }
        if let conflictReason { annotation.conflictReason = conflictReason }
        if let bookID { annotation.bookID = bookID }
        if let kind { annotation.kind = kind }
    }
}

/// What a merge decided for the reading another program's file records of a book here.
public enum ImportedReadingDecision: Hashable, Sendable {
    case unchanged
    case change(ImportedReadingChange)
}

/// What of a file's reading a book takes: each part nil when it takes nothing of it.
public struct ImportedReadingChange: Hashable, Sendable {
    public var progress: Double?
    public var rating: Double?
    /// A status its log gains, recorded at the clock of the change that adds it.
    public var status: ImportedStatus?

    public init(progress: Double? = nil, rating: Double? = nil, status: ImportedStatus? = nil) {
        self.progress = progress
        self.rating = rating
        self.status = status
    }

    /// Applies the change to `book`, whose change is recorded at `clock`.
    public func apply(to book: inout Book, at clock: HybridTimestamp) {
        if let progress { book.progress = progress }
        if let rating { book.rating = rating }
        if let status { book.readingLog = book.readingLog.adding(status.event(at: clock)) }
    }
}
