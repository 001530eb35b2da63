public import Journal

extension Store {
    /// Brings deleted notes, quotes, books and sessions back, in one write transaction: all
    /// of them, or none. Each comes back as a change of its own (a new version, synced like
    /// an edit); a note whose book is deleted brings the book back with it. A record whose
    /// content was purged cannot come back (`recordPurged`). Books go first, so a book and
    /// its notes can come back together. Returns each record's kind and id, in the order given.
    public func undelete(_ references: [RecordReference]) throws(StoreError) -> [(kind: String, id: EntityID)] {
        try database.writeTransaction { () throws(StoreError) in
            var kinds: [EntityID: String] = [:]
            for reference in references where reference.kind == .book {
                try undeleteBook(reference.id)
            }
            for reference in references where reference.kind == .annotation {
                let note = try annotation(reference.id)
                guard note.deletedAt != nil else { continue }
                guard !note.body.isEmpty else { throw .recordPurged(id: reference.id.rawValue) }
                if try bookPresence(note.bookID) != .live { try undeleteBook(note.bookID) }
                let restored = try changeAnnotationInTransaction(reference.id, action: .update, requireLive: false) { $0.deletedAt = nil }
                kinds[reference.id] = restored.kind.rawValue
            }
            for reference in references where reference.kind == .session {
                let session = try tablesOfThisTransaction.sessions.change(reference.id, action: .update, requireLive: false) { (session) throws(StoreError) in
                    var restored = session
                    restored.deletedAt = nil
                    return restored
                }
                if try bookPresence(session.bookID) != .live { try undeleteBook(session.bookID) }
            }
            return references.map { (kinds[$0.id] ?? $0.kind.rawValue, $0.id) }
        }
    }

    private func undeleteBook(_ id: EntityID) throws(StoreError) {
        switch try bookPresence(id) {
        case .live: return
        case .purged: throw .recordPurged(id: id.rawValue)
        case .missing: throw .recordNotFound(id: id.rawValue)
        case .deleted:
            try changeBookInTransaction(id, action: .update, parts: .metadata, requireLive: false) { $0.deletedAt = nil }
        }
    }

    /// The deleted books whose title is still here, oldest first.
    public func deletedBooks() throws(StoreError) -> [Result<Book, UnreadableRecord>] {
        try books(where: "WHERE deleted_at IS NOT NULL AND length(title) > 0")
    }

    /// The deleted sessions, in the order they started.
    public func deletedSessions() throws(StoreError) -> [ReadingSession] {
        try read { tables throws(StoreError) in try tables.sessions.versions(where: "deleted_at IS NOT NULL", []).map(\.session) }
    }
}
