public import Journal
import Sync

/// Which version a reader keeps when resolving a conflict.
public enum ConflictChoice: String, Sendable, CaseIterable {
    /// The text in the note now (for a note brought back by an edit: keep it).
    case local
    /// The other text: the conflict copy's (for a note brought back: let the deletion stand).
    case remote
    /// Both: the conflict copy becomes a note of its own.
    case both
}

extension Store {
    /// How many conflicts wait for the reader. Readable while locked: a count, no content.
    public func conflictCount() throws(StoreError) -> Int {
        var count = 0
        try database.forEachRow("SELECT count(*) FROM annotation WHERE conflict_reason IS NOT NULL AND deleted_at IS NULL") { row in
            count = Int(row.int64(0))
        }
        return count
    }

    /// Notes and quotes that need the reader: conflict copies, and deleted notes an edit
    /// brought back. Each stays listed until resolved.
    public func conflicts() throws(StoreError) -> [Result<Annotation, UnreadableRecord>] {
        var results: [Result<Annotation, UnreadableRecord>] = []
        var ids: [EntityID] = []
        try database.forEachRow("""
            SELECT id FROM annotation WHERE conflict_reason IS NOT NULL AND deleted_at IS NULL ORDER BY created_at, id
            """) { row in
            if let id = try? EntityID(validating: row.text(0)) { ids.append(id) }
        }
        for id in ids {
            do { results.append(.success(try annotation(id))) } catch .recordUnreadable(let id, let field) {
                results.append(.failure(UnreadableRecord(id: id, field: field)))
            }
        }
        return results
    }

    /// Resolves one conflict, through ordinary edits and deletions (so the resolution syncs
    /// like any change). `id` is a conflict copy, or a note an edit brought back.
    ///
    /// A copy still shown from one of its note's versions (derived) is resolved by a write
    /// to the note, which supersedes that version: `local` lets its text go, `remote` puts
    /// it in the note, `both` keeps it as a note of its own first.
    public func resolveConflict(_ id: EntityID, keep choice: ConflictChoice) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            // Read inside the transaction: a sync in another process may have changed it.
            let flagged = try annotation(id)
            guard flagged.deletedAt == nil, let reason = flagged.conflictReason else {
                throw .noConflict(id: id.rawValue)
            }
            let derived = try storedAnnotation(id)?.derived ?? false
            switch (reason, choice) {
            case (.editedAfterDelete, .local), (.editedAfterDelete, .both):
                try changeAnnotationInTransaction(id, action: .update) { $0.conflictReason = nil }
            case (.editedAfterDelete, .remote):
                try changeAnnotationInTransaction(id, action: .delete) { $0.conflictReason = nil; $0.deletedAt = $0.updatedAt }
            case (.bothEdited, .local):
                guard derived, let original = flagged.conflictOf else {
                    try changeAnnotationInTransaction(id, action: .delete) { $0.deletedAt = $0.updatedAt }
                    return
                }
                try changeAnnotationInTransaction(original, action: .update, dropping: [id]) { _ in }
            case (.bothEdited, .remote):
                guard let original = flagged.conflictOf else { throw .noConflict(id: id.rawValue) }
                // The reader chose this text for the note: it comes back if it was deleted since.
                try changeAnnotationInTransaction(original, action: .update, requireLive: false, dropping: derived ? [id] : []) { note in
                    note.body = flagged.body
                    note.locator = flagged.locator
                    note.deletedAt = nil
                }
                if !derived { try changeAnnotationInTransaction(id, action: .delete) { $0.deletedAt = $0.updatedAt } }
            case (.bothEdited, .both):
                try changeAnnotationInTransaction(id, action: .update) { note in
                    note.conflictOf = nil
                    note.conflictReason = nil
                }
                // The note's version this copy showed is superseded, so its text is not shown twice.
                if derived, let original = flagged.conflictOf {
                    try changeAnnotationInTransaction(original, action: .update) { _ in }
                }
            }
        }
    }
}
