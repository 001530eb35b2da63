/// What the reader wrote: a note (their own thought) or a quote (the book's words).
public enum AnnotationKind: String, CaseIterable, Hashable, Sendable {
    case note
    case quote
}

/// A note or quote about a book, optionally tied to a place in it. Body and locator are
/// sealed at rest; kind and dates stay in the clear.
public struct Annotation: Hashable, Sendable {
    public let id: EntityID
    public let bookID: EntityID
    public let kind: AnnotationKind
    public var body: String
    public var locator: Locator?
    public let createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Set when deleted: a tombstone, never a physical removal.
    public var deletedAt: Timestamp?
    /// Incremented on every change; the outbox records the version each change was based on.
    public var version: Int64

    public init(id: EntityID, bookID: EntityID, kind: AnnotationKind, body: String, locator: Locator?,
                createdAt: Timestamp, updatedAt: Timestamp, deletedAt: Timestamp?, version: Int64) {
        self.id = id
        self.bookID = bookID
        self.kind = kind
        self.body = body
        self.locator = locator
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.version = version
    }

    /// A new note or quote, checked against ``TextRules``. A quote needs a locator.
    public static func new(bookID: EntityID, kind: AnnotationKind, body: String, locator: Locator?,
                           at now: Timestamp) throws(JournalError) -> Annotation {
        if kind == .quote, locator == nil { throw .emptyText(field: "locator") }
        return Annotation(id: .generate(at: now), bookID: bookID, kind: kind,
                          body: try TextRules.body(body, field: kind.rawValue),
                          locator: locator, createdAt: now, updatedAt: now, deletedAt: nil, version: 1)
    }
}
