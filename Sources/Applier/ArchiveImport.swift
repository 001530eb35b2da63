public import Journal
import SyncWire
import VaultCrypto
public import VaultStore

/// What an import did, or (a dry run) would have done.
public struct ImportSummary: Sendable, Equatable {
    /// Records the vault did not have.
    public var added = JournalCounts()
    /// Records merged into what the vault had (sessions never change).
    public var updated = JournalCounts()
    /// Records the vault already had as they are.
    public var unchanged = 0
    /// Conflicts this import made for the reader: conflict copies, and notes marked
    /// `edited-after-delete` (listed by `bmvault conflicts`).
    public var conflicts = 0
    /// Tags given to books, notes and quotes that did not show them.
    public var tagsGiven = 0
    /// Book files attached to their books (bmvault 0.17), and how many of them were stored
    /// from the archive's plain copies (the others' content was here already).
    public var filesAttached = 0
    public var filesStored = 0
    /// Book files the archive lists without a plain copy (an export without
    /// `--with-files`) whose content this vault does not hold: not attached.
    public var filesNotCarried = 0

    public init() {}
}

/// What one record did to the vault.
public enum ImportOutcome: Sendable, Equatable {
    case added, updated, unchanged, conflict
    /// The archive holds another record with this id already: malformed.
    case duplicate
}

/// One import in progress, inside the one transaction ``VaultStore/Store/importing(dryRun:_:)``
/// holds: each record, from an archive or from another program's file, meets the vault's
/// through the one merge (``JournalMerge``: its archive rules, its import rules), and the
/// decision is applied as a change made here, with its outbox operation like any other. A
/// record the vault has as it is writes nothing, so importing twice changes nothing.
public final class ArchiveImport {
    let transaction: ImportTransaction
    /// The tables of the import's one write transaction.
    var tables: Tables { transaction.tables }
    let merge = JournalMerge.vault
    var now: Timestamp { transaction.now }
    /// Ids met in this import, to refuse an archive holding one id twice (16 bytes each).
    private var seen = Set<UInt128>()
    /// Per book, SHA-256 of the kind, text, locator and comment of each of its notes and quotes
    /// (in memory only), for additions and conflict copies that are there already.
    private var texts: [EntityID: Set<String>] = [:]
    /// What the import reads of the vault to find books and notes again, and each book's
    /// presence as this import has left it so far: every session and note asks (a note
    /// brings its book back).
    let lookup: ImportLookup
    public internal(set) var summary = ImportSummary()
    /// The vault's book-file contents by SHA-256, once a book file is imported.
    var contents: [String: FileContent]?

    init(_ transaction: ImportTransaction) {
        self.transaction = transaction
        lookup = ImportLookup(tables: transaction.tables, now: transaction.now)
    }

    /// Gives a book, note or quote the archive's tags it does not show, as changes made here
    /// (an archive says nothing of tags taken away, so none is). A record that is not here
    /// live (deleted, or left out of the import) takes none.
    public func addTags(_ names: [String], to id: EntityID, kind: TaggedKind) throws(StoreError) {
        guard try tables.records.presence(of: id, kind: kind) == .live else { return }
        summary.tagsGiven += try tables.tags.add(names, to: id, kind: kind).count
    }

    /// Whether the vault (with what this import added so far) has the book.
    public func bookExists(_ id: EntityID) throws(StoreError) -> Bool {
        try presence(of: id) != .missing
    }

    // MARK: - Books

    public func add(_ incoming: Book) throws(StoreError) -> ImportOutcome {
        guard seen.insert(Self.key(incoming.id)).inserted else { return .duplicate }
        lookup.note(nil, of: incoming.id)   // merged: read again when next asked
        let local = try tables.books.local(incoming.id)
        switch merge.merge(archived: incoming, into: local) {
        case .unchanged:
            summary.unchanged += 1
            return .unchanged
        case .insert(let book):
            try tables.books.insert(book, outboxState: .pending)
            summary.added.books += 1
            return .added
        case .replaceUnreadable(let book):
            // What is here cannot be read; the archive's version can: it replaces it.
            try tables.books.replaceSealedMetadata(with: book)
            var parts = BookTable.BookParts.all(rewind: false)
            parts.rating = true
            parts.edition = !book.edition.isEmpty
            try tables.books.change(book.id, action: .update, parts: parts, requireLive: false) { here in
                here.progress = book.progress
                here.deletedAt = book.deletedAt
                here.readingLog = here.readingLog.union(book.readingLog)
            }
            summary.updated.books += 1
            return .updated
        case .change(let change):
            let wasDeleted = local.flatMap { if case .book(let version, _) = $0 { version.book.deletedAt != nil } else { nil } } ?? false
            let parts = BookTable.BookParts(metadata: change.metadataChanged, progress: change.progressMoved, rating: change.ratingChanged,
                                        edition: change.editionChanged)
            try tables.books.change(incoming.id, action: change.isDeleted && !wasDeleted ? .delete : .update,
                                              parts: parts, requireLive: false) { book in
                book.title = change.title
                book.authors = change.authors
                book.progress = change.progress
                book.rating = change.rating
                book.edition = change.edition
                book.readingLog = change.readingLog
                book.deletedAt = change.isDeleted ? (book.deletedAt ?? book.updatedAt) : nil
            }
            summary.updated.books += 1
            return .updated
        }
    }

    // MARK: - Sessions

    /// Adds a session the vault does not have. `bookKnown` false: its book is not (yet) here.
    public func add(_ incoming: ReadingSession) throws(StoreError) -> (outcome: ImportOutcome, bookKnown: Bool) {
        guard seen.insert(Self.key(incoming.id)).inserted else { return (.duplicate, true) }
        let bookKnown = try bookExists(incoming.bookID)
        var local: SessionVersion?
        if transaction.hadSessions {
            local = try tables.sessions.version(incoming.id)
        }
        guard case .add(let session) = merge.merge(archived: incoming, into: local) else {
            summary.unchanged += 1
            return (.unchanged, bookKnown)
        }
        try tables.sessions.insert(session, outboxState: .pending)
        summary.added.sessions += 1
        return (.added, bookKnown)
    }

    // MARK: - Notes and quotes

    /// Merges a note or quote. `bookKnown` false: its book is not (yet) here.
    public func add(_ incoming: Annotation) throws(StoreError) -> (outcome: ImportOutcome, bookKnown: Bool) {
        guard seen.insert(Self.key(incoming.id)).inserted else { return (.duplicate, true) }
        let bookKnown = try bookExists(incoming.bookID)
        // A vault that had no notes holds only those this import added, all seen: new.
        let local = transaction.hadAnnotations ? try tables.annotations.local(incoming.id) : nil
        let decision = try merge.merge(archived: incoming, into: local, book: try presence(of: incoming.bookID),
                                       newID: { .generate(at: now) }) { (text) throws(StoreError) in
            try texts(of: incoming.bookID).contains(Self.digest(text))
        }
        return (try apply(decision, to: incoming), bookKnown)
    }

    /// Adds a note or quote a reader wrote into a Markdown file, unless its book already
    /// holds that text (it was imported before).
    public func addIfNew(_ incoming: Annotation) throws(StoreError) -> (outcome: ImportOutcome, bookKnown: Bool) {
        let bookKnown = try bookExists(incoming.bookID)
        guard bookKnown else { return (.added, false) }
        let decision = try merge.merge(addition: incoming, book: try presence(of: incoming.bookID)) { (text) throws(StoreError) in
            try texts(of: incoming.bookID).contains(Self.digest(text))
        }
        if case .insert(let addition, _) = decision { seen.insert(Self.key(addition.id)) }
        return (try apply(decision, to: incoming), true)
    }

    /// Applies what the merge decided for `incoming`, as local changes.
    func apply(_ decision: ArchivedAnnotationDecision, to incoming: Annotation) throws(StoreError) -> ImportOutcome {
        switch decision {
        case .unchanged:
            summary.unchanged += 1
            return .unchanged
        case .insert(let annotation, let reviveBook):
            try tables.annotations.insert(annotation, outboxState: .pending)
            texts[annotation.bookID]?.insert(Self.digest(annotation))
            count(annotation.kind, updated: false)
            if reviveBook { try bringBack(annotation.bookID) }
            return .added
        case .replaceUnreadable(let annotation):
            try tables.annotations.replaceSealedText(with: annotation)
            try tables.annotations.change(annotation.id, action: .update, requireLive: false) { $0.deletedAt = annotation.deletedAt }
            count(annotation.kind, updated: true)
            return .updated
        case .change(let change, let isConflict, let reviveBook):
            try tables.annotations.change(incoming.id, action: change.isDeleted == true ? .delete : .update, requireLive: false) {
                change.apply(to: &$0)
            }
            if reviveBook { try bringBack(incoming.bookID) }
            if isConflict {
                summary.conflicts += 1
                return .conflict
            }
            count(incoming.kind, updated: true)
            return .updated
        case .addCopy(let copy):
            try tables.annotations.insert(copy, outboxState: .pending)
            texts[copy.bookID]?.insert(Self.digest(copy))
            summary.conflicts += 1
            return .conflict
        }
    }

    // MARK: - Helpers

    /// Brings back a book deleted here, for a live note the merge kept in it.
    private func bringBack(_ book: EntityID) throws(StoreError) {
        try tables.books.change(book, action: .update, parts: .metadata, requireLive: false) { $0.deletedAt = nil }
        lookup.note(.live, of: book)
        summary.updated.books += 1
    }

    func count(_ kind: AnnotationKind, updated: Bool) {
        switch (kind, updated) {
        case (.note, false): summary.added.notes += 1
        case (.quote, false): summary.added.quotes += 1
        case (.note, true): summary.updated.notes += 1
        case (.quote, true): summary.updated.quotes += 1
        }
    }

    func presence(of book: EntityID) throws(StoreError) -> RecordPresence {
        try lookup.presence(of: book)
    }

    /// The digests of every note and quote of a book (tombstones included: a conflict copy
    /// the reader discarded is not made again), read once per book.
    func texts(of bookID: EntityID) throws(StoreError) -> Set<String> {
        if let known = texts[bookID] { return known }
        var digests = Set<String>()
        try tables.annotations.forEach(AnnotationFilter(bookID: bookID, includeDeleted: true)) { result in
            if case .success(let annotation) = result { digests.insert(Self.digest(annotation)) }
        }
        texts[bookID] = digests
        return digests
    }

    static func digest(_ annotation: Annotation) -> String {
        var hasher = SHA256()
        hasher.update(Array("\(annotation.kind.rawValue)\u{0}\(annotation.locator?.text ?? "")\u{0}".utf8))
        hasher.update(Array(annotation.body.utf8))
        if let comment = annotation.comment {
            hasher.update([0])
            hasher.update(Array(comment.utf8))
        }
        return hasher.finalizeHex()
    }

    /// The 128 bits of an id (its 32 hex digits).
    private static func key(_ id: EntityID) -> UInt128 {
        var value: UInt128 = 0
        for byte in id.rawValue.utf8 where byte != UInt8(ascii: "-") {
            let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
            value = value << 4 | UInt128(digit)
        }
        return value
    }
}

extension Store {
    /// Merges an archive, or another program's file, into the vault in ONE write
    /// transaction (``importing(dryRun:_:)``): `produce` hands each record to the
    /// ``ArchiveImport`` it is given, and on return everything commits, or on any error
    /// nothing does. A `dryRun` does all the same work and rolls it back: its summary is
    /// exactly what the import would do.
    public func importArchive(dryRun: Bool, _ produce: (ArchiveImport) throws -> Void) throws -> ImportSummary {
        try importing(dryRun: dryRun) { transaction in
            let importer = ArchiveImport(transaction)
            try produce(importer)
            return importer.summary
        }
    }
}

// Not Sendable: one import, on the thread that runs its transaction.
@available(*, unavailable)
extension ArchiveImport: Sendable {}
