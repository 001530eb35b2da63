public import Journal
import SyncWire

/// Which side a reader keeps when resolving a conflict. The same word means the same
/// text on every device (`mine` and `theirs` are worked out per device, in VaultKit).
public enum ConflictChoice: String, Sendable, CaseIterable {
    /// The text in the note now (for a note brought back by an edit: keep it).
    case note
    /// The other side: the conflict copy's text (for a note brought back: the deletion).
    case other
    /// Both: the conflict copy becomes a note of its own.
    case both
}

/// The two sides of one conflict, as `bmvault conflicts` shows them.
public struct ConflictSides: Sendable, Equatable {
    /// One side: its text (nil for a deletion, or a note no longer there), and which device
    /// wrote it when (nil when not known: a record from before clocks).
    public struct Side: Sendable, Equatable {
        public let text: String?
        public let locator: Locator?
        public let deviceID: String?
        public let at: Timestamp?
        /// The quote's comment on this side (bmvault 0.16): two sides may differ only there.
        public var comment: String? = nil
    }

    public let reason: ConflictReason
    /// The text in the note.
    public let note: Side
    /// The conflict copy's text, or (for a note brought back) the deletion.
    public let other: Side

    /// The side `device` wrote, when it wrote exactly one of them.
    public func side(writtenBy device: String) -> ConflictChoice? {
        let noteHere = note.deviceID == device, otherHere = other.deviceID == device
        guard noteHere != otherHere else { return nil }
        return noteHere ? .note : .other
    }
}

/// What `conflicts resolve --keep` keeps, in words that mean the same text on every device
/// (`note`, `copy`, `both`), or worked out on the device that resolves (`mine`: the side
/// written there; `theirs`: the side written elsewhere).
public enum ConflictKeep: String, Sendable, CaseIterable {
    /// The text in the note (a note brought back by an edit: keep it).
    case note
    /// The conflict copy's text, in the note.
    case copy
    /// Both texts: the copy becomes a note of its own (a note brought back: keep it).
    case both
    /// The side this device wrote: its text, or (a note brought back elsewhere) its deletion.
    case mine
    /// The side another device wrote.
    case theirs

    /// The side of `sides` this word names, on `device`.
    func choice(for sides: ConflictSides, on device: String) throws(StoreError) -> ConflictChoice {
        switch self {
        case .note: return .note
        case .both: return .both
        case .copy:
            guard sides.reason == .bothEdited else { throw .conflictSideUnclear(.noCopy) }
            return .other
        case .mine, .theirs:
            guard let mine = sides.side(writtenBy: device) else {
                throw .conflictSideUnclear(sides.note.deviceID == device ? .bothWrittenHere : .neitherWrittenHere)
            }
            if self == .mine { return mine }
            return mine == .note ? .other : .note
        }
    }
}

/// Why a `--keep` word does not name one side of a conflict.
public enum ConflictSideProblem: Sendable, Equatable {
    /// `copy` for a note an edit brought back: it has no copy, only the deletion.
    case noCopy
    /// `mine` or `theirs`, and neither side was written on this device.
    case neitherWrittenHere
    /// `mine` or `theirs`, and both sides were written on this device.
    case bothWrittenHere
}

extension AnnotationTable {
    /// How many conflicts wait for the reader. Readable while locked: a count, no content.
    public func conflictCount() throws(StoreError) -> Int {
        Int(try database.integer("SELECT count(*) FROM annotation WHERE conflict_reason IS NOT NULL AND deleted_at IS NULL") ?? 0)
    }

    /// The ids of the conflicts that wait for the reader (what ``conflicts()`` lists), no content.
    public func conflictIDs() throws(StoreError) -> Set<String> {
        var ids: Set<String> = []
        try database.forEachRow("SELECT id FROM annotation WHERE conflict_reason IS NOT NULL AND deleted_at IS NULL") { row in
            ids.insert(row.text("id"))
        }
        return ids
    }

    /// Notes and quotes that need the reader: conflict copies, and deleted notes an edit
    /// brought back. Each stays listed until resolved.
    public func conflicts() throws(StoreError) -> [Result<Annotation, UnreadableRecord>] {
        var results: [Result<Annotation, UnreadableRecord>] = []
        var ids: [EntityID] = []
        try database.forEachRow("""
            SELECT id FROM annotation WHERE conflict_reason IS NOT NULL AND deleted_at IS NULL ORDER BY created_at, id
            """) { row in
            if let id = try? EntityID(validating: row.text("id")) { ids.append(id) }
        }
        for id in ids {
            do { results.append(.success(try annotation(id))) } catch .recordUnreadable(let id, let field) {
                results.append(.failure(UnreadableRecord(id: id, field: field)))
            }
        }
        return results
    }

    /// Both sides of the conflict `id` (a conflict copy, or a note an edit brought back).
    public func conflictSides(of id: EntityID) throws(StoreError) -> ConflictSides {
        let flagged = try annotation(id)
        guard flagged.deletedAt == nil, let reason = flagged.conflictReason else { throw .noConflict(id: id.rawValue) }
        switch reason {
        case .bothEdited:
            let copy = try side(of: flagged)
            let gone = ConflictSides(reason: reason, note: ConflictSides.Side(text: nil, locator: nil, deviceID: nil, at: nil), other: copy)
            guard let original = flagged.conflictOf else { return gone }
            let note: Annotation
            do { note = try annotation(original) } catch .recordNotFound { return gone }   // an unreadable note is reported as such
            return note.deletedAt == nil ? ConflictSides(reason: reason, note: try side(of: note), other: copy) : gone
        case .editedAfterDelete:
            // The deletion is one of the versions standing with the edit, when they are kept.
            var deletion = ConflictSides.Side(text: nil, locator: nil, deviceID: nil, at: nil)
            if case .record(let versions)? = try local(id), let deleted = versions.versions.last(where: \.isDeleted) {
                deletion = ConflictSides.Side(text: nil, locator: nil, deviceID: Self.writer(deleted.clock), at: deleted.annotation.deletedAt)
            }
            return ConflictSides(reason: reason, note: try side(of: flagged), other: deletion)
        }
    }

    private func side(of annotation: Annotation) throws(StoreError) -> ConflictSides.Side {
        let clock = try storedRow(annotation.id)?.clock
        return ConflictSides.Side(text: annotation.body, locator: annotation.locator, deviceID: clock.flatMap(Self.writer),
                                  at: annotation.updatedAt, comment: annotation.comment)
    }

    /// The device that wrote a version at `clock` (none for a row from before clocks).
    private static func writer(_ clock: HybridTimestamp) -> String? {
        clock.deviceID.isEmpty ? nil : clock.deviceID
    }

    /// Resolves one conflict, through ordinary edits and deletions (so the resolution syncs
    /// like any change). `id` is a conflict copy, or a note an edit brought back.
    ///
    /// A copy still shown from one of its note's versions (derived) is resolved by a write
    /// to the note, which supersedes that version: `note` lets its text go, `other` puts
    /// it in the note, `both` keeps it as a note of its own first.
    public func resolveConflict(_ id: EntityID, keepingSide choice: ConflictChoice) throws(StoreError) {
        try resolve(id, keep: choice)
    }

    /// Resolves one conflict keeping the side `keep` names on this device, decided inside
    /// the transaction that resolves it: a change another process makes meanwhile is seen.
    public func resolveConflict(_ id: EntityID, keep: ConflictKeep) throws(StoreError) {
        try resolve(id, keep: try keep.choice(for: try conflictSides(of: id), on: store.deviceID))
    }

    private func resolve(_ id: EntityID, keep choice: ConflictChoice) throws(StoreError) {
        tables.requireWrite()
        // Read inside the transaction: a sync in another process may have changed it.
        let flagged = try annotation(id)
        guard flagged.deletedAt == nil, let reason = flagged.conflictReason else {
            throw .noConflict(id: id.rawValue)
        }
        let derived = try storedRow(id)?.derived ?? false
        switch (reason, choice) {
        case (.editedAfterDelete, .note), (.editedAfterDelete, .both):
            try change(id, action: .update) { $0.conflictReason = nil }
        case (.editedAfterDelete, .other):
            try change(id, action: .delete) { $0.conflictReason = nil; $0.deletedAt = $0.updatedAt }
        case (.bothEdited, .note):
            guard derived, let original = flagged.conflictOf else {
                try change(id, action: .delete) { $0.deletedAt = $0.updatedAt }
                return
            }
            try change(original, action: .update, dropping: [id]) { _ in }
        case (.bothEdited, .other):
            guard let original = flagged.conflictOf else { throw .noConflict(id: id.rawValue) }
            // The reader chose this text for the note: it comes back if it was deleted since.
            try change(original, action: .update, requireLive: false, dropping: derived ? [id] : []) { note in
                note.body = flagged.body
                note.locator = flagged.locator
                note.comment = flagged.comment
                note.deletedAt = nil
            }
            if !derived { try change(id, action: .delete) { $0.deletedAt = $0.updatedAt } }
        case (.bothEdited, .both):
            try change(id, action: .update) { note in
                note.conflictOf = nil
                note.conflictReason = nil
            }
            // The note's version this copy showed is superseded, so its text is not shown twice.
            if derived, let original = flagged.conflictOf {
                try change(original, action: .update) { _ in }
            }
        }
    }
}
