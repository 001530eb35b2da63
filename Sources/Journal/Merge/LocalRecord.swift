/// What a merge needs to know about a book here.
public enum LocalBook: Sendable {
    /// Its state and clocks, and how many live notes and quotes it has (a book is never
    /// deleted under notes someone still has).
    case book(BookVersion, liveAnnotations: Int)
    /// Its sealed fields do not open.
    case unreadable
}

/// Whether a record another depends on is here, and in what state: the book of a note or
/// session, the book or note a tag is on.
public enum RecordPresence: Sendable, Equatable {
    case missing
    case live
    case deleted
    /// Deleted, with its content (a book's title and authors, a note's text) purged: it
    /// cannot be brought back.
    case purged
}

/// What a merge needs to know about a note or quote here.
public enum LocalAnnotation: Sendable {
    /// A record of its own, with the versions that stand together in it.
    case record(AnnotationVersions)
    /// A conflict copy shown from a version of another note; not a record of its own yet.
    case derivedCopy(Annotation)
    /// Its sealed fields do not open.
    case unreadable
}
