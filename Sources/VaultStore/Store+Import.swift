public import Journal
import VaultCrypto

/// What an import did, or (a dry run) would have done.
public struct ImportSummary: Sendable, Equatable {
    public struct Kinds: Sendable, Equatable {
        public var books = 0
        public var sessions = 0
        public var notes = 0
        public var quotes = 0

        public init(books: Int = 0, sessions: Int = 0, notes: Int = 0, quotes: Int = 0) {
            self.books = books
            self.sessions = sessions
            self.notes = notes
            self.quotes = quotes
        }

        public var total: Int { books + sessions + notes + quotes }
    }

    /// Records the vault did not have.
    public var added = Kinds()
    /// Records merged into what the vault had (sessions never change).
    public var updated = Kinds()
    /// Records the vault already had as they are.
    public var unchanged = 0
    /// Conflicts this import made for the reader: conflict copies, and notes marked
    /// `edited-after-delete` (listed by `bmvault conflicts`).
    public var conflicts = 0

    public init() {}
}

/// What one record did to the vault.
public enum ImportOutcome: Sendable, Equatable {
    case added, updated, unchanged, conflict
    /// The archive holds another record with this id already: malformed.
    case duplicate
}

/// One import in progress: merges archive records into the vault through the conflict
/// policies sync uses, inside the transaction ``Store/importArchive(dryRun:_:)`` holds.
/// Every change writes its outbox operation like a change made here; a record the vault
/// has as it is writes nothing, so importing twice changes nothing.
///
/// - A new id is inserted as it is (dates, version, tombstone, conflict marks).
/// - A book: title and authors from the later `updatedAt` (``BookMetadataPolicy``; the
///   archive wins a tie only if it is an edit of the vault's very version), progress the
///   furthest (``ProgressPolicy``).
/// - A session: a union by id (``SessionUnionPolicy``).
/// - A note or quote whose text differs: ``NoteAndQuoteTextPolicy``, where the vault
///   "changed" unless it is at the very version (and time) the archive holds, and the archive
///   changed since its text differs. So an edit of an unchanged note is an update; otherwise
///   both texts survive: the vault's in the note, the archive's in a new conflict copy (none
///   when the book already holds that text, so re-importing adds none); one side deleted and
///   the other changed brings the note back, marked `edited-after-delete`.
/// - The same text with only a deletion on one side: a tombstone of a later version deletes
///   the note; a live note of an older one does not bring a deleted note back.
public final class ArchiveImport {
    private unowned let store: Store
    private let cipher: RecordCipher
    private let now: Timestamp
    /// Ids met in this import, to refuse an archive holding one id twice (16 bytes each).
    private var seen = Set<UInt128>()
    private var knownBooks = Set<EntityID>()
    /// Per book, SHA-256 of the kind, text and locator of each of its notes and quotes
    /// (in memory only), for additions and conflict copies that are there already.
    private var texts: [EntityID: Set<String>] = [:]
    /// Whether each book is deleted, as this import has left it so far: every note added
    /// asks (a note brings its book back). Forgotten whenever the import merges that book.
    private var deletedBooks: [EntityID: Bool] = [:]
    /// A vault that had no notes (or sessions) when the import began holds one now only if
    /// this import added it, and ``seen`` has every id it added: an id not seen is new,
    /// without looking it up. (Restoring an archive into a new vault is the common case.)
    private let hadAnnotations: Bool
    private let hadSessions: Bool
    public private(set) var summary = ImportSummary()

    init(store: Store, cipher: RecordCipher, now: Timestamp) throws(StoreError) {
        self.store = store
        self.cipher = cipher
        self.now = now
        hadAnnotations = try Self.hasRows(store, "SELECT EXISTS (SELECT 1 FROM annotation)")
        hadSessions = try Self.hasRows(store, "SELECT EXISTS (SELECT 1 FROM reading_session)")
    }

    private static func hasRows(_ store: Store, _ sql: String) throws(StoreError) -> Bool {
        var exists = false
        try store.database.forEachRow(sql) { row in exists = row.int64(0) != 0 }
        return exists
    }

    /// Whether the vault (with what this import added so far) has the book.
    public func bookExists(_ id: EntityID) throws(StoreError) -> Bool {
        if knownBooks.contains(id) { return true }
        var exists = false
        try store.database.forEachRow("SELECT 1 FROM book WHERE id = ?", [.text(id.rawValue)]) { _ in exists = true }
        if exists { knownBooks.insert(id) }
        return exists
    }

    // MARK: - Books

    public func add(_ incoming: Book) throws(StoreError) -> ImportOutcome {
        guard seen.insert(Self.key(incoming.id)).inserted else { return .duplicate }
        knownBooks.insert(incoming.id)
        deletedBooks[incoming.id] = nil
        let local: Book
        do { local = try store.book(incoming.id) } catch .recordNotFound {
            try store.insertBook(incoming, cipher: cipher, outboxState: .pending)
            summary.added.books += 1
            return .added
        } catch .recordUnreadable {
            // What is here cannot be read; the archive's version can: take it.
            return try replace(incoming) ? .updated : .unchanged
        }
        var localRewind = false
        try store.database.forEachRow("SELECT progress_rewind FROM book WHERE id = ?", [.text(incoming.id.rawValue)]) { row in
            localRewind = row.int64(0) == 1
        }
        let (localClock, archiveClock) = clocks(localVersion: local.version, localUpdated: local.updatedAt,
                                                archiveVersion: incoming.version, archiveUpdated: incoming.updatedAt,
                                                archiveDiffers: local.title != incoming.title || local.authors != incoming.authors)
        let divergence = Divergence(localChanged: true, remoteChanged: true)
        guard case .winner(let metadata, _) = BookMetadataPolicy().resolve(
                  local: Side(local, clock: localClock), remote: Side(incoming, clock: archiveClock), divergence: divergence),
              case .winner(let position, _) = ProgressPolicy().resolve(
                  local: Side(.init(percent: local.progress, isRewind: localRewind), clock: localClock),
                  remote: Side(.init(percent: incoming.progress, isRewind: false), clock: archiveClock), divergence: divergence) else {
            return .unchanged
        }
        var deletedAt = metadata.deletedAt
        if deletedAt != nil, local.deletedAt == nil, try liveAnnotations(of: local.id) > 0 { deletedAt = nil }
        guard metadata.title != local.title || metadata.authors != local.authors || position.percent != local.progress
                || (deletedAt == nil) != (local.deletedAt == nil) else {
            summary.unchanged += 1
            return .unchanged
        }
        let action: OutboxAction = deletedAt != nil && local.deletedAt == nil ? .delete : .update
        try store.updateBookInTransaction(local.id, action: action, progressRewind: position.percent != local.progress ? false : nil,
                                          requireLive: false) { book in
            book.title = metadata.title
            book.authors = metadata.authors
            book.progress = position.percent
            book.deletedAt = deletedAt == nil ? nil : (book.deletedAt ?? book.updatedAt)
        }
        summary.updated.books += 1
        return .updated
    }

    /// Overwrites an unreadable book with the archive's version, as a local change.
    private func replace(_ incoming: Book) throws(StoreError) -> Bool {
        try store.database.run("UPDATE book SET title = ?2, authors = ?3 WHERE id = ?1",
                               Array(try store.bookValues(incoming, cipher: cipher).prefix(3)))
        try store.updateBookInTransaction(incoming.id, action: .update, progressRewind: false, requireLive: false) { book in
            book.progress = incoming.progress
            book.deletedAt = incoming.deletedAt
        }
        summary.updated.books += 1
        return true
    }

    // MARK: - Sessions

    /// Adds a session the vault does not have. `bookKnown` false: its book is not (yet) here.
    public func add(_ incoming: ReadingSession) throws(StoreError) -> (outcome: ImportOutcome, bookKnown: Bool) {
        guard seen.insert(Self.key(incoming.id)).inserted else { return (.duplicate, true) }
        let bookKnown = try bookExists(incoming.bookID)
        var exists = false
        if hadSessions {
            try store.database.forEachRow("SELECT 1 FROM reading_session WHERE id = ?", [.text(incoming.id.rawValue)]) { _ in exists = true }
        }
        guard !exists else {
            summary.unchanged += 1
            return (.unchanged, bookKnown)
        }
        try store.insertSession(incoming, cipher: cipher, outboxState: .pending)
        summary.added.sessions += 1
        return (.added, bookKnown)
    }

    // MARK: - Notes and quotes

    /// Merges a note or quote. `bookKnown` false: its book is not (yet) here.
    public func add(_ incoming: Annotation) throws(StoreError) -> (outcome: ImportOutcome, bookKnown: Bool) {
        guard seen.insert(Self.key(incoming.id)).inserted else { return (.duplicate, true) }
        let bookKnown = try bookExists(incoming.bookID)
        guard hadAnnotations else {
            try insert(incoming)
            return (.added, bookKnown)
        }
        let local: Annotation
        do { local = try store.annotation(incoming.id) } catch .recordNotFound {
            try insert(incoming)
            return (.added, bookKnown)
        } catch .recordUnreadable {
            try store.database.run("UPDATE annotation SET body = ?2, locator = ?3 WHERE id = ?1",
                                   [.text(incoming.id.rawValue)] + Array(try store.annotationValues(incoming, cipher: cipher)[3...4]))
            try store.changeAnnotationInTransaction(incoming.id, action: .update, requireLive: false) { $0.deletedAt = incoming.deletedAt }
            count(incoming.kind, updated: true)
            return (.updated, bookKnown)
        }
        return (try merge(incoming, into: local), bookKnown)
    }

    /// Adds a note or quote a reader wrote into a Markdown file, unless its book already
    /// holds that text (it was imported before).
    public func addIfNew(_ incoming: Annotation) throws(StoreError) -> (outcome: ImportOutcome, bookKnown: Bool) {
        let bookKnown = try bookExists(incoming.bookID)
        guard bookKnown else { return (.added, false) }
        guard !(try texts(of: incoming.bookID).contains(Self.digest(incoming))) else {
            summary.unchanged += 1
            return (.unchanged, true)
        }
        seen.insert(Self.key(incoming.id))
        try insert(incoming)
        return (.added, true)
    }

    private func merge(_ incoming: Annotation, into local: Annotation) throws(StoreError) -> ImportOutcome {
        let sameText = local.body == incoming.body && local.locator == incoming.locator
        let localDeleted = local.deletedAt != nil
        let incomingDeleted = incoming.deletedAt != nil
        if sameText {
            // Only a deletion differs: a later tombstone deletes; an older live copy does not undelete.
            guard !localDeleted, incomingDeleted, incoming.version > local.version else {
                summary.unchanged += 1
                return .unchanged
            }
            try store.changeAnnotationInTransaction(local.id, action: .delete) { $0.deletedAt = $0.updatedAt }
            count(local.kind, updated: true)
            return .updated
        }
        let (localClock, archiveClock) = clocks(localVersion: local.version, localUpdated: local.updatedAt,
                                                archiveVersion: incoming.version, archiveUpdated: incoming.updatedAt,
                                                archiveDiffers: true)
        let localClean = local.version == incoming.version && local.updatedAt == incoming.updatedAt
        let resolution = NoteAndQuoteTextPolicy().resolve(
            local: Side(local, clock: localClock, isDeleted: localDeleted),
            remote: Side(incoming, clock: archiveClock, isDeleted: incomingDeleted),
            divergence: Divergence(localChanged: !localClean, remoteChanged: true))
        switch resolution {
        case .winner(let winner, _):
            guard winner == incoming else {
                summary.unchanged += 1
                return .unchanged
            }
            try store.changeAnnotationInTransaction(local.id, action: incomingDeleted ? .delete : .update, requireLive: false) { note in
                note.body = incoming.body
                note.locator = incoming.locator
                note.deletedAt = incomingDeleted ? (note.deletedAt ?? note.updatedAt) : nil
            }
            count(local.kind, updated: true)
            return .updated
        case .needsUser(_, let theirs, _) where localDeleted:
            // Deleted here, different text in the archive: it comes back, marked.
            try store.changeAnnotationInTransaction(local.id, action: .update, requireLive: false) { note in
                note.body = theirs.body
                note.locator = theirs.locator
                note.deletedAt = nil
                note.conflictReason = .editedAfterDelete
            }
            summary.conflicts += 1
            return .conflict
        case .needsUser where incomingDeleted:
            // Changed here, deleted (with other text) in the archive: it stays, marked.
            guard local.conflictReason == nil else {
                summary.unchanged += 1
                return .unchanged
            }
            try store.changeAnnotationInTransaction(local.id, action: .update) { $0.conflictReason = .editedAfterDelete }
            summary.conflicts += 1
            return .conflict
        case .needsUser(_, let theirs, _):
            guard !(try texts(of: local.bookID).contains(Self.digest(theirs))) else {
                summary.unchanged += 1
                return .unchanged
            }
            let copy = Annotation(id: .generate(at: now), bookID: local.bookID, kind: theirs.kind, body: theirs.body,
                                  locator: theirs.locator, createdAt: theirs.updatedAt, updatedAt: theirs.updatedAt,
                                  deletedAt: nil, version: 1, conflictOf: local.id, conflictReason: .bothEdited)
            try store.insertAnnotation(copy, cipher: cipher, outboxState: .pending)
            texts[local.bookID]?.insert(Self.digest(copy))
            summary.conflicts += 1
            return .conflict
        }
    }

    private func insert(_ annotation: Annotation) throws(StoreError) {
        try store.insertAnnotation(annotation, cipher: cipher, outboxState: .pending)
        texts[annotation.bookID]?.insert(Self.digest(annotation))
        count(annotation.kind, updated: false)
        // A note is never left inside a deleted book: the book comes back with it.
        if annotation.deletedAt == nil, try isDeleted(book: annotation.bookID) {
            try store.updateBookInTransaction(annotation.bookID, action: .update, progressRewind: nil, requireLive: false) { $0.deletedAt = nil }
            deletedBooks[annotation.bookID] = false
            summary.updated.books += 1
        }
    }

    // MARK: - Helpers

    /// Clocks for the policies, from what an archive has: `updatedAt`. When the archive
    /// holds a different text at the vault's very version and time, it is an edit of it,
    /// so it counts as just after the vault's; otherwise the vault wins a tie.
    private func clocks(localVersion: Int64, localUpdated: Timestamp, archiveVersion: Int64, archiveUpdated: Timestamp,
                        archiveDiffers: Bool) -> (local: HybridTimestamp, archive: HybridTimestamp) {
        let isEdit = archiveDiffers && localVersion == archiveVersion && localUpdated == archiveUpdated
        return (HybridTimestamp(wallMilliseconds: localUpdated.millisecondsSince1970, counter: 1, deviceID: "vault"),
                HybridTimestamp(wallMilliseconds: archiveUpdated.millisecondsSince1970, counter: isEdit ? 2 : 0, deviceID: "archive"))
    }

    private func count(_ kind: AnnotationKind, updated: Bool) {
        switch (kind, updated) {
        case (.note, false): summary.added.notes += 1
        case (.quote, false): summary.added.quotes += 1
        case (.note, true): summary.updated.notes += 1
        case (.quote, true): summary.updated.quotes += 1
        }
    }

    private func isDeleted(book id: EntityID) throws(StoreError) -> Bool {
        if let known = deletedBooks[id] { return known }
        var deleted = false
        try store.database.forEachRow("SELECT deleted_at IS NOT NULL FROM book WHERE id = ?", [.text(id.rawValue)]) { row in
            deleted = row.int64(0) != 0
        }
        deletedBooks[id] = deleted
        return deleted
    }

    private func liveAnnotations(of bookID: EntityID) throws(StoreError) -> Int {
        var count = 0
        try store.database.forEachRow("SELECT count(*) FROM annotation WHERE book_id = ? AND deleted_at IS NULL",
                                      [.text(bookID.rawValue)]) { row in count = Int(row.int64(0)) }
        return count
    }

    /// The digests of every note and quote of a book (tombstones included: a conflict copy
    /// the reader discarded is not made again), read once per book.
    private func texts(of bookID: EntityID) throws(StoreError) -> Set<String> {
        if let known = texts[bookID] { return known }
        var digests = Set<String>()
        try store.forEachAnnotation(AnnotationFilter(bookID: bookID, includeDeleted: true)) { result in
            if case .success(let annotation) = result { digests.insert(Self.digest(annotation)) }
        }
        texts[bookID] = digests
        return digests
    }

    private static func digest(_ annotation: Annotation) -> String {
        var hasher = SHA256()
        hasher.update(Array("\(annotation.kind.rawValue)\u{0}\(annotation.locator?.text ?? "")\u{0}".utf8))
        hasher.update(Array(annotation.body.utf8))
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
    /// Merges an archive into the vault in ONE write transaction: `produce` hands each
    /// record to the ``ArchiveImport`` it is given, and on return everything commits, or on
    /// any error (the Store's, or whatever `produce` throws) nothing does. A `dryRun` does
    /// all the same work and rolls it back: its summary is exactly what the import would do.
    ///
    /// Foreign keys are checked at commit, so an archive may list a book after its notes.
    ///
    /// A real import writes with a rollback journal when no other process has the vault
    /// open (``Database/withRollbackJournalIfAlone(_:)``): restoring a large archive then
    /// writes each new page once. A dry run leaves the file alone, in WAL mode.
    public func importArchive(dryRun: Bool, _ produce: (ArchiveImport) throws -> Void) throws -> ImportSummary {
        let cipher = try requireCipher()
        if dryRun { return try importTransaction(cipher: cipher, dryRun: true, produce) }
        return try database.withRollbackJournalIfAlone { () throws in
            try importTransaction(cipher: cipher, dryRun: false, produce)
        }
    }

    private func importTransaction(cipher: RecordCipher, dryRun: Bool, _ produce: (ArchiveImport) throws -> Void) throws -> ImportSummary {
        try database.execute("BEGIN IMMEDIATE")
        do {
            try database.execute("PRAGMA defer_foreign_keys = ON")
            let importer = try ArchiveImport(store: self, cipher: cipher, now: clock.now())
            try withWriteBatch { try produce(importer) }
            if dryRun {
                database.rollbackIfNeeded()
            } else {
                FaultInjection.reach("import:before-commit")
                try database.execute("COMMIT")
            }
            return importer.summary
        } catch {
            database.rollbackIfNeeded()
            throw error
        }
    }
}
