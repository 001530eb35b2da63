/// A record's version as another device sent it.
public enum RecordVersion: Hashable, Sendable {
    case book(BookVersion)
    case session(SessionVersion)
    case annotation(AnnotationVersion)
    case tagging(TaggingVersion)
    /// A book file attached to a book (bmvault 0.18).
    case bookFile(BookFileVersion)
}

/// Where a merge's decisions land: the one applier, inside one write transaction. It says what is
/// here, and applies what ``JournalMerge`` decided, exactly as decided.
public protocol MergeTarget {
    associatedtype Failure: Error
    func bookPresence(_ id: EntityID) throws(Failure) -> RecordPresence
    func localBook(_ id: EntityID) throws(Failure) -> LocalBook?
    func localSession(_ id: EntityID) throws(Failure) -> SessionVersion?
    func localAnnotation(_ id: EntityID) throws(Failure) -> LocalAnnotation?
    func localTagging(_ id: EntityID) throws(Failure) -> TaggingVersion?
    /// The book file (attachment) `id`, removed or not, or nil when it is not here.
    func localBookFile(_ id: EntityID) throws(Failure) -> BookFileVersion?
    /// Whether the book or note `tagging` is on is here, and in what state.
    func taggedRecordPresence(_ tagging: Tagging) throws(Failure) -> RecordPresence
    func apply(_ decision: BookDecision) throws(Failure)
    func apply(_ decision: SessionDecision) throws(Failure)
    func apply(_ decision: AnnotationDecision, to id: EntityID) throws(Failure)
    func apply(_ decision: TaggingDecision) throws(Failure)
    func apply(_ decision: BookFileDecision) throws(Failure)
}

extension JournalMerge {
    /// What merging one record did.
    public enum Outcome: Hashable, Sendable {
        /// It was here already, or lost to what is here.
        case unchanged
        /// It changed the record here; `conflicts` it left for the reader.
        case applied(conflicts: Int)
        /// It needs a record that has not arrived yet: try again later.
        case deferred
    }

    /// Merges one record from another device into `target`: reads what is there, decides,
    /// and has the target apply the decision.
    public func apply<Target: MergeTarget>(_ record: RecordVersion, to target: Target) throws(Target.Failure) -> Outcome {
        switch record {
        case .book(let incoming):
            let decision = merge(incoming, into: try target.localBook(incoming.book.id))
            try target.apply(decision)
            return decision == .unchanged ? .unchanged : .applied(conflicts: 0)
        case .session(let incoming):
            let decision = merge(incoming, into: try target.localSession(incoming.session.id), book: try target.bookPresence(incoming.session.bookID))
            try target.apply(decision)
            switch decision {
            case .unchanged: return .unchanged
            case .store: return .applied(conflicts: 0)
            case .deferred: return .deferred
            }
        case .annotation(let incoming):
            let decision = merge(incoming, into: try target.localAnnotation(incoming.annotation.id),
                                 book: try target.bookPresence(incoming.annotation.bookID))
            try target.apply(decision, to: incoming.annotation.id)
            switch decision {
            case .unchanged: return .unchanged
            case .deferred: return .deferred
            case .store(_, _, _, let conflicts): return .applied(conflicts: conflicts)
            }
        case .tagging(let incoming):
            let decision = merge(incoming, into: try target.localTagging(incoming.tagging.id),
                                 record: try target.taggedRecordPresence(incoming.tagging))
            try target.apply(decision)
            switch decision {
            case .unchanged: return .unchanged
            case .store: return .applied(conflicts: 0)
            case .deferred: return .deferred
            }
        case .bookFile(let incoming):
            let decision = merge(incoming, into: try target.localBookFile(incoming.file.id),
                                 book: try target.bookPresence(incoming.file.bookID))
            try target.apply(decision)
            switch decision {
            case .unchanged: return .unchanged
            case .store: return .applied(conflicts: 0)
            case .deferred: return .deferred
            }
        }
    }
}
