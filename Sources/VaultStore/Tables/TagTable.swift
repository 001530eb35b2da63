public import Journal
import SyncWire

/// `tagging` (schema v13): one row per tag given to a book, note or quote, the name sealed,
/// the record, times and clock in the clear. Tags are records of their own, so giving or
/// taking one away writes its operation and never touches a note's text (``TagPolicy``).
public struct TagTable {
    let tables: Tables
    private var store: Store { tables.store }
    private var database: Database { tables.database }

    // Made once: the statement cache is keyed by the text.
    private static let writeSQL = """
        INSERT INTO tagging (\(TagColumn.list)) VALUES (\(TagColumn.placeholders))
        ON CONFLICT (id) DO UPDATE SET \(TagColumn.assignments([.tagName, .updatedAt, .removedAt, .version, .hlc]))
        """

    /// Gives `names` (each checked by ``Tag/checked(_:)``) to a live book, note or quote,
    /// each change with its operation. A tag the record shows already is left as it is; one
    /// taken away before is given back (its tagging, not a new one). Returns the tags given,
    /// as typed.
    @discardableResult
    public func add(_ names: [String], to recordID: EntityID, kind: TaggedKind) throws(StoreError) -> [String] {
        tables.requireWrite()
        _ = try store.requireCipher()
        try requireLiveTaggable(recordID, kind: kind)
        var taggings = try versions(where: "record_id = ?", [.text(recordID.rawValue)])
        var given: [String] = []
        for typed in names {
            let name: String
            do throws(JournalError) { name = try Tag.checked(typed) } catch { throw .invalidInput(error) }
            let key = Tag.key(name)
            let same = taggings.indices.filter { !taggings[$0].tagging.name.isEmpty && Tag.key(taggings[$0].tagging.name) == key }
            if same.contains(where: { !taggings[$0].tagging.isRemoved }) { continue }
            if let index = same.first {
                taggings[index] = try change(taggings[index]) { tagging, _ in
                    tagging.name = name
                    tagging.removedAt = nil
                }
            } else {
                let now = store.clock.now()
                let stamp = try store.tick()
                let tagging: Tagging
                do throws(JournalError) {
                    tagging = try Tagging.new(name, on: recordID, kind: kind, at: now)
                } catch {
                    throw .invalidInput(error)
                }
                taggings.append(TaggingVersion(tagging, clock: stamp))
                try write(taggings[taggings.count - 1])
                try tables.outbox.enqueue(.create, .tagging(taggings[taggings.count - 1]), clock: stamp, at: now, baseVersion: 0, base: nil)
            }
            given.append(name)
        }
        return given
    }

    /// Takes `names` away from a live book, note or quote, all or none: every tagging of
    /// each name this device knows is marked removed, each with its operation. A name the
    /// record does not show is ``StoreError/tagNotFound(id:)`` and nothing changes.
    public func remove(_ names: [String], from recordID: EntityID, kind: TaggedKind) throws(StoreError) {
        tables.requireWrite()
        _ = try store.requireCipher()
        try requireLiveTaggable(recordID, kind: kind)
        let taggings = try versions(where: "record_id = ? AND removed_at IS NULL", [.text(recordID.rawValue)])
        var keys: Set<String> = []
        for typed in names {
            let key: String
            do throws(JournalError) { key = Tag.key(try Tag.checked(typed)) } catch { throw .invalidInput(error) }
            guard taggings.contains(where: { Tag.key($0.tagging.name) == key }) else { throw .tagNotFound(id: recordID.rawValue) }
            keys.insert(key)
        }
        for before in taggings where keys.contains(Tag.key(before.tagging.name)) {
            _ = try change(before) { tagging, now in tagging.removedAt = now }
        }
    }

    /// Changes a tagging here (given back, taken away) at a new clock and version, with its
    /// `update` operation.
    private func change(_ before: TaggingVersion, _ change: (inout Tagging, Timestamp) -> Void) throws(StoreError) -> TaggingVersion {
        let now = store.clock.now()
        let stamp = try store.tick()
        var tagging = before.tagging
        change(&tagging, now)
        tagging.updatedAt = max(now, tagging.updatedAt)
        tagging.version = try VersionNumber.next(after: tagging.version, of: tagging.id)
        let version = TaggingVersion(tagging, clock: stamp)
        try write(version)
        try tables.outbox.enqueue(.update, .tagging(version), clock: stamp, at: now, baseVersion: before.tagging.version, base: before.clock)
        return version
    }

    /// The tags a record shows (``Tag/shown(_:)``).
    public func shown(on recordID: EntityID) throws(StoreError) -> [String] {
        Tag.shown(try versions(where: "record_id = ? AND removed_at IS NULL", [.text(recordID.rawValue)]).map(\.tagging))
    }

    /// The tags every record of `kind` shows, by record; records without tags are absent.
    /// With `bookID`, only the notes and quotes of that book are read (a one-book listing
    /// opens no other tag).
    public func shownByRecord(kind: TaggedKind, inBook bookID: EntityID? = nil) throws(StoreError) -> [EntityID: [String]] {
        var byRecord: [EntityID: [Tagging]] = [:]
        let taggings = if let bookID, kind == .annotation {
            try versions(where: """
                record_kind = 'annotation' AND removed_at IS NULL AND record_id IN (SELECT id FROM annotation WHERE book_id = ?)
                """, [.text(bookID.rawValue)])
        } else {
            try versions(where: "record_kind = ? AND removed_at IS NULL", [.text(kind.rawValue)])
        }
        for version in taggings {
            byRecord[version.tagging.recordID, default: []].append(version.tagging)
        }
        return byRecord.mapValues { Tag.shown($0) }
    }

    /// The records of `kind` that show tag `name` (compared by ``Tag/key(_:)``).
    public func records(kind: TaggedKind, taggedWith name: String) throws(StoreError) -> Set<EntityID> {
        let key = Tag.key(name)
        return Set(try versions(where: "record_kind = ? AND removed_at IS NULL", [.text(kind.rawValue)])
            .filter { Tag.key($0.tagging.name) == key }.map(\.tagging.recordID))
    }

    /// Every tag shown on a live book, note or quote, with how many of each show it, in
    /// the order of the keys.
    public func counts() throws(StoreError) -> [(name: String, books: Int, notes: Int, quotes: Int)] {
        let live = try versions(where: """
            removed_at IS NULL AND (
              (record_kind = 'book' AND record_id IN (SELECT id FROM book WHERE deleted_at IS NULL)) OR
              (record_kind = 'annotation' AND record_id IN (SELECT id FROM annotation WHERE deleted_at IS NULL)))
            """, []).map(\.tagging)
        var quotes: Set<EntityID> = []
        try database.forEachRow("""
            SELECT id FROM annotation WHERE kind = 'quote' AND deleted_at IS NULL
              AND id IN (SELECT record_id FROM tagging WHERE record_kind = 'annotation' AND removed_at IS NULL)
            """) { row in
            if let id = try? EntityID(validating: row.text("id")) { quotes.insert(id) }
        }
        var byKey: [String: (names: [Tagging], books: Set<EntityID>, notes: Set<EntityID>, quotes: Set<EntityID>)] = [:]
        for tagging in live {
            let key = Tag.key(tagging.name)
            byKey[key, default: ([], [], [], [])].names.append(tagging)
            switch tagging.recordKind {
            case .book: byKey[key]?.books.insert(tagging.recordID)
            case .annotation where quotes.contains(tagging.recordID): byKey[key]?.quotes.insert(tagging.recordID)
            case .annotation: byKey[key]?.notes.insert(tagging.recordID)
            }
        }
        return byKey.sorted { $0.key < $1.key }.compactMap { entry in
            Tag.shown(entry.value.names).first.map { ($0, entry.value.books.count, entry.value.notes.count, entry.value.quotes.count) }
        }
    }

    /// The tagging `id` with its clock, removed or not, or nil when it is not here.
    package func version(_ id: EntityID) throws(StoreError) -> TaggingVersion? {
        try versions(where: "id = ?", [.text(id.rawValue)]).first
    }

    /// Writes a tagging row with its clock: a new one, or one here changed. Its record
    /// never changes.
    package func write(_ version: TaggingVersion) throws(StoreError) {
        tables.requireWrite()
        let tagging = version.tagging
        let cipher = try store.requireCipher()
        let name: [UInt8] = tagging.name.isEmpty ? [] : try cipher.seal(tagging.name, table: "tagging", id: tagging.id.rawValue, field: "name")
        try database.run(Self.writeSQL, TagColumn.allCases.map { column -> SQLValue in
            switch column {
            case .id: .text(tagging.id.rawValue)
            case .recordID: .text(tagging.recordID.rawValue)
            case .recordKind: .text(tagging.recordKind.rawValue)
            case .tagName: .blob(name)
            case .createdAt: .integer(tagging.createdAt.millisecondsSince1970)
            case .updatedAt: .integer(tagging.updatedAt.millisecondsSince1970)
            case .removedAt: .integer(tagging.removedAt?.millisecondsSince1970)
            case .version: .integer(tagging.version)
            case .hlc: .text(version.clock.description)
            }
        })
    }

    /// Taggings matching `condition`, names opened. One whose name does not open is left
    /// out (``check`` reports it), so a damaged tag never hides a note.
    func versions(where condition: String, _ values: [SQLValue]) throws(StoreError) -> [TaggingVersion] {
        let cipher = try store.requireCipher()
        var taggings: [TaggingVersion] = []
        try database.forEachRow("SELECT \(TagColumn.list) FROM tagging WHERE \(condition) ORDER BY created_at, id", values) { row in
            func time(_ column: TagColumn) -> Timestamp { Timestamp(millisecondsSince1970: row.int64(column)) }
            guard let id = try? EntityID(validating: row.text(TagColumn.id)), let recordID = try? EntityID(validating: row.text(TagColumn.recordID)),
                  let kind = TaggedKind(rawValue: row.text(TagColumn.recordKind)),
                  let clock = try? HybridTimestamp(parsing: row.text(TagColumn.hlc)) else { return }
            let name: String
            if row.withBytes(TagColumn.tagName, { $0.isEmpty }) {
                name = ""
            } else {
                guard let opened = try? cipher.open(row.blob(TagColumn.tagName), table: "tagging", id: id.rawValue, field: "name") else { return }
                name = opened
            }
            taggings.append(TaggingVersion(
                Tagging(id: id, recordID: recordID, recordKind: kind, name: name, createdAt: time(.createdAt), updatedAt: time(.updatedAt),
                        removedAt: row.isNull(TagColumn.removedAt) ? nil : time(.removedAt), version: row.int64(TagColumn.version)),
                clock: clock))
        }
        return taggings
    }

    /// Throws unless `id` names a live record of `kind`.
    private func requireLiveTaggable(_ id: EntityID, kind: TaggedKind) throws(StoreError) {
        switch kind {
        case .book: try tables.books.requireLive(id)
        case .annotation:
            var live = false
            try database.forEachRow("SELECT 1 FROM annotation WHERE id = ? AND deleted_at IS NULL", [.text(id.rawValue)]) { _ in live = true }
            guard live else { throw .recordNotFound(id: id.rawValue) }
        }
    }
}

/// The columns of `tagging`, in the order ``TagTable`` selects and writes them.
enum TagColumn: Int32, TableColumns {
    case id, recordID, recordKind, tagName, createdAt, updatedAt, removedAt, version, hlc

    var name: String {
        switch self {
        case .id: "id"
        case .recordID: "record_id"
        case .recordKind: "record_kind"
        case .tagName: "name"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .removedAt: "removed_at"
        case .version: "version"
        case .hlc: "hlc"
        }
    }
}
