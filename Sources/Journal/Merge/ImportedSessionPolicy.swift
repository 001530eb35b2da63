/// Which session here a reading session from another program's file is (KOReader's
/// statistics), and what of it that session takes. A session's natural key is its book and
/// its first page's start: the session of the same book that starts at the same moment is
/// the one an earlier import of this file (or of an earlier copy of it) recorded, and a
/// later copy that extended it (more pages turned before the pause) extends it, unless the
/// reader changed it here since (their change wins) or deleted it (it stays deleted). A
/// session of the same book that overlaps it in time (one the reader typed for the same
/// sitting, or one they corrected) already holds that reading: nothing is added, so no
/// minute is counted twice.
public struct ImportedSessionPolicy: Sendable {
    public init() {}

    public func decide(_ incoming: ReadingSession, here: [ReadingSession]) -> ImportedSessionDecision {
        if let same = here.first(where: { $0.startedAt == incoming.startedAt }) {
            guard same.deletedAt == nil, same.version == 1,
                  incoming.endedAt > same.endedAt || incoming.pagesRead > same.pagesRead else { return .unchanged(same.id) }
            return .extend(same.id, endedAt: max(same.endedAt, incoming.endedAt), pagesRead: max(same.pagesRead, incoming.pagesRead))
        }
        if let overlapping = here.first(where: { $0.startedAt <= incoming.endedAt && incoming.startedAt <= $0.endedAt }) {
            return .unchanged(overlapping.id)
        }
        return .add
    }
}

/// What a session from another program's file does here (``ImportedSessionPolicy``).
public enum ImportedSessionDecision: Sendable, Equatable {
    /// The vault has no such reading: the session is recorded.
    case add
    /// The vault holds it (or deleted it, or holds the same sitting): nothing changes.
    case unchanged(EntityID)
    /// The session imported before is extended to the file's end and pages.
    case extend(EntityID, endedAt: Timestamp, pagesRead: Int)
}
