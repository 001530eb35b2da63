public import Journal

/// Which annotations a listing wants: every condition given must hold.
public struct AnnotationFilter: Sendable {
    public var bookID: EntityID?
    public var kind: AnnotationKind?
    public var includeDeleted: Bool
    /// Only deleted ones whose text is still here (`trash`).
    public var onlyDeleted = false
    /// Created at or after this moment.
    public var createdFrom: Timestamp?
    /// Created before this moment.
    public var createdBefore: Timestamp?
    /// Only these (the notes and quotes a tag is on).
    public var ids: Set<EntityID>?

    public init(bookID: EntityID? = nil, kind: AnnotationKind? = nil, includeDeleted: Bool = false,
                createdFrom: Timestamp? = nil, createdBefore: Timestamp? = nil, ids: Set<EntityID>? = nil) {
        self.bookID = bookID
        self.kind = kind
        self.includeDeleted = includeDeleted
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.ids = ids
    }

    /// The `WHERE` clause, its values numbered from `?1`.
    func sql() -> (clause: String, values: [SQLValue]) {
        var conditions: [String] = []
        var values: [SQLValue] = []
        func require(_ condition: (String) -> String, _ value: SQLValue) {
            values.append(value)
            conditions.append(condition("?\(values.count)"))
        }
        if let bookID { require({ "book_id = \($0)" }, .text(bookID.rawValue)) }
        if let kind { require({ "kind = \($0)" }, .text(kind.rawValue)) }
        if let createdFrom { require({ "created_at >= \($0)" }, .integer(createdFrom.millisecondsSince1970)) }
        if let createdBefore { require({ "created_at < \($0)" }, .integer(createdBefore.millisecondsSince1970)) }
        if let ids {
            // One value, a JSON array of ids (which need no escaping), however many there are.
            let list = "[" + ids.map { "\"\($0.rawValue)\"" }.sorted().joined(separator: ",") + "]"
            require({ "id IN (SELECT value FROM json_each(\($0)))" }, .text(list))
        }
        // Purged tombstones have nothing left to show.
        conditions.append(onlyDeleted ? "deleted_at IS NOT NULL AND length(body) > 0"
                          : includeDeleted ? "length(body) > 0" : "deleted_at IS NULL")
        return ("WHERE " + conditions.joined(separator: " AND "), values)
    }
}

/// The order of a listing. Every order ends with the id, so that equal times list alike
/// on every run and every device.
public enum AnnotationOrder: Sendable, Equatable {
    /// Books in the order they were added, each book's notes and quotes oldest first: what
    /// `list` has always shown, and what `--book` reads from an index.
    case bookAdded
    /// Oldest first, all books together.
    case created
    /// Least recently changed first, so the latest change is printed last.
    case updated

    var sql: String {
        switch self {
        case .bookAdded: "book_id, created_at, id"
        case .created: "created_at, id"
        case .updated: "updated_at, id"
        }
    }
}
