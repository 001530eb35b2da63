/// One version of a note or quote: what one device wrote, the clock it wrote it at (which
/// no other version has), and every version it supersedes.
public struct AnnotationVersion: Hashable, Sendable {
    /// The state this version wrote: text, locator, deletion, dates, version number, and
    /// the mark its writer kept (`edited-after-delete` stays until the reader resolves it).
    public var annotation: Annotation
    public let clock: HybridTimestamp
    /// The versions this one supersedes, and itself.
    public let history: VersionVector

    public init(_ annotation: Annotation, clock: HybridTimestamp, history: VersionVector) {
        self.annotation = annotation
        self.clock = clock
        self.history = history.union(VersionVector(clock))
    }

    public var isDeleted: Bool { annotation.deletedAt != nil }

    /// This version as a policy sees it.
    var side: Side<Annotation> { Side(annotation, clock: clock, isDeleted: isDeleted) }
}
