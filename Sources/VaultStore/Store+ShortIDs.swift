public import Journal

extension Store {
    /// An id's random part in SQL, exactly as the indexes of migration 0014 hold it (the
    /// planner uses an expression index only for the very same expression).
    static let randomPartSQL = "(substr(id, 16, 3) || substr(id, 20, 4) || substr(id, 25, 12))"

    /// The tables whose records a person names by id.
    private static let namedTables = ["book", "reading_session", "annotation"]

    /// Live records (tombstones, with `deleted`) whose id's random part starts with
    /// `shortID`, checked with ``ShortID/isPossible(_:)``.
    public func records(withShortID shortID: String, deleted: Bool = false) throws(StoreError) -> [RecordReference] {
        let part = Self.randomPartSQL
        let state = deleted ? "IS NOT NULL" : "IS NULL"
        // Random parts are lowercase hex digits, all below "g".
        let values: [SQLValue] = [.text(shortID), .text(shortID + "g")]
        var found: [RecordReference] = []
        try database.forEachRow("""
            SELECT id, 'book' FROM book WHERE \(part) >= ?1 AND \(part) < ?2 AND deleted_at \(state)
            UNION ALL SELECT id, 'session' FROM reading_session WHERE \(part) >= ?1 AND \(part) < ?2 AND deleted_at \(state)
            UNION ALL SELECT id, 'annotation' FROM annotation WHERE \(part) >= ?1 AND \(part) < ?2 AND deleted_at \(state)
            LIMIT 50
            """, values) { row in
            if let id = try? EntityID(validating: row.text(0)), let kind = RecordReference.Kind(rawValue: row.text(1)) {
                found.append(RecordReference(id: id, kind: kind))
            }
        }
        return found
    }

    /// The shortest start of `id`'s random part that no other book, session, note or quote
    /// shares, live or deleted (so the form shown is accepted back by every command,
    /// `undelete` too). Nil when another record has the very same random part.
    ///
    /// Each length from six up is one query counting the records whose random part starts
    /// so, answered from the indexes alone (no row is read); six digits almost always do.
    public func shortID(of id: EntityID) throws(StoreError) -> String? {
        let part = ShortID.randomPart(of: id)
        let counted = Self.countSharing(from: "?1", below: "?2")
        for length in ShortID.minimumLength...ShortID.maximumLength {
            let prefix = String(part.prefix(length))
            var sharing = 0
            try database.forEachRow("SELECT " + counted, [.text(prefix), .text(prefix + "g")]) { row in sharing = Int(row.int64(0)) }
            if sharing <= 1 { return prefix }
        }
        return nil
    }

    /// The short ids of those of `ids` that six digits name, in one query (the ids passed
    /// as one JSON array): for a listing that knows its records before it prints them,
    /// where one query per id cost more than the listing. The others are left out, for
    /// ``shortID(of:)``.
    public func sixDigitShortIDs(of ids: [EntityID]) throws(StoreError) -> [EntityID: String] {
        var byPrefix: [String: EntityID] = [:]
        for id in ids { byPrefix[String(ShortID.randomPart(of: id).prefix(ShortID.minimumLength))] = id }
        let counted = Self.countSharing(from: "p.value", below: "p.value || 'g'")
        let list = "[" + byPrefix.keys.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        var found: [EntityID: String] = [:]
        try database.forEachRow("SELECT p.value, \(counted) FROM json_each(?1) AS p", [.text(list)]) { row in
            let prefix = row.text(0)
            if row.int64(1) <= 1, let id = byPrefix[prefix] { found[id] = prefix }
        }
        return found
    }

    /// SQL for how many records (0, 1, or 2 for more) of all the named tables have a random
    /// part from `lower` up to `upper` (a prefix and the same + "g"), read from the indexes
    /// alone.
    private static func countSharing(from lower: String, below upper: String) -> String {
        namedTables.map { table in
            "(SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE \(randomPartSQL) >= \(lower) AND \(randomPartSQL) < \(upper) LIMIT 2))"
        }.joined(separator: " + ")
    }

    /// Every record's random part, for a long listing (``RandomPartIndex``).
    public func randomPartIndex() throws(StoreError) -> RandomPartIndex {
        var runs: [[RandomPartIndex.Part]] = []
        for table in Self.namedTables {
            var parts: [RandomPartIndex.Part] = []
            try database.forEachRow("SELECT \(Self.randomPartSQL) FROM \(table) ORDER BY 1") { row in
                if let part = row.withBytes(0, { RandomPartIndex.Part(digits: $0) }) { parts.append(part) }
            }
            runs.append(parts)
        }
        return RandomPartIndex(merging: runs)
    }
}
