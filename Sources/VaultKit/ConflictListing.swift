import Journal
public import VaultStore

/// One conflict as `bmvault conflicts` shows it: the flagged note or copy, and both sides,
/// each with the device that wrote it.
public struct ConflictListing: Sendable {
    /// The conflict copy, or the note an edit brought back.
    public let listing: AnnotationListing
    public let sides: ConflictSides
    /// Whether this device wrote the text in the note.
    public let noteWrittenHere: Bool
    /// Whether this device wrote the copy's text (or the deletion).
    public let otherWrittenHere: Bool
    /// The side `--keep mine` names here: nil when both sides, or neither, were written here.
    public let mine: ConflictChoice?

    init(listing: AnnotationListing, sides: ConflictSides, thisDevice: String) {
        self.listing = listing
        self.sides = sides
        noteWrittenHere = sides.note.deviceID == thisDevice
        otherWrittenHere = sides.other.deviceID == thisDevice
        mine = sides.side(writtenBy: thisDevice)
    }
}
