/// Records from an archive (or another format's importer) meet the vault's: each decision is
/// a change made here, as the reader's own, so it syncs like any other.
///
/// An archive has no clocks. Its `updatedAt` stands in for one: of two texts the vault's is
/// the later unless the archive holds the vault's very version (same number and time) with
/// another text, which makes the archive's an edit of it.
extension JournalMerge {
    /// A book from an archive: title and authors from the later change (``BookMetadataPolicy``),
    /// the furthest position (``ProgressPolicy``), both reading logs (``ReadingLogPolicy``),
    /// the archive's rating and edition when it has one and is the later (``RatingPolicy``,
    /// ``EditionPolicy``: an archive without one, as every archive before bmvault 0.10 and
    /// 0.11, never takes one away); not deleted while it has live notes here.
    public func merge(archived incoming: Book, into local: LocalBook?) -> ArchivedBookDecision {
        guard let local else { return .insert(incoming) }
        guard case .book(let here, let liveAnnotations) = local else { return .replaceUnreadable(incoming) }
        let (localClock, archiveClock) = Self.clocks(here: here.book.version, here.book.updatedAt,
                                                     archive: incoming.version, incoming.updatedAt,
                                                     archiveDiffers: here.book.title != incoming.title || here.book.authors != incoming.authors)
        let divergence = Divergence(localChanged: true, remoteChanged: true)
        guard case .winner(let metadata, _) = BookMetadataPolicy().resolve(
                  local: Side(here.book, clock: localClock), remote: Side(incoming, clock: archiveClock), divergence: divergence),
              case .winner(let positions, _) = ProgressPolicy().resolve(
                  local: Side(here.positions, clock: localClock),
                  remote: Side(.init(percent: incoming.progress, isRewind: false, clock: archiveClock), clock: archiveClock),
                  divergence: divergence),
              case .winner(let readingLog, _) = ReadingLogPolicy().resolve(
                  local: Side(here.book.readingLog, clock: localClock), remote: Side(incoming.readingLog, clock: archiveClock),
                  divergence: divergence) else {
            return .unchanged
        }
        // A rating and an edition come only from an archive that has one: the archive's, when
        // it differs and its policy finds it the later; else the vault's.
        let (localPart, archivePart) = Self.clocks(here: here.book.version, here.book.updatedAt,
                                                   archive: incoming.version, incoming.updatedAt, archiveDiffers: true)
        func later<Policy: ConflictPolicy>(_ policy: Policy, here: Policy.Value, archived: Policy.Value,
                                           given: Bool) -> Policy.Value where Policy.Value: Equatable {
            guard given, archived != here,
                  case .winner(let winner, _) = policy.resolve(local: Side(here, clock: localPart), remote: Side(archived, clock: archivePart),
                                                               divergence: divergence) else { return here }
            return winner
        }
        let rating = later(RatingPolicy(), here: here.book.rating, archived: incoming.rating, given: incoming.rating != nil)
        let edition = later(EditionPolicy(), here: here.book.edition, archived: incoming.edition, given: !incoming.edition.isEmpty)
        let position = positions.current
        let wasDeleted = here.book.deletedAt != nil
        let isDeleted = metadata.deletedAt != nil && (wasDeleted || liveAnnotations == 0)
        let metadataChanged = metadata.title != here.book.title || metadata.authors != here.book.authors || isDeleted != wasDeleted
        let progressMoved = position.percent != here.book.progress
        let ratingChanged = rating != here.book.rating
        let editionChanged = edition != here.book.edition
        guard metadataChanged || progressMoved || ratingChanged || editionChanged || readingLog != here.book.readingLog else {
            return .unchanged
        }
        return .change(BookChange(title: metadata.title, authors: metadata.authors, progress: position.percent,
                                  isDeleted: isDeleted, metadataChanged: metadataChanged, progressMoved: progressMoved,
                                  rating: rating, ratingChanged: ratingChanged, edition: edition, editionChanged: editionChanged,
                                  readingLog: readingLog))
    }

    /// A reading session from an archive: added when this vault has none of its id. A
    /// session here, deleted or not, is never changed by an archive: an archive carries no
    /// clock to tell which change came last (``SessionEditPolicy``).
    public func merge(archived incoming: ReadingSession, into local: SessionVersion?) -> ArchivedSessionDecision {
        local == nil && incoming.deletedAt == nil ? .add(incoming) : .unchanged
    }

    /// A note or quote from an archive, against the one here as the reader sees it
    /// (``NoteAndQuoteTextPolicy``). New here: added (see ``merge(newArchived:book:)``); here
    /// but unreadable: the archive's replaces it. The same text with only a deletion between
    /// them: a tombstone of a later version deletes, an older live copy does not undelete.
    /// Another text: an edit of the vault's very version replaces it; otherwise both stand
    /// (the vault's in the note, the archive's in a new conflict copy, unless the book holds
    /// that text already, `bookHolds`), and a deletion on one side against the other's text
    /// keeps the text, marked `edited-after-delete`. A note that comes back brings its book
    /// back if the book was deleted here (not if purged), as a new one does. The archive's
    /// book and kind (a note moved, or made a quote) are taken with its text, or alone from a
    /// later version of the same text.
    public func merge<Failure: Error>(archived incoming: Annotation, into here: LocalAnnotation?, book: RecordPresence,
                                      newID: () -> EntityID,
                                      bookHolds: (Annotation) throws(Failure) -> Bool) throws(Failure) -> ArchivedAnnotationDecision {
        let local: Annotation
        switch here {
        case nil: return merge(newArchived: incoming, book: book)
        case .unreadable?: return .replaceUnreadable(incoming)
        case .derivedCopy(let copy)?: local = copy
        case .record(let versions)?: local = present(versions).note
        }
        let localDeleted = local.deletedAt != nil
        let incomingDeleted = incoming.deletedAt != nil
        // The archive's book is taken only when it is here (an archive brings its books first);
        // its kind always goes with its text and locator (a quote keeps one).
        let placed = book != .missing
        if local.hasSameText(as: incoming) {
            let later = incoming.version > local.version
            let deletes = !localDeleted && incomingDeleted && later
            let moves = later && placed && incoming.bookID != local.bookID
            let retypes = later && incoming.kind != local.kind
            guard deletes || moves || retypes else { return .unchanged }
            return .change(AnnotationChange(isDeleted: deletes ? true : nil, bookID: moves ? incoming.bookID : nil,
                                            kind: retypes ? incoming.kind : nil),
                           isConflict: false, reviveBook: false)
        }
        let (localClock, archiveClock) = Self.clocks(here: local.version, local.updatedAt, archive: incoming.version,
                                                     incoming.updatedAt, archiveDiffers: true)
        let localClean = local.version == incoming.version && local.updatedAt == incoming.updatedAt
        switch NoteAndQuoteTextPolicy().resolve(local: Side(local, clock: localClock, isDeleted: localDeleted),
                                                remote: Side(incoming, clock: archiveClock, isDeleted: incomingDeleted),
                                                divergence: Divergence(localChanged: !localClean, remoteChanged: true)) {
        case .winner(let winner, _):
            guard winner == incoming else { return .unchanged }
            return .change(AnnotationChange(body: incoming.body, locator: .some(incoming.locator), comment: .some(incoming.comment),
                                            isDeleted: incomingDeleted == localDeleted ? nil : incomingDeleted,
                                            bookID: placed ? incoming.bookID : nil, kind: incoming.kind),
                           isConflict: false, reviveBook: localDeleted && !incomingDeleted && book == .deleted)
        case .needsUser(_, let theirs, _) where localDeleted:
            // Deleted here, another text in the archive: it comes back, marked.
            return .change(AnnotationChange(body: theirs.body, locator: .some(theirs.locator), comment: .some(theirs.comment), isDeleted: false,
                                            conflictReason: .some(.editedAfterDelete), kind: theirs.kind), isConflict: true,
                           reviveBook: book == .deleted)
        case .needsUser where incomingDeleted:
            // Changed here, deleted (with another text) in the archive: it stays, marked.
            guard local.conflictReason == nil else { return .unchanged }
            return .change(AnnotationChange(conflictReason: .some(.editedAfterDelete)), isConflict: true, reviveBook: false)
        case .needsUser(_, let theirs, _):
            guard try !bookHolds(theirs) else { return .unchanged }
            return .addCopy(Annotation(id: newID(), bookID: local.bookID, kind: theirs.kind, body: theirs.body,
                                       locator: theirs.locator, createdAt: theirs.updatedAt, updatedAt: theirs.updatedAt,
                                       deletedAt: nil, version: 1, conflictOf: local.id, conflictReason: .bothEdited,
                                       comment: theirs.comment))
        }
    }

    /// A note or quote from an archive that the vault does not have: added as it is. A live
    /// one for a book deleted here brings the book back, as in sync (unless its title was
    /// purged).
    public func merge(newArchived incoming: Annotation, book: RecordPresence) -> ArchivedAnnotationDecision {
        .insert(incoming, reviveBook: incoming.deletedAt == nil && book == .deleted)
    }

    /// A note a reader wrote into a Markdown file (no id of its own yet): added unless its
    /// book holds that text already (it was imported before).
    public func merge<Failure: Error>(addition incoming: Annotation, book: RecordPresence,
                                      bookHolds: (Annotation) throws(Failure) -> Bool) throws(Failure) -> ArchivedAnnotationDecision {
        try bookHolds(incoming) ? .unchanged : merge(newArchived: incoming, book: book)
    }

    /// Clocks for the policies from what an archive has, `updatedAt`: the vault wins a tie,
    /// unless the archive holds another text at the vault's very version and time (an edit
    /// of it), which then counts as just after the vault's.
    private static func clocks(here localVersion: Int64, _ localUpdated: Timestamp, archive archiveVersion: Int64,
                               _ archiveUpdated: Timestamp, archiveDiffers: Bool) -> (local: HybridTimestamp, archive: HybridTimestamp) {
        let isEdit = archiveDiffers && localVersion == archiveVersion && localUpdated == archiveUpdated
        return (HybridTimestamp(wallMilliseconds: localUpdated.millisecondsSince1970, counter: 1, deviceID: "vault"),
                HybridTimestamp(wallMilliseconds: archiveUpdated.millisecondsSince1970, counter: isEdit ? 2 : 0, deviceID: "archive"))
    }
}
