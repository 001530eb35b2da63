public import Journal
public import VaultStore

/// One conflict as `bmvault conflicts` shows it: the flagged note or copy, and both sides,
/// each with the device that wrote it.
public struct ConflictListing: Sendable {
    /// The conflict copy, or the note an edit brought back (nil when only resolving).
    public let listing: AnnotationListing?
    public let sides: ConflictSides
    /// Whether this device wrote the text in the note.
    public let noteWrittenHere: Bool
    /// Whether this device wrote the copy's text (or the deletion).
    public let otherWrittenHere: Bool

    init(listing: AnnotationListing?, sides: ConflictSides, thisDevice: String) {
        self.listing = listing
        self.sides = sides
        noteWrittenHere = sides.note.deviceID == thisDevice
        otherWrittenHere = sides.other.deviceID == thisDevice
    }

    /// The side this device wrote, when exactly one side was written here.
    public var mine: ConflictChoice? {
        guard noteWrittenHere != otherWrittenHere else { return nil }
        return noteWrittenHere ? .note : .other
    }
}

/// What `conflicts resolve --keep` keeps, in words that mean the same text on every device
/// (`note`, `copy`, `both`), or worked out on this device (`mine`: the side written here;
/// `theirs`: the side written elsewhere).
public enum ConflictKeep: String, Sendable, CaseIterable {
    /// The text in the note (a note brought back by an edit: keep it).
    case note
    /// The conflict copy's text, in the note.
    case copy
    /// Both texts: the copy becomes a note of its own (a note brought back: keep it).
    case both
    /// The side this device wrote: its text, or (a note brought back elsewhere) its deletion.
    case mine
    /// The side another device wrote.
    case theirs

    /// The side of `conflict` this word names.
    func choice(for conflict: ConflictListing) throws(VaultError) -> ConflictChoice {
        switch self {
        case .note: return .note
        case .both: return .both
        case .copy:
            guard conflict.sides.reason == .bothEdited else { throw .conflictSideUnclear(.noCopy) }
            return .other
        case .mine, .theirs:
            guard let mine = conflict.mine else {
                throw .conflictSideUnclear(conflict.noteWrittenHere ? .bothWrittenHere : .neitherWrittenHere)
            }
            if self == .mine { return mine }
            return mine == .note ? .other : .note
        }
    }
}
