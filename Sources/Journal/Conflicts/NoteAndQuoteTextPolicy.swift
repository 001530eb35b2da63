/// Notes and quotes: the reader's own words, so no edit is ever dropped silently.
///
/// The reference `LocalEditsWin` policy, with "changed" meaning "has a version the other
/// side has not seen":
/// (a) local has unsynced edits, remote unchanged → local wins;
/// (b) both changed → needs the user: both versions stand, and the reader is told;
/// (c) local clean, remote changed → remote wins;
/// (d) neither changed → local is current.
/// Delete against edit: the edit survives (a deleted note comes back) and the reader is told.
/// Both changed to the same text, or both deleted: no conflict, the later version is shown.
public struct NoteAndQuoteTextPolicy: ConflictPolicy {
    public typealias Value = Annotation

    public init() {}

    public func resolve(local: Side<Annotation>, remote: Side<Annotation>, divergence: Divergence) -> Resolution<Annotation> {
        switch (divergence.localChanged, divergence.remoteChanged) {
        case (true, true):
            if local.isDeleted && remote.isDeleted {
                // The later tombstone, on every device, so both keep the same one.
                return .winner(local.clock >= remote.clock ? local.value : remote.value, why: "deleted on both devices")
            }
            if local.isDeleted {
                return .needsUser(local: local.value, remote: remote.value, why: "deleted here, edited on another device")
            }
            if remote.isDeleted {
                return .needsUser(local: local.value, remote: remote.value, why: "edited here, deleted on another device")
            }
            if local.value.hasSameText(as: remote.value) {
                return .winner(local.clock >= remote.clock ? local.value : remote.value, why: "both changed to the same text")
            }
            return .needsUser(local: local.value, remote: remote.value, why: "both changed since the last sync")
        case (true, false):
            return .winner(local.value, why: "local has unsynced edits, remote is older")
        case (false, true):
            return .winner(remote.value, why: "remote is newer, local is clean")
        case (false, false):
            return .winner(local.value, why: "local is current")
        }
    }

    /// How versions that stand together are shown, the same on every device: the shown
    /// version is a live one if there is any (an edit beats a deletion), else the later;
    /// among live ones, the later by clock. Every other version is resolved against it as
    /// concurrent: a different live text becomes a conflict copy (one per distinct text, the
    /// latest version's, with an id derived from the record and that version's clock); a
    /// deletion the shown edit did not see marks the note `edited-after-delete`.
    public func present(_ standing: AnnotationVersions,
                        conflictCopyID: (EntityID, HybridTimestamp) -> EntityID) -> AnnotationPresentation {
        let versions = standing.versions
        let shown = versions.max { ($0.isDeleted ? 0 : 1, $0.clock) < ($1.isDeleted ? 0 : 1, $1.clock) } ?? versions[0]
        var deletionUnseen = false
        var copies: [(text: [String?], version: AnnotationVersion)] = []
        for version in versions where version.clock != shown.clock {
            switch resolve(local: shown.side, remote: version.side, divergence: Divergence(localChanged: true, remoteChanged: true)) {
            case .winner:
                continue
            case .needsUser where version.isDeleted:
                deletionUnseen = true
            case .needsUser:
                let text = [version.annotation.body, version.annotation.locator?.text, version.annotation.comment]
                if let index = copies.firstIndex(where: { $0.text == text }) {
                    copies[index].version = version   // the later, as versions are in clock order
                } else {
                    copies.append((text, version))
                }
            }
        }
        var note = shown.annotation
        if deletionUnseen && !shown.isDeleted { note.conflictReason = .editedAfterDelete }
        return AnnotationPresentation(note: note, shown: shown, copies: copies.map { _, version in
            let source = version.annotation
            return ConflictCopy(annotation: Annotation(id: conflictCopyID(source.id, version.clock), bookID: source.bookID,
                                                       kind: source.kind, body: source.body, locator: source.locator,
                                                       createdAt: source.updatedAt, updatedAt: source.updatedAt, deletedAt: nil,
                                                       version: 1, conflictOf: source.id, conflictReason: .bothEdited,
                                                       comment: source.comment),
                                clock: version.clock)
        })
    }
}

/// What the reader sees of a note or quote whose versions stand together.
public struct AnnotationPresentation: Hashable, Sendable {
    /// The record as shown, with its mark.
    public let note: Annotation
    /// The version the note shows (its clock and history are the record's).
    public let shown: AnnotationVersion
    /// The other texts, as conflict copies (`conflictOf` the record), derived from the
    /// versions: the same ids and dates on every device.
    public let copies: [ConflictCopy]
}

/// A conflict copy derived from a version of a note: shown until a device keeps it as a
/// note of its own (whose one version is then exactly this, at `clock`).
public struct ConflictCopy: Hashable, Sendable {
    public let annotation: Annotation
    /// The clock of the version it shows.
    public let clock: HybridTimestamp
}
