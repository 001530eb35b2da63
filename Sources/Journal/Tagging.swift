/// The kind of record a tag is on.
public enum TaggedKind: String, CaseIterable, Hashable, Sendable {
    case book
    case annotation
}

/// One tag on one book, note or quote: a record of its own, so that putting a tag on a
/// note never touches the note's text (and so never makes a text conflict), and a tag
/// given on two devices at once is simply there twice, shown once (``TagPolicy``). Taking
/// a tag away keeps the record, removed, so no device puts it back by accident. The name
/// is sealed at rest; the rest is in the clear.
public struct Tagging: Hashable, Sendable {
    public let id: EntityID
    /// The book, note or quote it is on; never changes.
    public let recordID: EntityID
    public let recordKind: TaggedKind
    /// As the reader typed it (``Tag/checked(_:)``); empty once purged with its record.
    public var name: String
    public let createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Set when the reader took the tag away; cleared when they give it again.
    public var removedAt: Timestamp?
    /// Incremented on every change, like every record's.
    public var version: Int64

    public init(id: EntityID, recordID: EntityID, recordKind: TaggedKind, name: String, createdAt: Timestamp,
                updatedAt: Timestamp, removedAt: Timestamp?, version: Int64) {
        self.id = id
        self.recordID = recordID
        self.recordKind = recordKind
        self.name = name
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.removedAt = removedAt
        self.version = version
    }

    /// A new tag on a record; `name` is checked by ``Tag/checked(_:)``.
    public static func new(_ name: String, on recordID: EntityID, kind: TaggedKind, at now: Timestamp) throws(JournalError) -> Tagging {
        Tagging(id: .generate(at: now), recordID: recordID, recordKind: kind, name: try Tag.checked(name),
                createdAt: now, updatedAt: now, removedAt: nil, version: 1)
    }

    public var isRemoved: Bool { removedAt != nil }
}

/// A tagging with the clock of its last change (given, taken away, given again), which
/// ``TagPolicy`` compares.
public struct TaggingVersion: Hashable, Sendable {
    public var tagging: Tagging
    public var clock: HybridTimestamp

    public init(_ tagging: Tagging, clock: HybridTimestamp) {
        self.tagging = tagging
        self.clock = clock
    }
}
