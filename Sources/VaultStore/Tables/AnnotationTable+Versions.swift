import Journal
import SyncWire

/// A note's or quote's versions as stored. The `annotation` row holds what the reader sees:
/// the shown version (its clock in `hlc`, its history in `vv`, NULL when that is only its
/// own clock) with the note's mark. While versions written without seeing each other stand
/// together, `annotation_version` holds all of them, sealed like the note, and each other
/// text is a conflict copy row marked `derived`: a view of a version, made the same way on
/// every device, until a device keeps it as a note of its own.
extension AnnotationTable {
    /// A row of `annotation`: what is shown, and how it stands.
    struct StoredAnnotation {
        let shown: Result<Annotation, UnreadableRecord>
        let clock: HybridTimestamp
        let history: VersionVector
        /// A conflict copy shown from another note's version, not a record of its own.
        let derived: Bool
    }

    func storedRow(_ id: EntityID) throws(StoreError) -> StoredAnnotation? {
        let openers = try AnnotationOpeners(try store.requireCipher())
        var found: StoredAnnotation?
        try database.forEachRow("SELECT \(AnnotationColumn.list) FROM annotation WHERE id = ?", [.text(id.rawValue)]) { row in
            // A row from before clocks existed has none to give: it reads as written at the start of time.
            let clock = (try? HybridTimestamp(parsing: row.text(AnnotationColumn.hlc)))
                ?? HybridTimestamp(wallMilliseconds: 0, counter: 0, deviceID: "")
            let history = Self.history(row.isNull(AnnotationColumn.vv) ? nil : row.text(AnnotationColumn.vv), of: clock)
            found = StoredAnnotation(shown: decode(row, openers: openers), clock: clock, history: history,
                                     derived: row.int64(AnnotationColumn.derived) == 1)
        }
        return found
    }

    /// The version `id` shows, with its clock and history.
    func shownVersion(of id: EntityID) throws(StoreError) -> AnnotationVersion {
        guard let stored = try storedRow(id) else { throw .recordNotFound(id: id.rawValue) }
        switch stored.shown {
        case .success(let annotation): return AnnotationVersion(annotation, clock: stored.clock, history: stored.history)
        case .failure(let unreadable): throw .recordUnreadable(id: unreadable.id, field: unreadable.field)
        }
    }

    /// What a merge needs to know of `id`.
    package func local(_ id: EntityID) throws(StoreError) -> LocalAnnotation? {
        guard let stored = try storedRow(id) else { return nil }
        guard case .success(let shown) = stored.shown else { return .unreadable }
        if stored.derived { return .derivedCopy(shown) }
        do {
            return .record(try standingVersions(of: shown, clock: stored.clock, history: stored.history))
        } catch .recordUnreadable {
            // A kept version that no longer opens: the note is damaged, as if its row were.
            return .unreadable
        }
    }

    /// The versions standing together in `note` (the row as shown, with its clock and history).
    func standingVersions(of note: Annotation, clock: HybridTimestamp, history: VersionVector) throws(StoreError) -> AnnotationVersions {
        typealias Column = AnnotationVersionColumn
        let cipher = try store.requireCipher()
        var versions: [AnnotationVersion] = []
        try database.forEachRow("SELECT \(Column.list) FROM annotation_version WHERE annotation_id = ?",
                                [.text(note.id.rawValue)]) { (row) throws(StoreError) in
            guard let versionClock = try? HybridTimestamp(parsing: row.text(Column.hlc)) else {
                throw .recordUnreadable(id: note.id.rawValue, field: "version")
            }
            let recordID = Self.versionRecordID(note.id.rawValue, clock: row.text(Column.hlc))
            let deleted = !row.isNull(Column.deletedAt)
            do throws(UnreadableRecord) {
                func open(_ column: Column, field: String) throws(UnreadableRecord) -> String {
                    try cipher.open(row.blob(column), table: "annotation_version", id: recordID, field: field)
                }
                // A purged tombstone's versions have no content left.
                let body = deleted && row.blob(Column.body).isEmpty ? "" : try open(.body, field: "body")
                var locator: Locator?
                if !row.isNull(Column.locator) {
                    let text = try open(.locator, field: "locator")
                    guard let checked = try? Locator(text) else { throw UnreadableRecord(id: note.id.rawValue, field: "locator") }
                    locator = checked
                }
                let comment = row.isNull(Column.comment) ? nil : try open(.comment, field: "comment")
                // NULL book and kind (every version kept before bmvault 0.12): the note's own.
                let bookID = row.isNull(Column.bookID) ? note.bookID : try? EntityID(validating: row.text(Column.bookID))
                let kind = row.isNull(Column.kind) ? note.kind : AnnotationKind(rawValue: row.text(Column.kind))
                guard let bookID, let kind else { throw UnreadableRecord(id: note.id.rawValue, field: "version") }
                let annotation = Annotation(id: note.id, bookID: bookID, kind: kind, body: body, locator: locator,
                                            createdAt: note.createdAt, updatedAt: Timestamp(millisecondsSince1970: row.int64(Column.updatedAt)),
                                            deletedAt: deleted ? Timestamp(millisecondsSince1970: row.int64(Column.deletedAt)) : nil,
                                            version: row.int64(Column.version),
                                            conflictOf: row.isNull(Column.conflictOf) ? nil : try? EntityID(validating: row.text(Column.conflictOf)),
                                            conflictReason: row.isNull(Column.conflictReason) ? nil
                                                : ConflictReason(rawValue: row.text(Column.conflictReason)),
                                            comment: comment, importKey: note.importKey)
                let history = Self.history(row.isNull(Column.vv) ? nil : row.text(Column.vv), of: versionClock)
                versions.append(AnnotationVersion(annotation, clock: versionClock, history: history))
            } catch {
                // Named by the note (the version's binding is no record a reader can name).
                throw .recordUnreadable(id: note.id.rawValue, field: error.field)
            }
        }
        if versions.isEmpty { return AnnotationVersions(AnnotationVersion(note, clock: clock, history: history)) }
        return AnnotationVersions(versions)
    }

    /// Where a kept version's sealed fields are bound: the note and the version's clock as
    /// stored in `annotation_version.hlc`.
    static func versionRecordID(_ id: String, clock: String) -> String {
        "\(id)@\(clock)"
    }

    /// A history as read back: NULL is the version's own clock. One that does not parse
    /// (only a damaged row) counts as that too: the version then stands with any other.
    private static func history(_ stored: String?, of clock: HybridTimestamp) -> VersionVector {
        guard let stored, let history = try? VersionVector(parsing: stored) else { return VersionVector(clock) }
        return history
    }

    /// Keeps `versions` for `id` when more than one stands; removes what was kept otherwise.
    func writeStandingVersions(_ versions: AnnotationVersions, of id: EntityID) throws(StoreError) {
        tables.requireWrite()
        let cipher = try store.requireCipher()
        try database.run("DELETE FROM annotation_version WHERE annotation_id = ?", [.text(id.rawValue)])
        guard versions.versions.count > 1 else { return }
        for version in versions.versions {
            let annotation = version.annotation
            let recordID = Self.versionRecordID(id.rawValue, clock: version.clock.description)
            func seal(_ text: String?, field: String) throws(StoreError) -> SQLValue {
                .blob(try text.map { (text) throws(StoreError) in try cipher.seal(text, table: "annotation_version", id: recordID, field: field) })
            }
            let body = try seal(annotation.body, field: "body"), locator = try seal(annotation.locator?.text, field: "locator")
            let comment = try seal(annotation.comment, field: "comment")
            try database.run(Self.insertVersionSQL, AnnotationVersionColumn.allCases.map { column -> SQLValue in
                switch column {
                case .annotationID: .text(id.rawValue)
                case .hlc: .text(version.clock.description)
                case .vv: Self.storedHistory(version)
                case .body: body
                case .locator: locator
                case .updatedAt: .integer(annotation.updatedAt.millisecondsSince1970)
                case .deletedAt: .integer(annotation.deletedAt?.millisecondsSince1970)
                case .version: .integer(annotation.version)
                case .conflictOf: annotation.conflictOf.map { .text($0.rawValue) } ?? .null
                case .conflictReason: annotation.conflictReason.map { .text($0.rawValue) } ?? .null
                case .bookID: .text(annotation.bookID.rawValue)
                case .kind: .text(annotation.kind.rawValue)
                case .comment: comment
                }
            })
        }
    }

    private static let insertVersionSQL =
        "INSERT INTO annotation_version (\(AnnotationVersionColumn.list)) VALUES (\(AnnotationVersionColumn.placeholders))"

    /// A history as stored: NULL when it is only the version's own clock (almost always).
    static func storedHistory(_ version: AnnotationVersion) -> SQLValue {
        version.history == VersionVector(version.clock) ? .null : .text(version.history.description)
    }

    private static let upsertAnnotationSQL = """
        INSERT INTO annotation (\(AnnotationColumn.list)) VALUES (\(AnnotationColumn.placeholders))
        ON CONFLICT (id) DO UPDATE SET \(AnnotationColumn.assignments(Array(AnnotationColumn.allCases.dropFirst())))
        """

    /// Writes the row of a record as `version` shows it (insert or replace).
    func writeRow(_ version: AnnotationVersion, shownAs note: Annotation? = nil, derived: Bool) throws(StoreError) {
        tables.requireWrite()
        try database.run(Self.upsertAnnotationSQL, try values(version, shownAs: note, cipher: try store.requireCipher(), derived: derived))
    }

    /// The versions a write to `id` supersedes, once nothing shown from them would be lost
    /// by it. A derived conflict copy being written becomes a record of its own first
    /// (other devices may still show it from the note's version). A note whose versions
    /// stand together keeps each of its other texts as a record of its own, but those in
    /// `dropping`, which the reader let go: the write supersedes every version here.
    func versionsForWrite(of id: EntityID, dropping: Set<EntityID> = []) throws(StoreError) -> AnnotationVersions {
        guard let stored = try storedRow(id) else { throw .recordNotFound(id: id.rawValue) }
        let shown: Annotation
        switch stored.shown {
        case .success(let annotation): shown = annotation
        case .failure(let unreadable): throw .recordUnreadable(id: unreadable.id, field: unreadable.field)
        }
        if stored.derived { return try keepAsRecord(shown, clock: stored.clock) }
        let versions = try standingVersions(of: shown, clock: stored.clock, history: stored.history)
        guard versions.versions.count > 1 else { return versions }
        for copy in try derivedCopies(of: id) {
            if dropping.contains(copy) {
                try database.run("DELETE FROM annotation WHERE id = ? AND derived = 1", [.text(copy.rawValue)])
            } else if let copyRow = try storedRow(copy), case .success(let annotation) = copyRow.shown {
                _ = try keepAsRecord(annotation, clock: copyRow.clock)
            }
        }
        return versions
    }

    /// A derived conflict copy becomes a record of its own, created on every device by an
    /// operation: its one version is exactly the one it shows, at that version's clock, so
    /// devices that keep the same copy make the same record.
    private func keepAsRecord(_ copy: Annotation, clock shownClock: HybridTimestamp) throws(StoreError) -> AnnotationVersions {
        try database.run("UPDATE annotation SET derived = 0 WHERE id = ?", [.text(copy.id.rawValue)])
        let version = AnnotationVersion(copy, clock: shownClock, history: VersionVector(shownClock))
        try tables.outbox.enqueue(.create, .annotation(version), clock: try store.tick(), at: store.clock.now(), baseVersion: 0, base: nil)
        return AnnotationVersions(version)
    }

    /// The derived conflict copies shown from `id`'s versions.
    func derivedCopies(of id: EntityID) throws(StoreError) -> [EntityID] {
        var copies: [EntityID] = []
        try database.forEachRow("SELECT id FROM annotation WHERE conflict_of = ? AND derived = 1 ORDER BY id", [.text(id.rawValue)]) { row in
            if let copy = try? EntityID(validating: row.text("id")) { copies.append(copy) }
        }
        return copies
    }

    /// Stores what a merge decided for `id`: its row as shown, the versions standing
    /// together, and the derived conflict copies they show (a copy some device already kept
    /// as a record of its own stays that record).
    package func store(_ versions: AnnotationVersions, shownAs presentation: AnnotationPresentation, for id: EntityID) throws(StoreError) {
        try writeRow(presentation.shown, shownAs: presentation.note, derived: false)
        try writeStandingVersions(versions, of: id)
        let wanted = Set(presentation.copies.map(\.annotation.id))
        for copy in try derivedCopies(of: id) where !wanted.contains(copy) {
            try database.run("DELETE FROM annotation WHERE id = ? AND derived = 1", [.text(copy.rawValue)])
        }
        for copy in presentation.copies {
            if let existing = try storedRow(copy.annotation.id), !existing.derived { continue }
            try writeRow(AnnotationVersion(copy.annotation, clock: copy.clock, history: VersionVector(copy.clock)),
                                   derived: true)
        }
    }
}

/// The columns of `annotation_version`, a note's versions kept while more than one stands,
/// in the order ``AnnotationTable`` selects and inserts them.
enum AnnotationVersionColumn: Int32, TableColumns {
    case annotationID, hlc, vv, body, locator, updatedAt, deletedAt, version, conflictOf, conflictReason, bookID, kind, comment

    var name: String {
        switch self {
        case .annotationID: "annotation_id"
        case .hlc: "hlc"
        case .vv: "vv"
        case .body: "body"
        case .locator: "locator"
        case .updatedAt: "updated_at"
        case .deletedAt: "deleted_at"
        case .version: "version"
        case .conflictOf: "conflict_of"
        case .conflictReason: "conflict_reason"
        case .bookID: "book_id"
        case .kind: "kind"
        case .comment: "comment"
        }
    }
}
