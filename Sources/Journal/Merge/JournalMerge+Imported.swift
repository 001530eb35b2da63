/// Records from another program's file (a Kindle's clippings, KOReader's sidecars, a
/// Goodreads export) meet the vault's: which book and which note they are, and what of them
/// a record here takes, each by its named rule. Each decision is applied as a change made
/// here, as the reader's own, so it syncs like any other.
extension JournalMerge {
    /// Which book here `source` is (``BookIdentityPolicy``), and the names to remember it by.
    public func identify<Target: ImportTarget>(_ source: ImportedBook, in target: Target) throws(Target.Failure) -> BookIdentity {
        try BookIdentityPolicy().identify(source, in: target)
    }

    /// The record here a note or quote keyed by `keys` was imported as before (``ImportKeyPolicy``).
    public func importedRecord<Target: ImportTarget>(keyedBy keys: [String], in target: Target) throws(Target.Failure) -> EntityID? {
        try ImportKeyPolicy().record(keyedBy: keys, in: target)
    }

    /// What a reading session from a file (KOReader's statistics) does among the sessions
    /// here of its book, deleted ones included (``ImportedSessionPolicy``).
    public func merge<Target: ImportTarget>(importedSession incoming: ReadingSession,
                                            in target: Target) throws(Target.Failure) -> ImportedSessionDecision {
        ImportedSessionPolicy().decide(incoming, here: try target.sessions(of: incoming.bookID))
    }

    /// What a live book takes of the reading a file records: a position further on
    /// (``ImportedPositionPolicy``), a rating if it has none (``ImportedRatingPolicy``), a
    /// status its log does not hold (``ImportedStatusPolicy``). A deleted book takes nothing.
    public func merge(imported reading: ImportedReading, into book: Book) -> ImportedReadingDecision {
        guard book.deletedAt == nil else { return .unchanged }
        let divergence = Divergence(localChanged: true, remoteChanged: true)
        func here<Value>(_ value: Value) -> Side<Value> { Side(value, clock: .origin) }
        var change = ImportedReadingChange()
        if let percent = reading.progress,
           case .winner(let kept, _) = ImportedPositionPolicy().resolve(local: here(book.progress), remote: here(percent), divergence: divergence),
           kept != book.progress {
            change.progress = kept
        }
        if let stars = reading.rating,
           case .winner(let kept, _) = ImportedRatingPolicy().resolve(local: here(book.rating), remote: here(stars), divergence: divergence),
           kept != book.rating {
            change.rating = kept
        }
        if let status = reading.status,
           case .winner(let kept, _) = ImportedStatusPolicy().resolve(local: here(book.readingLog),
                                                                      remote: here(ReadingLog(events: [status.event(at: .origin)])),
                                                                      divergence: divergence),
           kept != book.readingLog {
            change.status = status
        }
        return change == ImportedReadingChange() ? .unchanged : .change(change)
    }

    /// A note or quote from a file imported before, against the record it was imported as
    /// (``ReimportedTextPolicy``): its longer text or comment, or nothing. A record deleted
    /// here stays deleted.
    public func merge(reimported incoming: Annotation, into local: Annotation) -> ArchivedAnnotationDecision {
        guard local.deletedAt == nil else { return .unchanged }
        let clock = HybridTimestamp.origin
        let here = ReimportedTextPolicy.Text(body: local.body, comment: local.comment)
        let file = ReimportedTextPolicy.Text(body: incoming.body, comment: incoming.comment)
        guard case .winner(let kept, _) = ReimportedTextPolicy().resolve(
                  local: Side(here, clock: clock), remote: Side(file, clock: clock),
                  divergence: Divergence(localChanged: local.version != 1, remoteChanged: true)),
              kept != here else { return .unchanged }
        return .change(AnnotationChange(body: kept.body != here.body ? kept.body : nil,
                                         comment: kept.comment != here.comment ? .some(kept.comment) : nil),
                       isConflict: false, reviveBook: false)
    }
}
