import Foundation
public import Journal
import Telemetry
import VaultCrypto

/// An operation another device made, opened from its remote file, to be applied here.
public struct IncomingOperation: Sendable {
    public let idempotencyKey: String
    public let deviceID: String
    public let entity: OutboxEntity
    public let action: OutboxAction
    public let entityID: String
    public let clock: HybridTimestamp
    public let base: HybridTimestamp?
    /// The record after the change, as JSON (``OutboxPayload``). Journal content.
    public let payload: [UInt8]

    public init(idempotencyKey: String, deviceID: String, entity: OutboxEntity, action: OutboxAction, entityID: String,
                clock: HybridTimestamp, base: HybridTimestamp?, payload: [UInt8]) {
        self.idempotencyKey = idempotencyKey
        self.deviceID = deviceID
        self.entity = entity
        self.action = action
        self.entityID = entityID
        self.clock = clock
        self.base = base
        self.payload = payload
    }
}

/// What applying a batch of incoming operations did.
public struct ApplyReport: Sendable, Equatable {
    /// Operations applied (including ones that changed nothing here).
    public var applied = 0
    /// Conflicts found: conflict copies made, deleted notes brought back by an edit.
    public var conflicts = 0
    /// Operations that need a record not here yet (a note before its book): tried again next sync.
    public var deferred = 0
    /// Operations that can never apply (malformed): recorded as seen, reported, never retried.
    public var rejected = 0

    public init() {}

    public static func += (lhs: inout ApplyReport, rhs: ApplyReport) {
        lhs.applied += rhs.applied
        lhs.conflicts += rhs.conflicts
        lhs.deferred += rhs.deferred
        lhs.rejected += rhs.rejected
    }
}

extension Store {
    /// Idempotency keys of `device`'s operations already applied here.
    public func appliedOperationKeys(from device: String) throws(StoreError) -> Set<String> {
        var keys = Set<String>()
        try database.forEachRow("SELECT idempotency_key FROM applied_operation WHERE device_id = ?", [.text(device)]) { row in
            keys.insert(row.text(0))
        }
        return keys
    }

    /// Live (not deleted) books and notes, and how many of `ids` are among them: what a
    /// sync that deletes `ids` would remove, for the mass-delete fail-safe.
    public func liveRecords(among ids: [String]) throws(StoreError) -> (matching: Int, total: Int) {
        var total = 0
        try database.forEachRow("""
            SELECT (SELECT count(*) FROM book WHERE deleted_at IS NULL) + (SELECT count(*) FROM annotation WHERE deleted_at IS NULL)
            """) { row in total = Int(row.int64(0)) }
        var matching = 0
        for id in Set(ids) {
            try database.forEachRow("""
                SELECT (SELECT count(*) FROM book WHERE id = ?1 AND deleted_at IS NULL)
                     + (SELECT count(*) FROM annotation WHERE id = ?1 AND deleted_at IS NULL)
                """, [.text(id)]) { row in matching += Int(row.int64(0)) }
        }
        return (matching, total)
    }

    /// Applies other devices' operations in ONE transaction, in clock order, each through
    /// the conflict policy of its kind of data, and records each as applied in the same
    /// transaction: a reader never sees half a batch, and an operation is applied once.
    public func apply(_ operations: [IncomingOperation]) throws(StoreError) -> ApplyReport {
        let cipher = try requireCipher()
        return try database.writeTransaction { () throws(StoreError) -> ApplyReport in
            var report = ApplyReport()
            for operation in operations.sorted(by: { $0.clock < $1.clock }) {
                var seen = false
                try database.forEachRow("SELECT 1 FROM applied_operation WHERE idempotency_key = ?",
                                        [.text(operation.idempotencyKey)]) { _ in seen = true }
                if seen { continue }
                try observe(operation.clock)
                let outcome: ApplyOutcome
                do {
                    let payload = try JSONDecoder().decode(OutboxPayload.self, from: Data(operation.payload))
                    outcome = try apply(operation, payload, cipher: cipher)
                } catch let error as StoreError {
                    throw error
                } catch {
                    outcome = .rejected
                }
                switch outcome {
                case .applied: report.applied += 1
                case .conflict: report.applied += 1; report.conflicts += 1
                case .deferred: report.deferred += 1; continue
                case .rejected:
                    report.rejected += 1
                    log.warning("sync.operation.rejected", ["entity": .public(operation.entity.rawValue), "action": .public(operation.action.rawValue)])
                }
                try database.run("INSERT INTO applied_operation (idempotency_key, device_id, hlc, applied_at) VALUES (?, ?, ?, ?)",
                                 [.text(operation.idempotencyKey), .text(operation.deviceID), .text(operation.clock.description),
                                  .integer(clock.now().millisecondsSince1970)])
            }
            return report
        }
    }

    private enum ApplyOutcome {
        case applied, conflict, deferred, rejected
    }

    private func apply(_ operation: IncomingOperation, _ payload: OutboxPayload, cipher: RecordCipher) throws(StoreError) -> ApplyOutcome {
        // A snapshot that breaks the journal's rules is input like any other bad input: refused.
        switch operation.entity {
        case .book:
            guard let snapshot = payload.book, let book = try? snapshot.book() else { return .rejected }
            return try applyBook(book, snapshot: snapshot, operation, cipher: cipher)
        case .session:
            guard let session = try? payload.session?.session() else { return .rejected }
            return try applySession(session, operation, cipher: cipher)
        case .annotation:
            guard let annotation = try? payload.annotation?.annotation() else { return .rejected }
            return try applyAnnotation(annotation, operation, cipher: cipher)
        }
    }

    // MARK: - Notes and quotes

    private func applyAnnotation(_ incoming: Annotation, _ operation: IncomingOperation, cipher: RecordCipher) throws(StoreError) -> ApplyOutcome {
        guard incoming.id.rawValue == operation.entityID else { return .rejected }
        let localClock = try recordClock(table: "annotation", id: incoming.id)
        guard let localClock else {
            guard try bookExists(incoming.bookID) else {
                // A deletion of a note never seen here, whose book is gone too: nothing to keep.
                return incoming.deletedAt == nil ? .deferred : .applied
            }
            try writeAnnotation(incoming, clock: operation.clock, cipher: cipher, insert: true)
            return .applied
        }
        if localClock == operation.clock { return .applied }   // the same version, already here
        // A conflict copy another device made too: it is here already, in whatever state the
        // reader has left it since (a resolution travels as its own operation).
        if operation.base == nil, incoming.conflictOf != nil { return .applied }
        let local: Annotation
        do { local = try annotation(incoming.id) } catch .recordUnreadable {
            // What is here cannot be read; the other device's version can: take it.
            try writeAnnotation(incoming, clock: operation.clock, cipher: cipher, insert: false)
            return .applied
        }
        // Changed here since the version the other device changed? Certainly so if a change
        // made here has reached no remote yet: no other device can have seen it.
        var localChanged = operation.base.map { localClock > $0 } ?? true
        if !localChanged { localChanged = try hasUnsentOperation(on: incoming.id) }
        let resolution = NoteAndQuoteTextPolicy().resolve(
            local: Side(local, clock: localClock, isDeleted: local.deletedAt != nil),
            remote: Side(incoming, clock: operation.clock, isDeleted: incoming.deletedAt != nil),
            divergence: Divergence(localChanged: localChanged, remoteChanged: true))
        switch resolution {
        case .winner(let winner, _):
            // Even when the text here stays, the record takes the later clock: both devices
            // now hold the same version, and the next change on either is based on it.
            if !localChanged || winner != local || operation.clock > localClock {
                try writeAnnotation(winner, clock: max(operation.clock, localClock), cipher: cipher, insert: false)
            }
            try markSynced("annotation", incoming.id, operation.clock)
            return .applied
        case .needsUser(let mine, let theirs, _):
            try materializeConflict(local: mine, localClock: localClock, remote: theirs, remoteClock: operation.clock, cipher: cipher)
            return .conflict
        }
    }

    /// Writes a conflict the same way on every device: an edit beats a deletion (the note
    /// comes back, flagged); of two edits, the later one (by clock) stays in the note and the
    /// other becomes a conflict copy whose id is derived from the note and the losing clock.
    /// The survivor and the copy are also sent on, for devices that meet the versions in
    /// another order.
    private func materializeConflict(local: Annotation, localClock: HybridTimestamp, remote: Annotation,
                                     remoteClock: HybridTimestamp, cipher: RecordCipher) throws(StoreError) {
        let localDeleted = local.deletedAt != nil
        let remoteDeleted = remote.deletedAt != nil
        if localDeleted != remoteDeleted {
            var survivor = localDeleted ? remote : local
            survivor.conflictReason = .editedAfterDelete
            // A new version, after both: a record's clock that went backwards would let the
            // next change overwrite the survivor as if it were clean. It travels, so a device
            // that met the two versions the other way round comes to the same flagged note.
            let stamp = try tick()
            try writeAnnotation(survivor, clock: stamp, cipher: cipher, insert: false)
            try enqueue(.annotation, .update, id: survivor.id, baseVersion: survivor.version, payload: OutboxPayload(survivor),
                        cipher: cipher, at: clock.now(), clock: stamp, base: max(localClock, remoteClock))
            try markSynced("annotation", local.id, remoteClock)
            return
        }
        let remoteWins = remoteClock > localClock
        let (winner, loser, loserClock) = remoteWins ? (remote, local, localClock) : (local, remote, remoteClock)
        if remoteWins {
            try writeAnnotation(winner, clock: remoteClock, cipher: cipher, insert: false)
        }
        let copy = Annotation(id: Self.conflictCopyID(of: local.id, losingClock: loserClock), bookID: loser.bookID,
                              kind: loser.kind, body: loser.body, locator: loser.locator,
                              createdAt: loser.updatedAt, updatedAt: loser.updatedAt, deletedAt: nil, version: 1,
                              conflictOf: local.id, conflictReason: .bothEdited)
        if try recordClock(table: "annotation", id: copy.id) == nil {
            try writeAnnotation(copy, clock: loserClock, cipher: cipher, insert: true)
            // A device that meets the versions in another order may not make this copy, so it
            // travels too: the same id and clock everywhere, so the copies merge as one.
            try enqueue(.annotation, .create, id: copy.id, baseVersion: 0, payload: OutboxPayload(copy), cipher: cipher,
                        at: clock.now(), clock: loserClock, base: nil)
        }
        try markSynced("annotation", local.id, remoteClock)
    }

    /// The conflict copy's id, from the note and the losing clock: the same conflict gets
    /// the same copy id on every device.
    static func conflictCopyID(of original: EntityID, losingClock: HybridTimestamp) -> EntityID {
        derivedID("bmvault conflict copy|\(original.rawValue)|\(losingClock.description)") ?? original
    }

    /// `8`-versioned UUID text from SHA-256 of `seed`: ids every device derives alike.
    /// Nil only if the digest were not hex, which it always is.
    static func derivedID(_ seed: String) -> EntityID? {
        var digits = Array(SHA256.hex(of: Array(seed.utf8)).utf8.prefix(32))
        digits[12] = UInt8(ascii: "8")
        digits[16] = Array("89ab".utf8)[Int(digits[16]) % 4]
        let text = String(decoding: digits, as: UTF8.self)
        let parts = [text.prefix(8), text.dropFirst(8).prefix(4), text.dropFirst(12).prefix(4), text.dropFirst(16).prefix(4), text.dropFirst(20)]
        return try? EntityID(validating: parts.joined(separator: "-"))
    }

    /// Writes a record that came from (or was decided with) another device: no outbox
    /// operation, since the other devices have it or will derive it themselves.
    private func writeAnnotation(_ annotation: Annotation, clock: HybridTimestamp, cipher: RecordCipher, insert: Bool) throws(StoreError) {
        let values = try annotationValues(annotation, cipher: cipher) + [.text(clock.description)]
        if annotation.deletedAt == nil {
            // A live note needs a live book: one deleted on another device comes back, as
            // that device's own copy of the book does when the note reaches it. A purged
            // book has no title left to show, so it stays deleted; the note stays listed.
            try database.run("UPDATE book SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL AND length(title) > 0",
                             [.text(annotation.bookID.rawValue)])
        }
        if insert {
            try database.run("""
                INSERT INTO annotation (\(Self.annotationColumns), hlc, synced_hlc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?12, ?12)
                """, values)
        } else {
            try database.run("""
                UPDATE annotation SET book_id = ?2, kind = ?3, body = ?4, locator = ?5, created_at = ?6,
                                      updated_at = ?7, deleted_at = ?8, version = ?9, conflict_of = ?10,
                                      conflict_reason = ?11, hlc = ?12
                WHERE id = ?1
                """, values)
        }
    }

    // MARK: - Books and sessions

    private func applyBook(_ incoming: Book, snapshot: OutboxPayload.BookSnapshot, _ operation: IncomingOperation,
                           cipher: RecordCipher) throws(StoreError) -> ApplyOutcome {
        guard incoming.id.rawValue == operation.entityID else { return .rejected }
        let incomingProgressClock = snapshot.progressClock.flatMap { try? HybridTimestamp(parsing: $0) } ?? operation.clock
        let incomingRewind = snapshot.progressRewind ?? false
        guard let localClock = try recordClock(table: "book", id: incoming.id) else {
            try database.run("INSERT INTO book (\(Self.bookColumns), hlc, synced_hlc, progress_hlc, progress_rewind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?9, ?9, ?10, ?11)",
                             try bookValues(incoming, cipher: cipher)
                                + [.text(operation.clock.description), .text(incomingProgressClock.description), .integer(incomingRewind ? 1 : 0)])
            return .applied
        }
        if localClock == operation.clock { return .applied }
        let local = try book(incoming.id)
        var localProgressClock = localClock
        var localRewind = false
        try database.forEachRow("SELECT progress_hlc, progress_rewind FROM book WHERE id = ?", [.text(incoming.id.rawValue)]) { row in
            if let clock = try? HybridTimestamp(parsing: row.text(0)) { localProgressClock = clock }
            localRewind = row.int64(1) == 1
        }
        let divergence = Divergence(localChanged: operation.base.map { localClock > $0 } ?? true, remoteChanged: true)
        guard case .winner(var merged, _) = BookMetadataPolicy().resolve(
            local: Side(local, clock: localClock), remote: Side(incoming, clock: operation.clock), divergence: divergence),
            case .winner(let position, _) = ProgressPolicy().resolve(
                local: Side(.init(percent: local.progress, isRewind: localRewind), clock: localProgressClock),
                remote: Side(.init(percent: incoming.progress, isRewind: incomingRewind), clock: incomingProgressClock),
                divergence: divergence) else { return .rejected }
        merged.progress = position.percent
        if merged.title.isEmpty {
            // A purged tombstone's deletion (no content) that did not take: the book keeps its own.
            merged.title = local.title
            merged.authors = local.authors
        }
        let progressClock = position == .init(percent: incoming.progress, isRewind: incomingRewind)
            && (incoming.progress != local.progress || incomingRewind != localRewind) ? incomingProgressClock : localProgressClock
        // A book is not deleted under notes someone still has.
        if merged.deletedAt != nil, try liveAnnotationCount(of: incoming.id) > 0 { merged.deletedAt = nil }
        merged.version = max(local.version, incoming.version)
        merged.updatedAt = max(local.updatedAt, incoming.updatedAt)
        try database.run("""
            UPDATE book SET title = ?2, authors = ?3, progress = ?4, created_at = ?5, updated_at = ?6, deleted_at = ?7,
                            version = ?8, hlc = ?9, progress_hlc = ?10, progress_rewind = ?11
            WHERE id = ?1
            """, try bookValues(merged, cipher: cipher)
                + [.text(max(localClock, operation.clock).description), .text(progressClock.description),
                   .integer(position.isRewind ? 1 : 0)])
        try markSynced("book", incoming.id, operation.clock)
        return .applied
    }

    private func applySession(_ incoming: ReadingSession, _ operation: IncomingOperation, cipher: RecordCipher) throws(StoreError) -> ApplyOutcome {
        var exists = false
        try database.forEachRow("SELECT 1 FROM reading_session WHERE id = ?", [.text(incoming.id.rawValue)]) { _ in exists = true }
        if exists {
            let local = try session(incoming.id)
            guard case .winner(let kept, _) = SessionUnionPolicy().resolve(
                local: Side(local, clock: operation.clock), remote: Side(incoming, clock: operation.clock),
                divergence: Divergence(localChanged: false, remoteChanged: true)) else { return .rejected }
            if kept != local {
                try database.run("UPDATE reading_session SET started_at = ?2, ended_at = ?3, pages_read = ?4 WHERE id = ?1",
                                 [.text(kept.id.rawValue), .integer(kept.startedAt.millisecondsSince1970),
                                  .integer(kept.endedAt.millisecondsSince1970), .integer(Int64(kept.pagesRead))])
            }
            return .applied
        }
        guard try bookExists(incoming.bookID) else { return .deferred }
        try database.run("INSERT INTO reading_session (id, book_id, started_at, ended_at, pages_read) VALUES (?, ?, ?, ?, ?)",
                         [.text(incoming.id.rawValue), .text(incoming.bookID.rawValue),
                          .integer(incoming.startedAt.millisecondsSince1970), .integer(incoming.endedAt.millisecondsSince1970),
                          .integer(Int64(incoming.pagesRead))])
        return .applied
    }

    private func hasUnsentOperation(on id: EntityID) throws(StoreError) -> Bool {
        var found = false
        try database.forEachRow("""
            SELECT 1 FROM outbox o WHERE o.entity_id = ? AND o.state != 'done'
              AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.operation_id = o.id) LIMIT 1
            """, [.text(id.rawValue)]) { _ in found = true }
        return found
    }

    private func bookExists(_ id: EntityID) throws(StoreError) -> Bool {
        var exists = false
        try database.forEachRow("SELECT 1 FROM book WHERE id = ?", [.text(id.rawValue)]) { _ in exists = true }
        return exists
    }

    private func liveAnnotationCount(of bookID: EntityID) throws(StoreError) -> Int {
        var count = 0
        try database.forEachRow("SELECT count(*) FROM annotation WHERE book_id = ? AND deleted_at IS NULL",
                                [.text(bookID.rawValue)]) { row in count = Int(row.int64(0)) }
        return count
    }

    private func markSynced(_ table: String, _ id: EntityID, _ clock: HybridTimestamp) throws(StoreError) {
        try database.run("UPDATE \(table) SET synced_hlc = ?2 WHERE id = ?1 AND (synced_hlc IS NULL OR synced_hlc < ?2)",
                         [.text(id.rawValue), .text(clock.description)])
    }
}

extension Store {
    /// The ids of books and notes that `operations` would mark deleted, for the
    /// mass-delete fail-safe (checked before anything is applied).
    public func deletions(in operations: [IncomingOperation]) -> [String] {
        operations.compactMap { operation in
            guard operation.action == .delete || operation.entity != .session,
                  let payload = try? JSONDecoder().decode(OutboxPayload.self, from: Data(operation.payload)) else { return nil }
            if payload.book?.deletedAt != nil || payload.annotation?.deletedAt != nil { return operation.entityID }
            return nil
        }
    }
}
