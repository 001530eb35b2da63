/// What the reader wrote: a note (their own thought) or a quote (the book's words).
public enum AnnotationKind: String, CaseIterable, Hashable, Sendable {
    case note
    case quote
}

/// Why an annotation needs the reader's attention after a sync or an import.
public enum ConflictReason: String, Hashable, Sendable {
    /// Two devices changed the same note since they last synced: the newer text stays in
    /// the note, the other is kept as this conflict copy.
    case bothEdited = "both-edited"
    /// The note was deleted on one device and edited on another: the edit brought it back.
    case editedAfterDelete = "edited-after-delete"
}

/// A note or quote about a book, optionally tied to a place in it. Body and locator are
/// sealed at rest; kind and dates stay in the clear.
public struct Annotation: Hashable, Sendable {
    public let id: EntityID
    /// Changed by `move` (a new version, like an edit).
    public var bookID: EntityID
    /// Changed by `edit --kind` (a new version, like an edit); a quote needs a locator.
    public var kind: AnnotationKind
    public var body: String
    public var locator: Locator?
    /// When it was written: the moment it was added, or the one the reader gave (`--on`),
    /// which `edit --on` may correct (a new version, like an edit).
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Set when deleted: a tombstone, never a physical removal.
    public var deletedAt: Timestamp?
    /// Incremented on every change; the outbox records the version each change was based on.
    public var version: Int64
    /// For a conflict copy: the note it is a copy of.
    public var conflictOf: EntityID?
    /// Set while the reader has not yet resolved a conflict about this note.
    public var conflictReason: ConflictReason?
    /// The reader's own comment on a quote (a note typed on a Kindle highlight, KOReader's
    /// note on one): sealed like the body, one more part of the text a version carries.
    public var comment: String?
    /// Where an import found it: the source and its natural key there (`kindle:<hex>`),
    /// sealed. An import skips what the vault holds a record of this key for, on any device.
    public let importKey: String?

    public init(id: EntityID, bookID: EntityID, kind: AnnotationKind, body: String, locator: Locator?,
                createdAt: Timestamp, updatedAt: Timestamp, deletedAt: Timestamp?, version: Int64,
                conflictOf: EntityID? = nil, conflictReason: ConflictReason? = nil, comment: String? = nil,
                importKey: String? = nil) {
        self.id = id
        self.bookID = bookID
        self.kind = kind
        self.body = body
        self.locator = locator
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.version = version
        self.conflictOf = conflictOf
        self.conflictReason = conflictReason
        self.comment = comment
        self.importKey = importKey
    }

    /// Whether both have the same text: body, locator and comment (what a conflict is about).
    public func hasSameText(as other: Annotation) -> Bool {
        body == other.body && locator == other.locator && comment == other.comment
    }

    /// A new note or quote, checked against ``TextRules``, added `now` and written at
    /// `writtenAt` (the reader's `--on`; default `now`), which may not be later than `now`.
    /// Both its dates are then that time, as an imported note's are its source's: it was
    /// not edited since. A quote needs a locator.
    public static func new(bookID: EntityID, kind: AnnotationKind, body: String, locator: Locator?,
                           at now: Timestamp, writtenAt: Timestamp? = nil) throws(JournalError) -> Annotation {
        if kind == .quote, locator == nil { throw .quoteNeedsLocator }
        let created = writtenAt ?? now
        guard created <= now else { throw .noteInFuture }
        return Annotation(id: .generate(at: now), bookID: bookID, kind: kind,
                          body: try TextRules.body(body, field: kind.rawValue),
                          locator: locator, createdAt: created, updatedAt: created, deletedAt: nil, version: 1)
    }
}
