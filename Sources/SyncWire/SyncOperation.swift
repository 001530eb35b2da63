public import Journal

/// The kind of record an operation is about.
public enum OutboxEntity: String, Sendable, CaseIterable {
    case book
    case session
    case annotation
    /// A tag on a book, note or quote (bmvault 0.13).
    case tagging
    /// A book file attached to a book (bmvault 0.18).
    case bookFile
}

/// What an operation did to its record.
public enum OutboxAction: String, Sendable {
    case create
    case update
    case delete
}

/// One change to the journal as devices exchange it: who made it and when, and the
/// record's state after it with the clocks its merge reads. It is the same value whether
/// it was made here (and sealed into the outbox) or read from another device's file.
public struct SyncOperation: Sendable, Equatable {
    /// Unique to this operation (a UUIDv7): names its file, so a second upload lands on the
    /// same name, and is recorded once applied, so a second delivery changes nothing.
    public let idempotencyKey: String
    public let deviceID: String
    /// When its device made it. It names the file, so a device's files sort in the order
    /// they were made. (A note's version keeps its own clock: a kept conflict copy is sent
    /// later than the version it shows was written.)
    public let clock: HybridTimestamp
    public let action: OutboxAction
    public let record: RecordVersion

    public init(idempotencyKey: String, deviceID: String, clock: HybridTimestamp, action: OutboxAction, record: RecordVersion) {
        self.idempotencyKey = idempotencyKey
        self.deviceID = deviceID
        self.clock = clock
        self.action = action
        self.record = record
    }

    public var entity: OutboxEntity {
        switch record {
        case .book: .book
        case .session: .session
        case .annotation: .annotation
        case .tagging: .tagging
        case .bookFile: .bookFile
        }
    }

    public var entityID: EntityID {
        switch record {
        case .book(let version): version.book.id
        case .session(let version): version.session.id
        case .annotation(let version): version.annotation.id
        case .tagging(let version): version.tagging.id
        case .bookFile(let version): version.file.id
        }
    }

    /// Whether it leaves a book, note or quote deleted (what the mass-delete fail-safe counts).
    public var deletes: Bool {
        switch record {
        case .book(let version): version.book.deletedAt != nil
        case .session: false
        case .annotation(let version): version.isDeleted
        case .tagging, .bookFile: false
        }
    }

    /// The name of its file on a remote: `<clock>.<idempotency key>.op`.
    public var fileName: String { OperationFileName.make(clock: clock, idempotencyKey: idempotencyKey) }
}
