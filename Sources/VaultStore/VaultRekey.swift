import Journal
import SyncWire
import Telemetry
public import VaultCrypto

/// A `bmvault rekey` that has begun and not yet finished.
public struct RekeyJob: Sendable {
    public let oldKeyID: KeyID
    public let newKeyID: KeyID
    /// Records converted so far, of `total`.
    public let done: Int
    public let total: Int
    /// The keyslots of the new key, which replace the current ones when the job finishes.
    public let pendingKeyslots: [Keyslot]
}

/// How far a rekey has got, in records (rows holding sealed fields).
public struct RekeyProgress: Sendable, Equatable {
    public let done: Int
    public let total: Int
    /// Fields that could not be opened with the old key (damaged records): left as they
    /// were, and reported.
    public let damaged: Int
}

/// Re-encrypts every sealed field under a new vault key, in batches.
///
/// Each batch re-seals up to `batchSize` rows of one table and moves the job's cursor in
/// the same transaction, so a crash loses at most the batch in flight and the next run
/// resumes after the last committed one. The journal is closed to other commands while a
/// job exists (``StoreError/rekeyInProgress``): its fields are under two keys at once.
/// The last transaction swaps the keyslots and the vault's key id, moves the old key into
/// the key chain (``RetiredKey``, sealed under the new one), and deletes the job. Not a
/// table of ``Tables``: a rekey runs many write transactions of its own.
public struct VaultRekey {
    let store: Store
    private var database: Database { store.database }
    private var vaultID: String { store.metadata.vaultID }

    /// The tables and sealed fields a rekey converts, in order (the names `rekey_job.phase`
    /// allows). A note's kept versions (`annotation_version`) are converted with the note.
    static let phases: [(table: String, fields: [String])] = [
        ("book", ["title", "authors", "rating", "edition"]),
        ("annotation", ["body", "locator", "comment", "import_key"]),
        ("tagging", ["name"]),
        ("file", ["checksum", "metadata", "file_key", "link_path"]),
        ("book_file", ["locator"]),
        ("outbox", ["payload"]),
    ]

    /// The unfinished rekey, if there is one.
    public func pending() throws(StoreError) -> RekeyJob? {
        var row: (old: String, new: String, done: Int, total: Int)?
        try database.forEachRow("SELECT old_key_id, new_key_id, done, total FROM rekey_job WHERE id = 1") { result in
            row = (result.text("old_key_id"), result.text("new_key_id"), Int(result.int64("done")), Int(result.int64("total")))
        }
        guard let row else { return nil }
        let slots = try store.read { tables throws(StoreError) in try tables.keys.slots(in: "rekey_keyslot") }
        do {
            return RekeyJob(oldKeyID: try KeyID(hex: row.old), newKeyID: try KeyID(hex: row.new),
                            done: row.done, total: row.total, pendingKeyslots: slots)
        } catch {
            throw .crypto(error)
        }
    }

    /// Records a new rekey: the job and the new key's keyslots, in one transaction.
    public func begin(from oldKey: VaultKey, to newKey: VaultKey, keyslots: [Keyslot]) throws(StoreError) {
        guard oldKey.id == store.metadata.keyID else { throw .keyMismatch }
        try database.writeTransaction { () throws(StoreError) in
            var total = 0
            for phase in Self.phases {
                try database.forEachRow("SELECT count(*) AS count FROM \(phase.table)") { row in total += Int(row.int64("count")) }
            }
            let now = store.clock.now().millisecondsSince1970
            try database.run("""
                INSERT INTO rekey_job (id, old_key_id, new_key_id, phase, cursor, done, total, started_at, updated_at)
                VALUES (1, ?, ?, ?, 0, 0, ?, ?, ?)
                """, [.text(oldKey.id.description), .text(newKey.id.description), .text(Self.phases[0].table),
                      .integer(Int64(total)), .integer(now), .integer(now)])
            // The title cache is sealed under the old key and is rebuilt under the new one,
            // so it is dropped, not converted: nothing may stay readable with the old key.
            try database.run("DELETE FROM book_title_cache")
            try insertPendingKeyslots(keyslots)
        }
    }

    /// Takes up a rekey made on another device, as that device published it (its keyslots,
    /// key chain and keyslot generation, from a remote's descriptor, already checked by the
    /// caller): every field re-sealed from `current` to `newKey` by the same resumable job as
    /// a rekey made here, which this call resumes when an earlier one for the same key was
    /// interrupted (with the slots given now: the newest the other device published). The
    /// chain and the generation are taken in the job's last transaction. The chain ends up
    /// holding both devices' retired keys; when it holds one the other device's lacks (the
    /// two rekeyed at once), the generation is one higher, so this device's descriptor
    /// carries it to them.
    public func follow(from current: VaultKey, to newKey: VaultKey, keyslots: [Keyslot], keyChain: [RetiredKey],
                       generation: Int, batchSize: Int = 500, progress: (RekeyProgress) -> Void) throws(StoreError) {
        if let job = try pending() {
            guard job.newKeyID == newKey.id else { throw .rekeyInProgress }
            try replacePendingKeyslots(keyslots)
        } else {
            try begin(from: current, to: newKey, keyslots: keyslots)
        }
        try resume(from: current, to: newKey, batchSize: batchSize,
                   adopting: (keyChain: keyChain, generation: generation), progress: progress)
        try store.attach(newKey)
    }

    private func replacePendingKeyslots(_ keyslots: [Keyslot]) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("DELETE FROM rekey_keyslot")
            try insertPendingKeyslots(keyslots)
        }
    }

    private func insertPendingKeyslots(_ keyslots: [Keyslot]) throws(StoreError) {
        let now = store.clock.now().millisecondsSince1970
        for slot in keyslots {
            try database.run("""
                INSERT INTO rekey_keyslot (id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(slot.id), .text(slot.kind.rawValue), .text(slot.kdf.algorithm),
                      .integer(Int64(slot.kdf.opsLimit)), .integer(Int64(slot.kdf.memLimit)),
                      .blob(slot.salt), .blob(slot.wrappedKey), .integer(now)])
        }
    }

    /// Converts the remaining fields, batch by batch, then finishes the job. `adopting`: for
    /// a rekey made on another device, its key chain and keyslot generation, taken in the
    /// same last transaction (see ``follow(from:to:keyslots:keyChain:generation:batchSize:progress:)``).
    public func resume(from oldKey: VaultKey, to newKey: VaultKey, batchSize: Int = 500,
                       adopting published: (keyChain: [RetiredKey], generation: Int)? = nil,
                       progress: (RekeyProgress) -> Void) throws(StoreError) {
        guard let job = try pending() else { return }
        guard oldKey.id == job.oldKeyID, newKey.id == job.newKeyID else { throw .keyMismatch }
        let old = FieldSealer(key: oldKey, vaultID: vaultID)
        let new = FieldSealer(key: newKey, vaultID: vaultID)
        var damaged = 0
        var batch = 0
        while true {
            let (done, total, finished) = try database.writeTransaction { () throws(StoreError) -> (Int, Int, Bool) in
                try rekeyBatch(old: old, new: new, batchSize: max(1, batchSize), damaged: &damaged)
            }
            batch += 1
            FaultInjection.reach("rekey:batch:\(batch)")
            progress(RekeyProgress(done: done, total: total, damaged: damaged))
            if finished { break }
        }
        try store.write { tables throws(StoreError) in
            try tables.keys.carryChain(from: old, retiring: oldKey, to: new)
            try database.execute("""
                DELETE FROM keyslot;
                INSERT INTO keyslot (id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key, created_at)
                    SELECT id, kind, kdf, ops_limit, mem_limit, salt, wrapped_key, created_at FROM rekey_keyslot;
                DELETE FROM rekey_keyslot;
                DELETE FROM rekey_job;
                """)
            try database.run("UPDATE vault_meta SET value = ? WHERE key = 'key_id'", [.text(newKey.id.description)])
            if let published {
                try tables.keys.adoptRetired(published.keyChain, openingUnder: new)
                let publishedIDs = Set(published.keyChain.map(\.id))
                let holdsMore = try tables.keys.retired().contains { !publishedIDs.contains($0.id) }
                try tables.keys.setGeneration(published.generation + (holdsMore ? 1 : 0))
            } else {
                try tables.keys.advanceGeneration()
            }
        }
        let metadata = store.metadata
        store.metadata = VaultMetadata(vaultID: metadata.vaultID, keyID: newKey.id, createdAt: metadata.createdAt, deviceID: metadata.deviceID)
        store.cipher = nil
    }

    /// Where a sealed field of a ``phases`` table is bound: an outbox row's payload as the
    /// operation it is, from payload format 2 on (as it goes to the remotes), any other field
    /// to its table, record and field.
    static func sealedFieldBinding(vaultID: String, table: String, recordID: String, field: String,
                                   payloadFormat: Int64) -> Binding {
        table == "outbox" && payloadFormat == OutboxPayloadFormat.operation.rawValue
            ? OperationCipher.operationBinding(vaultID, recordID)
            : Binding(vaultID: vaultID, table: table, recordID: recordID, field: field)
    }

    /// One batch of the current phase: re-seal up to `batchSize` rows after the cursor and
    /// move the cursor, or move to the next phase when the table is done.
    private func rekeyBatch(old: FieldSealer, new: FieldSealer, batchSize: Int,
                            damaged: inout Int) throws(StoreError) -> (done: Int, total: Int, finished: Bool) {
        var phaseName = "", cursor: Int64 = 0, done = 0, total = 0
        try database.forEachRow("SELECT phase, cursor, done, total FROM rekey_job WHERE id = 1") { row in
            (phaseName, cursor, done, total) = (row.text("phase"), row.int64("cursor"), Int(row.int64("done")), Int(row.int64("total")))
        }
        guard let phaseIndex = Self.phases.firstIndex(where: { $0.table == phaseName }) else {
            return (done, total, true)
        }
        let phase = Self.phases[phaseIndex]
        // The outbox binds its payload to the idempotency key, the other tables to the row id.
        let idColumn = phase.table == "outbox" ? "idempotency_key" : "id"
        let format = phase.table == "outbox" ? "payload_format" : "0"
        var rows: [(rowid: Int64, id: String, fields: [[UInt8]?], format: Int64)] = []
        try database.forEachRow("""
            SELECT rowid AS row, \(idColumn) AS record, \(format) AS format, \(phase.fields.joined(separator: ", ")) FROM \(phase.table)
            WHERE rowid > ? ORDER BY rowid LIMIT ?
            """, [.integer(cursor), .integer(Int64(batchSize))]) { row in
            let fields = phase.fields.map { field in row.isNull(field) ? nil : row.blob(field) }
            rows.append((row.int64("row"), row.text("record"), fields, row.int64("format")))
        }
        for row in rows {
            let binding = { [vaultID] (field: String) in
                Self.sealedFieldBinding(vaultID: vaultID, table: phase.table, recordID: row.id, field: field, payloadFormat: row.format)
            }
            try reseal(table: phase.table, rowid: row.rowid, fields: phase.fields, values: row.fields, binding: binding,
                       old: old, new: new, damaged: &damaged)
            if phase.table == "annotation" {
                try resealVersions(of: row.id, old: old, new: new, damaged: &damaged)
            }
            if phase.table == "book" {
                try resealAliases(of: row.id, old: old, new: new, damaged: &damaged)
            }
        }
        let now = store.clock.now().millisecondsSince1970
        if rows.count < batchSize {
            let next = phaseIndex + 1 < Self.phases.count ? Self.phases[phaseIndex + 1].table : "finish"
            try database.run("UPDATE rekey_job SET phase = ?, cursor = 0, done = done + ?, updated_at = ? WHERE id = 1",
                             [.text(next), .integer(Int64(rows.count)), .integer(now)])
            return (done + rows.count, total, next == "finish")
        }
        try database.run("UPDATE rekey_job SET cursor = ?, done = done + ?, updated_at = ? WHERE id = 1",
                         [.integer(rows.last?.rowid ?? cursor), .integer(Int64(rows.count)), .integer(now)])
        return (done + rows.count, total, false)
    }

    /// Re-seals one row's sealed `fields` (their sealed `values`) under `new`.
    private func reseal(table: String, rowid: Int64, fields: [String], values: [[UInt8]?], binding: (String) -> Binding,
                        old: FieldSealer, new: FieldSealer, damaged: inout Int) throws(StoreError) {
        var resealed: [SQLValue] = []
        for (field, sealed) in zip(fields, values) {
            guard let sealed else { resealed.append(.null); continue }
            // A purged tombstone's emptied field has nothing to re-seal.
            guard !sealed.isEmpty else { resealed.append(.blob(sealed)); continue }
            do {
                var plain = try old.open(sealed, binding: binding(field))
                defer { wipe(&plain) }
                resealed.append(.blob(try new.seal(plain, binding: binding(field))))
            } catch {
                // Damaged before the rekey: unreadable under either key, so left as it was.
                damaged += 1
                resealed.append(.blob(sealed))
            }
        }
        let assignments = fields.enumerated().map { "\($0.element) = ?\($0.offset + 2)" }.joined(separator: ", ")
        try database.run("UPDATE \(table) SET \(assignments) WHERE rowid = ?1", [.integer(rowid)] + resealed)
    }

    /// Re-seals the names other programs give one book (``BookAliasTable``).
    private func resealAliases(of book: String, old: FieldSealer, new: FieldSealer, damaged: inout Int) throws(StoreError) {
        var aliases: [(rowid: Int64, id: String, sealed: [UInt8])] = []
        try database.forEachRow("SELECT rowid AS row, id, alias FROM book_alias WHERE book_id = ?", [.text(book)]) { row in
            aliases.append((row.int64("row"), row.text("id"), row.blob("alias")))
        }
        for alias in aliases {
            try reseal(table: "book_alias", rowid: alias.rowid, fields: ["alias"], values: [alias.sealed],
                       binding: { [vaultID] in Binding(vaultID: vaultID, table: "book_alias", recordID: alias.id, field: $0) },
                       old: old, new: new, damaged: &damaged)
        }
    }

    /// Re-seals the versions kept of one note (there are some only while versions written
    /// without seeing each other stand together).
    private func resealVersions(of id: String, old: FieldSealer, new: FieldSealer, damaged: inout Int) throws(StoreError) {
        var versions: [(rowid: Int64, recordID: String, fields: [[UInt8]?])] = []
        try database.forEachRow("""
            SELECT rowid AS row, hlc, body, locator, comment FROM annotation_version WHERE annotation_id = ?
            """, [.text(id)]) { row in
            versions.append((row.int64("row"), AnnotationTable.versionRecordID(id, clock: row.text("hlc")),
                             [row.blob("body"), row.isNull("locator") ? nil : row.blob("locator"),
                              row.isNull("comment") ? nil : row.blob("comment")]))
        }
        for version in versions {
            try reseal(table: "annotation_version", rowid: version.rowid, fields: ["body", "locator", "comment"], values: version.fields,
                       binding: { [vaultID] in Binding(vaultID: vaultID, table: "annotation_version", recordID: version.recordID, field: $0) },
                       old: old, new: new, damaged: &damaged)
        }
    }
}
