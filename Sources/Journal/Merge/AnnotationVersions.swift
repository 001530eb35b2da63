/// The versions of one note or quote that stand together on a device: every version it
/// has received that no other one supersedes.
///
/// Usually there is one. There are more after devices changed the note without seeing
/// each other's change; ``NoteAndQuoteTextPolicy/present(_:conflictCopyID:)`` then shows
/// one in the note and keeps the others' words as conflict copies. Which versions stand
/// together depends only on which versions a device has received, never on the order they
/// came in, so devices that have received the same versions show the same note, the same
/// copies and the same mark.
public struct AnnotationVersions: Hashable, Sendable {
    /// In clock order; none includes another.
    public private(set) var versions: [AnnotationVersion]

    public init(_ version: AnnotationVersion) {
        versions = [version]
    }

    /// Versions as stored; any that another one supersedes is left out.
    /// `versions` must not be empty.
    public init(_ versions: [AnnotationVersion]) {
        precondition(!versions.isEmpty, "a note has at least one version")
        self.versions = []
        for version in versions.sorted(by: { $0.clock < $1.clock }) { receive(version) }
    }

    /// Every version written into these: the history a new local write supersedes.
    public var history: VersionVector {
        versions.dropFirst().reduce(versions[0].history) { $0.union($1.history) }
    }

    /// Whether the version written at `clock` is one of these or superseded by one.
    public func includes(_ clock: HybridTimestamp) -> Bool {
        versions.contains { $0.history.includes(clock) }
    }

    /// Takes in a version written elsewhere: the versions it supersedes leave, and it
    /// stands beside the ones it did not see. Returns false, changing nothing, when it is
    /// here already or superseded by a version here.
    @discardableResult
    public mutating func receive(_ version: AnnotationVersion) -> Bool {
        guard !includes(version.clock) else { return false }
        versions.removeAll { version.history.includes($0.clock) }
        let index = versions.firstIndex { $0.clock > version.clock } ?? versions.endIndex
        versions.insert(version, at: index)
        return true
    }

    /// A change made here, at `clock`: it supersedes every version here, so the reader's
    /// write settles the note (conflict copies must have been kept as notes of their own
    /// first; see the Store's local writes).
    public func write(_ annotation: Annotation, at clock: HybridTimestamp) -> AnnotationVersion {
        AnnotationVersion(annotation, clock: clock, history: history)
    }
}
