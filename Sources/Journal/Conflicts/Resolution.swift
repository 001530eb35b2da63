/// What a conflict policy decided for one record, and why, in words a person can check
/// against the policy.
public enum Resolution<Value: Sendable>: Sendable {
    /// One version wins; nothing of the other is lost that the policy promises to keep.
    case winner(Value, why: String)
    /// Both versions must survive: the local one stays in place, the remote one is kept as
    /// a conflict copy, and the reader is told. Never resolved silently.
    case needsUser(local: Value, remote: Value, why: String)
}

/// One side of a conflict: a record as this device or another has it.
public struct Side<Value: Sendable>: Sendable {
    public let value: Value
    /// When it was last changed, by whom (ties broken by device).
    public let clock: HybridTimestamp
    public let isDeleted: Bool

    public init(_ value: Value, clock: HybridTimestamp, isDeleted: Bool = false) {
        self.value = value
        self.clock = clock
        self.isDeleted = isDeleted
    }
}

/// What a policy knows about a conflict beyond the two values: whether each side changed
/// since the version both last agreed on (the last sync), (unsynced edits here, a newer version there).
public struct Divergence: Sendable, Equatable {
    /// The local record has changes no remote has seen yet (unsynced edits).
    public let localChanged: Bool
    /// The remote record changed since the version this device last took from it.
    public let remoteChanged: Bool

    public init(localChanged: Bool, remoteChanged: Bool) {
        self.localChanged = localChanged
        self.remoteChanged = remoteChanged
    }
}

/// A named, reviewable rule for reconciling two versions of one kind of data. There is one
/// per kind (Docs/SYNC.md lists them with their reasons); sync and archive import both use
/// them, so "what happens to my note" has a single answer.
public protocol ConflictPolicy: Sendable {
    associatedtype Value: Sendable
    func resolve(local: Side<Value>, remote: Side<Value>, divergence: Divergence) -> Resolution<Value>
}
