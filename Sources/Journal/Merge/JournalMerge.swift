/// The one place that decides how a record from elsewhere meets the one here: a version
/// from another device (sync), or a record from an archive (import, and every importer of
/// another format). It reads nothing and writes nothing: given both sides, it returns a
/// decision, which the one applier (module `Applier`) applies. Each kind of data is decided by its named policy
/// (`Conflicts/`): ``NoteAndQuoteTextPolicy``, ``BookMetadataPolicy``, ``ProgressPolicy``,
/// ``SessionEditPolicy``, ``RatingPolicy``, ``ReadingLogPolicy``, ``EditionPolicy``, ``TagPolicy``,
/// ``BookFileAttachmentPolicy``, ``FileLocatorPolicy``.
public struct JournalMerge: Sendable {
    /// The id of the conflict copy that shows a record's version written at a clock: the
    /// same on every device (derived, by the Store, from a hash of both).
    public typealias ConflictCopyID = @Sendable (EntityID, HybridTimestamp) -> EntityID

    let conflictCopyID: ConflictCopyID

    public init(conflictCopyID: @escaping ConflictCopyID) {
        self.conflictCopyID = conflictCopyID
    }

    /// How the versions of a note stand together are shown.
    public func present(_ versions: AnnotationVersions) -> AnnotationPresentation {
        NoteAndQuoteTextPolicy().present(versions, conflictCopyID: conflictCopyID)
    }

    // MARK: - From another device

    /// A book's version from another device. Title, authors and deletion follow the later
    /// metadata clock, the position the progress policy over both sides' recorded positions
    /// (so a position set elsewhere never undoes a retitle here), the rating and the edition
    /// each its own clock,
    /// and the reading logs are joined (``ReadingLogPolicy``). A book is not deleted
    /// while it has live notes here; a purged deletion brings no title, so the book keeps
    /// its own.
    public func merge(_ incoming: BookVersion, into local: LocalBook?) -> BookDecision {
        guard case .book(let here, let liveAnnotations)? = local else {
            // New here, or unreadable here while the other device's version opens: take it.
            return local == nil ? .insert(incoming) : .update(incoming)
        }
        guard case .winner(let metadata, _) = BookMetadataPolicy().resolve(
                  local: Side(here.book, clock: here.metadataClock), remote: Side(incoming.book, clock: incoming.metadataClock),
                  divergence: Divergence(localChanged: true, remoteChanged: true)),
              case .winner(let positions, _) = ProgressPolicy().resolve(
                  local: Side(here.positions, clock: here.clock), remote: Side(incoming.positions, clock: incoming.clock),
                  divergence: Divergence(localChanged: true, remoteChanged: true)),
              case .winner(let rating, _) = RatingPolicy().resolve(
                  local: Side(here.book.rating, clock: here.ratingClock), remote: Side(incoming.book.rating, clock: incoming.ratingClock),
                  divergence: Divergence(localChanged: true, remoteChanged: true)),
              case .winner(let readingLog, _) = ReadingLogPolicy().resolve(
                  local: Side(here.book.readingLog, clock: here.clock), remote: Side(incoming.book.readingLog, clock: incoming.clock),
                  divergence: Divergence(localChanged: true, remoteChanged: true)),
              case .winner(let edition, _) = EditionPolicy().resolve(
                  local: Side(here.book.edition, clock: here.editionClock), remote: Side(incoming.book.edition, clock: incoming.editionClock),
                  divergence: Divergence(localChanged: true, remoteChanged: true)) else { return .unchanged }
        var merged = here
        if !metadata.title.isEmpty || metadata.deletedAt == nil {
            merged.book.title = metadata.title
            merged.book.authors = metadata.authors
        }
        merged.book.deletedAt = metadata.deletedAt == nil || liveAnnotations > 0 ? nil : metadata.deletedAt
        merged.metadataClock = max(here.metadataClock, incoming.metadataClock)
        merged.positions = positions
        merged.book.progress = positions.current.percent
        merged.book.rating = rating
        merged.ratingClock = max(here.ratingClock, incoming.ratingClock)
        merged.book.readingLog = readingLog
        merged.book.edition = edition
        merged.editionClock = max(here.editionClock, incoming.editionClock)
        merged.book.version = max(here.book.version, incoming.book.version)
        merged.book.updatedAt = max(here.book.updatedAt, incoming.book.updatedAt)
        merged.clock = max(here.clock, incoming.clock)
        return merged == here ? .unchanged : .update(merged)
    }

    /// A reading session from another device: new here, it is kept (a union by id); here
    /// already, the later change wins (``SessionEditPolicy``). One whose book has not
    /// arrived waits for it.
    public func merge(_ incoming: SessionVersion, into local: SessionVersion?, book: RecordPresence) -> SessionDecision {
        guard let local else { return book == .missing ? .deferred : .store(incoming) }
        guard case .winner(let kept, _) = SessionEditPolicy().resolve(
                  local: Side(local, clock: local.clock, isDeleted: local.session.deletedAt != nil),
                  remote: Side(incoming, clock: incoming.clock, isDeleted: incoming.session.deletedAt != nil),
                  divergence: Divergence(localChanged: false, remoteChanged: true)), kept != local else { return .unchanged }
        return .store(kept)
    }

    /// A note's or quote's version from another device: it joins the versions here
    /// (superseding those it saw, standing beside those it did not), and the result is
    /// shown by ``NoteAndQuoteTextPolicy``. A live note for a book deleted here brings the
    /// book back, unless its title was purged. A note whose book has not arrived waits for it
    /// (a note moved to a book made on a third device, too).
    public func merge(_ incoming: AnnotationVersion, into local: LocalAnnotation?, book: RecordPresence) -> AnnotationDecision {
        // Its book has not arrived (every book does, if only as a tombstone): wait for it,
        // even for a deletion, so this device keeps the same tombstone as every other.
        if book == .missing { return .deferred }
        let versions: AnnotationVersions
        var before: AnnotationPresentation?
        switch local {
        case nil:
            versions = AnnotationVersions(incoming)
        case .unreadable?, .derivedCopy?:
            // What is here cannot be read, or is only shown from another note's version
            // (another device kept that copy as a note of its own): this version replaces it.
            versions = AnnotationVersions(incoming)
        case .record(let here)?:
            var merged = here
            guard merged.receive(incoming) else { return .unchanged }
            before = present(here)
            versions = merged
        }
        let after = present(versions)
        let added = after.copies.filter { copy in !(before?.copies.contains { $0.annotation.id == copy.annotation.id } ?? false) }.count
        let marked = after.note.conflictReason == .editedAfterDelete && before?.note.conflictReason != .editedAfterDelete ? 1 : 0
        return .store(versions, after, reviveBook: after.note.deletedAt == nil && book == .deleted,
                      newConflicts: added + (before == nil ? 0 : marked))
    }

    /// A tag from another device: new here, it is kept; here already, its later change
    /// wins (``TagPolicy``). One whose book or note has not arrived waits for it; one on a
    /// record purged here keeps no name (like the record's own content).
    public func merge(_ incoming: TaggingVersion, into local: TaggingVersion?, record: RecordPresence) -> TaggingDecision {
        if record == .missing { return .deferred }
        var kept = incoming
        if let local {
            guard case .winner(let winner, _) = TagPolicy().resolve(
                      local: Side(local.tagging, clock: local.clock, isDeleted: local.tagging.isRemoved),
                      remote: Side(incoming.tagging, clock: incoming.clock, isDeleted: incoming.tagging.isRemoved),
                      divergence: Divergence(localChanged: false, remoteChanged: true)) else { return .unchanged }
            kept = TaggingVersion(winner, clock: max(local.clock, incoming.clock))
        }
        if record == .purged { kept.tagging.name = "" }
        return kept == local ? .unchanged : .store(kept)
    }

    /// A book file from another device: new here, it is kept; here already, whether it is
    /// attached (``BookFileAttachmentPolicy``) and the reader's place in it
    /// (``FileLocatorPolicy``) each follow their own later change, and a key the content
    /// lacked here is taken (the content is otherwise the same everywhere). One whose book
    /// has not arrived waits for it; one for a book purged here is not kept (its files went
    /// with it).
    public func merge(_ incoming: BookFileVersion, into local: BookFileVersion?, book: RecordPresence) -> BookFileDecision {
        switch book {
        case .missing: return .deferred
        case .purged: return .unchanged
        case .live, .deleted: break
        }
        guard let local else { return .store(incoming) }
        guard case .winner(let removedAt, _) = BookFileAttachmentPolicy().resolve(
                  local: Side(local.file.removedAt, clock: local.clock, isDeleted: local.file.isRemoved),
                  remote: Side(incoming.file.removedAt, clock: incoming.clock, isDeleted: incoming.file.isRemoved),
                  divergence: Divergence(localChanged: false, remoteChanged: true)),
              case .winner(let locator, _) = FileLocatorPolicy().resolve(
                  local: Side(local.file.locator, clock: local.locatorClock), remote: Side(incoming.file.locator, clock: incoming.locatorClock),
                  divergence: Divergence(localChanged: false, remoteChanged: true)) else { return .unchanged }
        var merged = local
        merged.file.removedAt = removedAt
        merged.file.locator = locator
        if merged.file.content.sealedKey == nil { merged.file.content.sealedKey = incoming.file.content.sealedKey }
        merged.file.version = max(local.file.version, incoming.file.version)
        merged.file.updatedAt = max(local.file.updatedAt, incoming.file.updatedAt)
        merged.clock = max(local.clock, incoming.clock)
        merged.locatorClock = max(local.locatorClock, incoming.locatorClock)
        return merged == local ? .unchanged : .store(merged)
    }
}
