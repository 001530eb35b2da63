import BookFiles
import Foundation
import Journal
import VaultKit

/// The shapes `--json` prints, documented in Docs/CLI.md. Keys are sorted and a field,
/// once documented, keeps its name and type; new fields may be added.
enum JSONDocuments {
    struct BookDocument: Encodable {
        let id: String, title: String, authors: [String], progress: Double
        let createdAt: String, updatedAt: String, deletedAt: String?, version: Int64
        /// bmvault 0.10: the current status and when it began (null: none recorded), the
        /// rating (null: none), and every status change, oldest first.
        let status: String?, statusSince: String?, rating: Double?
        let readingLog: [StatusChange]
        /// bmvault 0.11: the edition (null: not known), and the page the progress reaches
        /// (null without a number of pages).
        let isbn: String?, year: Int?, pagesTotal: Int?, page: Int?
        /// bmvault 0.13: the tags it shows, in alphabetical order.
        let tags: [String]

        /// `on` is null for a change recorded without its day (bmvault 0.16, an import).
        struct StatusChange: Encodable {
            let status: String, on: String?

            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(status, forKey: .status)
                try container.encode(on, forKey: .on)
            }

            enum CodingKeys: String, CodingKey { case status, on }
        }

        init(_ book: Book, tags: [String]) {
            self.tags = tags
            id = book.id.rawValue
            title = book.title
            authors = book.authors
            progress = book.progress
            createdAt = book.createdAt.iso8601
            updatedAt = book.updatedAt.iso8601
            deletedAt = book.deletedAt?.iso8601
            version = book.version
            status = book.readingLog.status?.rawValue
            statusSince = book.readingLog.statusSince?.iso8601
            rating = book.rating
            readingLog = book.readingLog.events.map { StatusChange(status: $0.status.rawValue, on: $0.dayKnown ? $0.on.iso8601 : nil) }
            isbn = book.edition.isbn
            year = book.edition.year
            pagesTotal = book.edition.pages
            page = book.edition.page(atPercent: book.progress)
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encode(authors, forKey: .authors)
            try container.encode(progress, forKey: .progress)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(updatedAt, forKey: .updatedAt)
            try container.encode(deletedAt, forKey: .deletedAt)   // null, not absent
            try container.encode(version, forKey: .version)
            try container.encode(status, forKey: .status)
            try container.encode(statusSince, forKey: .statusSince)
            try container.encode(rating, forKey: .rating)
            try container.encode(readingLog, forKey: .readingLog)
            try container.encode(isbn, forKey: .isbn)
            try container.encode(year, forKey: .year)
            try container.encode(pagesTotal, forKey: .pagesTotal)
            try container.encode(page, forKey: .page)
            try container.encode(tags, forKey: .tags)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, authors, progress, createdAt, updatedAt, deletedAt, version, status, statusSince, rating, readingLog
            case isbn, year, pagesTotal, page, tags
        }
    }

    /// `book list --json`: a book and what the reader did with it.
    struct ShelfDocument: Encodable {
        let book: BookDocument
        let activity: BookActivity

        func encode(to encoder: Encoder) throws {
            try book.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(activity.notes, forKey: .notes)
            try container.encode(activity.quotes, forKey: .quotes)
            try container.encode(activity.sessions, forKey: .sessions)
            try container.encode(activity.lastSession?.iso8601, forKey: .lastSession)
        }

        init(book: Book, activity: BookActivity, tags: [String]) {
            self.book = BookDocument(book, tags: tags)
            self.activity = activity
        }

        enum CodingKeys: String, CodingKey { case notes, quotes, sessions, lastSession }
    }

    /// `tag list --json`: a tag in use and how many books, notes and quotes have it.
    struct TagDocument: Encodable {
        let name: String, books: Int, notes: Int, quotes: Int

        init(_ use: TagUse) {
            name = use.name
            books = use.books
            notes = use.notes
            quotes = use.quotes
        }
    }

    /// `file list --json`: a book file, its book, what it says of itself, where it is kept.
    struct FileDocument: Encodable {
        let id: String, book: String, bookTitle: String, format: String, size: Int64, sha256: String
        /// The book is deleted (in `bmvault trash`): its files stay, and come back with it.
        let bookDeleted: Bool
        /// `stored` (encrypted in the file store) or `linked` (a handle on `device`), or `elsewhere`.
        let kept: String
        /// `present`, `missing`, `unreadable`, or `elsewhere` (on another device).
        let presence: String
        let onThisDevice: Bool
        let device: String
        let linkPath: String?
        let locator: String?
        let metadata: BookFileMetadata
        let addedAt: String

        init(_ listing: FileListing) {
            let content = listing.file.content
            id = listing.file.id.rawValue
            book = listing.book.id.rawValue
            bookTitle = listing.book.title
            bookDeleted = listing.book.deletedAt != nil
            format = content.format
            size = content.size
            sha256 = content.checksum
            kept = content.isStored ? "stored" : content.link != nil ? "linked" : "elsewhere"
            presence = listing.presence.rawValue
            onThisDevice = listing.isOnThisDevice
            device = content.deviceID
            linkPath = listing.isOnThisDevice ? content.link?.path : nil
            locator = listing.file.locator
            metadata = listing.metadata
            addedAt = listing.file.createdAt.iso8601
        }
    }

    /// `file add --json`: what was added, and whether the book or the content was new.
    struct FileAddedDocument: Encodable {
        let id: String, book: String, bookTitle: String, format: String, size: Int64, sha256: String
        let bookAdded: Bool, contentAdded: Bool, alreadyAttached: Bool, linked: Bool
        let metadata: BookFileMetadata

        init(_ added: AddedFile, vault: Vault) {
            let file = added.addition.file
            id = file.id.rawValue
            book = added.book.id.rawValue
            bookTitle = added.book.title
            format = added.format.rawValue
            size = file.content.size
            sha256 = file.content.checksum
            bookAdded = added.addition.bookIsNew
            contentAdded = added.addition.contentIsNew
            alreadyAttached = added.addition.wasAttached
            linked = !file.content.isStored
            metadata = added.metadata
        }
    }

    /// `file verify --json`: one file and what was found.
    struct FileCheckDocument: Encodable {
        /// `intact`, `missing`, `moved`, `unreadable`, `changed` or `elsewhere`.
        let id: String, state: String
        let movedTo: String?, repaired: Bool, errno: Int32?

        init(_ check: FileCheck) {
            id = check.file.id.rawValue
            repaired = check.repaired
            switch check.state {
            case .intact: (state, movedTo, errno) = ("intact", nil, nil)
            case .elsewhere: (state, movedTo, errno) = ("elsewhere", nil, nil)
            case .missing(let moved?): (state, movedTo, errno) = ("moved", moved, nil)
            case .missing(nil): (state, movedTo, errno) = ("missing", nil, nil)
            case .unreadable(let code): (state, movedTo, errno) = ("unreadable", nil, code)
            case .changed: (state, movedTo, errno) = ("changed", nil, nil)
            }
        }
    }

    /// `trash --json`: what can still be brought back.
    struct TrashDocument: Encodable {
        let books: [BookDocument]
        let annotations: [AnnotationDocument]
        let sessions: [SessionDocument]
        let retentionDays: Int

        init(_ trash: TrashListing) {
            books = trash.books.compactMap { try? $0.get() }.map { BookDocument($0, tags: trash.bookTags[$0.id] ?? []) }
            annotations = trash.annotations.compactMap { try? $0.get() }.map(AnnotationDocument.init)
            sessions = trash.sessions.map { SessionDocument($0.session) }
            retentionDays = trash.retentionDays
        }
    }

    /// `stats --json`: every week and month of the range, oldest first, and the totals.
    struct StatsDocument: Encodable {
        struct Period: Encodable {
            let start: String, pages: Int, minutes: Int, sessions: Int
        }
        struct Finished: Encodable {
            let year: Int, books: Int
        }
        struct BookTotal: Encodable {
            let bookId: String, title: String?, pages: Int, minutes: Int, sessions: Int
        }
        let sessions: Int, pages: Int, minutes: Int
        let averagePages: Double, averageMinutes: Double
        let currentStreak: Int, longestStreak: Int
        let finishedPerYear: [Finished]
        let weeks: [Period], months: [Period]
        let books: [BookTotal]

        init(_ report: StatsReport) {
            let stats = report.stats
            sessions = stats.sessions
            pages = stats.pages
            minutes = stats.minutes
            averagePages = stats.averagePages
            averageMinutes = stats.averageMinutes
            currentStreak = stats.currentStreak
            longestStreak = stats.longestStreak
            finishedPerYear = stats.finishedPerYear.map { Finished(year: $0.year, books: $0.books) }
            weeks = stats.weeks.map { Period(start: $0.start.iso8601, pages: $0.pages, minutes: $0.minutes, sessions: $0.sessions) }
            months = stats.months.map { Period(start: $0.start.iso8601, pages: $0.pages, minutes: $0.minutes, sessions: $0.sessions) }
            books = stats.perBook.map {
                BookTotal(bookId: $0.bookID.rawValue, title: report.titles[$0.bookID], pages: $0.pages, minutes: $0.minutes, sessions: $0.sessions)
            }
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sessions, forKey: .sessions)
            try container.encode(pages, forKey: .pages)
            try container.encode(minutes, forKey: .minutes)
            try container.encode(averagePages, forKey: .averagePages)
            try container.encode(averageMinutes, forKey: .averageMinutes)
            try container.encode(currentStreak, forKey: .currentStreak)
            try container.encode(longestStreak, forKey: .longestStreak)
            try container.encode(finishedPerYear, forKey: .finishedPerYear)
            try container.encode(weeks, forKey: .weeks)
            try container.encode(months, forKey: .months)
            try container.encode(books, forKey: .books)
        }

        enum CodingKeys: String, CodingKey {
            case sessions, pages, minutes, averagePages, averageMinutes, currentStreak, longestStreak, finishedPerYear, weeks, months, books
        }
    }

    struct AnnotationDocument: Encodable {
        let annotation: Annotation
        let bookTitle: String?
        /// bmvault 0.13: the tags it shows, in alphabetical order.
        let tags: [String]

        init(_ listing: AnnotationListing) {
            annotation = listing.annotation
            bookTitle = listing.bookTitle
            tags = listing.tags
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(annotation.id.rawValue, forKey: .id)
            try container.encode(annotation.bookID.rawValue, forKey: .bookId)
            try container.encode(bookTitle, forKey: .bookTitle)
            try container.encode(annotation.kind.rawValue, forKey: .kind)
            try container.encode(annotation.body, forKey: .body)
            try container.encode(annotation.locator?.text, forKey: .locator)
            try container.encode(annotation.comment, forKey: .comment)
            try container.encode(annotation.createdAt.iso8601, forKey: .createdAt)
            try container.encode(annotation.updatedAt.iso8601, forKey: .updatedAt)
            try container.encode(annotation.deletedAt?.iso8601, forKey: .deletedAt)
            try container.encode(annotation.version, forKey: .version)
            try container.encode(annotation.conflictOf?.rawValue, forKey: .conflictOf)
            try container.encode(annotation.conflictReason?.rawValue, forKey: .conflictReason)
            try container.encode(tags, forKey: .tags)
        }

        enum CodingKeys: String, CodingKey {
            case id, bookId, bookTitle, kind, body, locator, comment, createdAt, updatedAt, deletedAt, version, conflictOf, conflictReason, tags
        }
    }

    /// A conflict: the flagged record (as `list` gives it), both sides with the device
    /// that wrote each, and which side `--keep mine` names here (`note`, `copy`,
    /// `deletion`, or null when not exactly one side was written on this device).
    struct ConflictDocument: Encodable {
        let conflict: ConflictListing

        init(_ conflict: ConflictListing) {
            self.conflict = conflict
        }

        struct SideDocument: Encodable {
            let body: String?, locator: String?, comment: String?, device: String?, writtenHere: Bool, at: String?

            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(body, forKey: .body)
                try container.encode(locator, forKey: .locator)
                try container.encode(comment, forKey: .comment)
                try container.encode(device, forKey: .device)
                try container.encode(writtenHere, forKey: .writtenHere)
                try container.encode(at, forKey: .at)
            }

            enum CodingKeys: String, CodingKey { case body, locator, comment, device, writtenHere, at }
        }

        func encode(to encoder: Encoder) throws {
            try AnnotationDocument(conflict.listing).encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            let sides = conflict.sides
            try container.encode(side(sides.note, here: conflict.noteWrittenHere), forKey: .note)
            try container.encode(side(sides.other, here: conflict.otherWrittenHere), forKey: sides.reason == .bothEdited ? .copy : .deletion)
            let otherName = sides.reason == .bothEdited ? "copy" : "deletion"
            try container.encode(conflict.mine.map { $0 == .note ? "note" : otherName }, forKey: .mine)
        }

        private func side(_ side: ConflictSides.Side, here: Bool) -> SideDocument {
            SideDocument(body: side.text, locator: side.locator?.text, comment: side.comment, device: side.deviceID, writtenHere: here,
                         at: side.at?.iso8601)
        }

        enum CodingKeys: String, CodingKey { case note, copy, deletion, mine }
    }

    /// A session; `source` is where an import found it (`koreader`), null for one typed.
    struct SessionDocument: Encodable {
        let id: String, bookId: String, startedAt: String, endedAt: String, pagesRead: Int, source: String?

        init(_ session: ReadingSession) {
            id = session.id.rawValue
            bookId = session.bookID.rawValue
            startedAt = session.startedAt.iso8601
            endedAt = session.endedAt.iso8601
            pagesRead = session.pagesRead
            source = session.source
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(bookId, forKey: .bookId)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(endedAt, forKey: .endedAt)
            try container.encode(pagesRead, forKey: .pagesRead)
            try container.encode(source, forKey: .source)   // null, not absent
        }

        enum CodingKeys: String, CodingKey { case id, bookId, startedAt, endedAt, pagesRead, source }
    }

    /// A session in `session list`: ``SessionDocument``'s fields and its book's title.
    struct SessionListingDocument: Encodable {
        let id: String, bookId: String, bookTitle: String?, startedAt: String, endedAt: String, pagesRead: Int, source: String?

        init(_ listing: SessionListing) {
            let session = listing.session
            id = session.id.rawValue
            bookId = session.bookID.rawValue
            bookTitle = listing.bookTitle
            startedAt = session.startedAt.iso8601
            endedAt = session.endedAt.iso8601
            pagesRead = session.pagesRead
            source = session.source
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(bookId, forKey: .bookId)
            try container.encode(bookTitle, forKey: .bookTitle)   // null, not absent
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(endedAt, forKey: .endedAt)
            try container.encode(pagesRead, forKey: .pagesRead)
            try container.encode(source, forKey: .source)   // null, not absent
        }

        enum CodingKeys: String, CodingKey { case id, bookId, bookTitle, startedAt, endedAt, pagesRead, source }
    }

    struct BookDetailsDocument: Encodable {
        let book: BookDocument
        let sessions: [SessionDocument]
        let counts: JournalCounts
    }

    struct StatusDocument: Encodable {
        let locked: Bool
        /// `unlocked`, `locked`, `expired`, `keyring-locked` or `keyring-unavailable`.
        let keyState: String
        let unlockedUntil: String?
        let vaultId: String
        let vaultPath: String
        let schemaVersion: Int
        let counts: JournalCounts
        let outbox: [String: Int]
        let rekeyInProgress: Bool
        let conflicts: Int
        let remotes: [String]
        /// Per remote: when a sync last used it without a failure (null: never).
        let lastSynced: [String: String?]

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(locked, forKey: .locked)
            try container.encode(keyState, forKey: .keyState)
            try container.encode(unlockedUntil, forKey: .unlockedUntil)
            try container.encode(vaultId, forKey: .vaultId)
            try container.encode(vaultPath, forKey: .vaultPath)
            try container.encode(schemaVersion, forKey: .schemaVersion)
            try container.encode(counts, forKey: .counts)
            try container.encode(outbox, forKey: .outbox)
            try container.encode(rekeyInProgress, forKey: .rekeyInProgress)
            try container.encode(conflicts, forKey: .conflicts)
            try container.encode(remotes, forKey: .remotes)
            try container.encode(lastSynced, forKey: .lastSynced)
        }

        enum CodingKeys: String, CodingKey {
            case locked, keyState, unlockedUntil, vaultId, vaultPath, schemaVersion, counts, outbox, rekeyInProgress, conflicts, remotes
            case lastSynced
        }
    }

    struct SchemaStateDocument: Encodable {
        struct Record: Encodable { let id: String, checksum: String, appliedAt: String, durationMs: Int64, bmvaultVersion: String }
        struct Pending: Encodable { let id: String, summary: String }
        let version: Int, latestVersion: Int, history: [Record], pending: [Pending]

        init(_ state: SchemaState) {
            version = state.version
            latestVersion = state.latestVersion
            history = state.history.map { Record(id: $0.id, checksum: $0.checksum, appliedAt: $0.appliedAt.iso8601,
                                                 durationMs: $0.durationMilliseconds, bmvaultVersion: $0.bmvaultVersion) }
            pending = state.pending.map { Pending(id: $0.id, summary: $0.summary) }
        }
    }

    struct RehearsalDocument: Encodable {
        struct Repair: Encodable { let id: String, commit: String }
        let from: Int, to: Int, repairs: [Repair], pending: [SchemaStateDocument.Pending], added: [String], removed: [String]
        let milliseconds: Int64, changed: Bool

        init(_ rehearsal: UpgradeRehearsal) {
            from = rehearsal.from
            to = rehearsal.to
            repairs = rehearsal.repairs.map { Repair(id: $0.id, commit: $0.commit) }
            pending = rehearsal.pending.map { SchemaStateDocument.Pending(id: $0.id, summary: $0.summary) }
            added = rehearsal.added
            removed = rehearsal.removed
            milliseconds = rehearsal.milliseconds
            changed = false
        }
    }

    struct RemoteDocument: Encodable {
        let name: String, kind: String, location: String, addedAt: String
        /// When a sync last used it without a failure; null before the first.
        let lastSyncedAt: String?
        /// Whether sync carries book files' blobs to and from it.
        let carriesFiles: Bool
    }

    struct SyncDocument: Encodable {
        let pushed: Int, pulled: Int, conflicts: Int, failures: Int, failedForGood: Int, deferred: Int, rejected: Int, purged: Int
        let skippedRemotes: [String: String]
        let silentDevices: [String: Int]
        let returningAfterDays: Int?
        let snapshots: [String: Int]
        let unsentRecords: Int
        let rekeyedElsewhere: [String]
        /// Book files' blobs sent to and received from remotes that carry files, and those
        /// taken off them (removed longer ago than the retention).
        let filesSent: Int, filesReceived: Int, filesRefused: Int, filesRemoved: Int
        /// The remote whose keyslots (a passphrase or recovery key changed on another device)
        /// this sync took up; absent when none.
        let keyslotsTakenUpFrom: String?
    }

    struct OutboxEntryDocument: Encodable {
        let id: Int64, entity: String, action: String, state: String, attempts: Int, createdAt: String
        let nextAttemptAt: String?, lastErrorClass: String?

        init(_ entry: OutboxEntry) {
            id = entry.id
            entity = entry.entity.rawValue
            action = entry.action.rawValue
            state = JSONDocuments.outboxKey(entry.state)
            attempts = entry.attempts
            createdAt = entry.createdAt.iso8601
            nextAttemptAt = entry.nextAttemptAt?.iso8601
            lastErrorClass = entry.lastErrorClass
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(entity, forKey: .entity)
            try container.encode(action, forKey: .action)
            try container.encode(state, forKey: .state)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
            try container.encode(lastErrorClass, forKey: .lastErrorClass)
        }

        enum CodingKeys: String, CodingKey { case id, entity, action, state, attempts, createdAt, nextAttemptAt, lastErrorClass }
    }

    struct IDDocument: Encodable {
        let id: String
    }

    /// The JSON key for an outbox state: `pending`, `inFlight`, `done`, `failed`.
    static func outboxKey(_ state: OutboxState) -> String {
        state == .inFlight ? "inFlight" : state.rawValue
    }

    /// An encoder for one-line documents with sorted keys, to reuse across many records.
    static func compactEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// One line, sorted keys, no trailing newline, controls escaped as in ``render(_:)``.
    static func renderCompact(_ value: some Encodable, encoder: JSONEncoder) -> String {
        guard let data = try? encoder.encode(value) else { return "null" }
        return escapingControls(String(decoding: data, as: UTF8.self))
    }

    /// Pretty-printed, sorted keys, one document, ending in a newline. DEL and the C1
    /// controls (which JSON allows raw, and some terminals obey) are written as `\u` escapes,
    /// like the C0 controls, so printing JSON cannot drive the terminal either.
    static func render(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null\n" }
        return escapingControls(String(decoding: data, as: UTF8.self)) + "\n"
    }

    /// DEL and C1 controls as `\u` escapes (JSON allows them raw; terminals obey some).
    private static func escapingControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else { return json }
        var escaped = ""
        for scalar in json.unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) {
                escaped += "\\u00" + String(scalar.value, radix: 16)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
