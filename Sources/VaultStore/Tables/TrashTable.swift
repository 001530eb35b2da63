public import Journal

/// `bmvault delete` and `undelete`: records of several kinds tombstoned or brought back
/// together, in the one write transaction the tables were handed.
public struct TrashTable {
    let tables: Tables

    /// Tombstones notes, quotes, sessions and books in this write transaction: all of them,
    /// or, if one cannot go (a book that would still have notes), none. Notes go first, so
    /// a book deleted with its last notes may go. Returns each record's kind and id, in the
    /// order given.
    public func delete(_ references: [RecordReference]) throws(StoreError) -> [(kind: String, id: EntityID)] {
        tables.requireWrite()
        var kinds: [EntityID: String] = [:]
        for reference in references where reference.kind == .annotation {
            kinds[reference.id] = try tables.annotations.delete(reference.id).kind.rawValue
        }
        for reference in references where reference.kind == .session {
            try tables.sessions.delete(reference.id)
        }
        for reference in references where reference.kind == .book {
            try tables.books.delete(reference.id)
        }
        return references.map { (kinds[$0.id] ?? $0.kind.rawValue, $0.id) }
    }

    /// Brings deleted notes, quotes, books and sessions back, in this write transaction: all
    /// of them, or none. Each comes back as a change of its own (a new version, synced like
    /// an edit); a note whose book is deleted brings the book back with it. A record whose
    /// content was purged cannot come back (`recordPurged`). Books go first, so a book and
    /// its notes can come back together. Returns each record's kind and id, in the order given.
    public func undelete(_ references: [RecordReference]) throws(StoreError) -> [(kind: String, id: EntityID)] {
        tables.requireWrite()
        var kinds: [EntityID: String] = [:]
        for reference in references where reference.kind == .book {
            try undeleteBook(reference.id)
        }
        for reference in references where reference.kind == .annotation {
            let note = try tables.annotations.annotation(reference.id)
            guard note.deletedAt != nil else { continue }
            guard !note.body.isEmpty else { throw .recordPurged(id: reference.id.rawValue) }
            if try tables.books.presence(note.bookID) != .live { try undeleteBook(note.bookID) }
            let restored = try tables.annotations.change(reference.id, action: .update, requireLive: false) { $0.deletedAt = nil }
            kinds[reference.id] = restored.kind.rawValue
        }
        for reference in references where reference.kind == .session {
            let session = try tables.sessions.change(reference.id, action: .update, requireLive: false) { (session) throws(StoreError) in
                var restored = session
                restored.deletedAt = nil
                return restored
            }
            if try tables.books.presence(session.bookID) != .live { try undeleteBook(session.bookID) }
        }
        return references.map { (kinds[$0.id] ?? $0.kind.rawValue, $0.id) }
    }

    private func undeleteBook(_ id: EntityID) throws(StoreError) {
        switch try tables.books.presence(id) {
        case .live: return
        case .purged: throw .recordPurged(id: id.rawValue)
        case .missing: throw .recordNotFound(id: id.rawValue)
        case .deleted:
            try tables.books.change(id, action: .update, parts: .metadata, requireLive: false) { $0.deletedAt = nil }
        }
    }

    /// The deleted books whose title is still here, oldest first.
    public func deletedBooks() throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        try tables.books.all(where: "WHERE deleted_at IS NOT NULL AND length(title) > 0")
    }

    /// The deleted sessions, in the order they started.
    public func deletedSessions() throws(StoreError) -> [ReadingSession] {
        try tables.sessions.versions(where: "deleted_at IS NOT NULL", []).map(\.session)
    }
}
