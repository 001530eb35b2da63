import Journal
import VaultCrypto

/// What `bmvault check` found: how much of each kind it verified, and what is damaged,
/// named by kind and id (a record id, an outbox row, a keyslot id, a key id), never by
/// content.
public struct VaultCheckReport: Sendable, Equatable {
    /// One damaged thing: `kind` (`database`, `schema`, `keyslot`, `book`, `annotation`,
    /// `annotation_version`, `book_alias` (its book's id), `tagging`, `file`, `book_file`, `outbox`, `book_title_cache`, `book_activity`,
    /// `retired_key`), its id when it has one, and what is wrong (the field that does not open, or the check that failed).
    public struct Finding: Sendable, Equatable {
        public let kind: String
        public let id: String?
        public let problem: String
    }

    /// How many of each kind were verified (rows of a table, keyslots, keys of the chain).
    public internal(set) var verified: [String: Int] = [:]
    public internal(set) var findings: [Finding] = []
}

/// What ``Store/check()`` runs for `bmvault check`: reads only, table by table, and a page
/// SQLite cannot read ends it as one more finding, not as an error.
struct VaultCheck {
    let store: Store
    private var database: Database { store.database }
    private var vaultID: String { store.metadata.vaultID }

    /// Verifies the whole vault, as `restic check` does a repository: SQLite's integrity and
    /// foreign keys, the schema against the one this build ships, the keyslots' shape, and
    /// that every sealed field opens under the record and field it is bound to (books,
    /// notes and quotes and their kept versions, outbox operations, the title cache, the key
    /// chain), and that the counts per book the triggers keep match a count of the journal.
    /// Reads only; the key must be attached. A page SQLite cannot read is a finding too.
    func run() throws(StoreError) -> VaultCheckReport {
        let sealer = try store.requireCipher().sealer
        var report = VaultCheckReport()
        do throws(StoreError) {
            try checkDatabase(&report)
            try checkKeyslots(&report)
            for phase in VaultRekey.phases {
                try checkSealedFields(of: phase.table, fields: phase.fields, sealer: sealer, &report)
            }
            try checkKeptVersions(sealer: sealer, &report)
            try checkBookAliases(sealer: sealer, &report)
            try checkTitleCache(sealer: sealer, &report)
            try checkBookActivity(&report)
            let held = try store.read { tables throws(StoreError) in try tables.keys.retired() }
            var rows = 0
            try database.forEachRow("SELECT count(*) AS count FROM retired_key") { row in rows = Int(row.int64("count")) }
            if rows > held.count {
                report.findings.append(.init(kind: "retired_key", id: nil, problem: "\(rows - held.count) entries with a malformed key id"))
            }
            for key in held {
                report.verified["retired_key", default: 0] += 1
                if (try? key.open(with: sealer)) == nil {
                    report.findings.append(.init(kind: "retired_key", id: key.id.description, problem: "does not open under the vault key"))
                }
            }
        } catch where error.isDamagedDatabase {
            // SQLite stops at a page it cannot read, before its own check can list the
            // damage: what was found so far stands, and the malformed page is one more finding.
            report.findings.append(.init(kind: "database", id: nil, problem: "SQLite finds a page malformed, so the check stopped there"))
        }
        return report
    }

    /// SQLite's own checks (their messages are not repeated: a count and the rows named),
    /// and the schema compared with the frozen one of this vault's version.
    private func checkDatabase(_ report: inout VaultCheckReport) throws(StoreError) {
        var integrity: [String] = []
        try database.forEachRow("PRAGMA integrity_check") { row in integrity.append(row.text("integrity_check")) }
        if integrity != ["ok"] {
            report.findings.append(.init(kind: "database", id: nil, problem: "integrity_check reports \(integrity.count) problems"))
        }
        try database.forEachRow("PRAGMA foreign_key_check") { row in
            report.findings.append(.init(kind: row.text("table"), id: row.isNull("rowid") ? nil : String(row.int64("rowid")),
                                         problem: "refers to a missing \(row.text("parent"))"))
        }
        let version = try store.schemaVersion()
        let asShipped = try SchemaText.isAsShipped(database, version: version)
        if version != Migrations.latestVersion || !asShipped {
            report.findings.append(.init(kind: "schema", id: nil, problem: "differs from schema v\(version) as shipped"))
        }
        report.verified["database", default: 0] += 1
    }

    /// One passphrase slot and one recovery slot, each of a shape this build opens.
    private func checkKeyslots(_ report: inout VaultCheckReport) throws(StoreError) {
        let slots = try store.read { tables throws(StoreError) in try tables.keys.slots() }
        report.verified["keyslot"] = slots.count
        for kind in [Keyslot.Kind.passphrase, .recovery] where !slots.contains(where: { $0.kind == kind }) {
            report.findings.append(.init(kind: "keyslot", id: nil, problem: "no \(kind.rawValue) slot"))
        }
        for slot in slots where !slot.isWellFormed {
            report.findings.append(.init(kind: "keyslot", id: slot.id, problem: "malformed \(slot.kind.rawValue) slot"))
        }
    }

    /// Every sealed field of `table` opens under its binding (a purged tombstone's emptied
    /// field holds nothing to open).
    private func checkSealedFields(of table: String, fields: [String], sealer: FieldSealer,
                                   _ report: inout VaultCheckReport) throws(StoreError) {
        let idColumn = table == "outbox" ? "idempotency_key" : "id"
        let format = table == "outbox" ? "payload_format" : "0"
        // Every row of the table: its columns are looked up once, by name, not per row.
        var columns: (record: Int32, format: Int32, fields: [Int32])?
        try database.forEachRow("""
            SELECT \(idColumn) AS record, \(format) AS format, \(fields.joined(separator: ", ")) FROM \(table)
            """) { row in
            let found = columns ?? (row.index(of: "record"), row.index(of: "format"), fields.map { row.index(of: $0) })
            columns = found
            report.verified[table, default: 0] += 1
            let id = row.text(found.record)
            for (column, field) in zip(found.fields, fields) where !row.isNull(column) {
                let sealed = row.blob(column)
                let binding = VaultRekey.sealedFieldBinding(vaultID: vaultID, table: table, recordID: id, field: field,
                                                            payloadFormat: row.int64(found.format))
                if !sealed.isEmpty, !opens(sealed, binding, sealer) {
                    report.findings.append(.init(kind: table, id: id, problem: "\(field) does not open"))
                }
            }
        }
    }

    private func checkBookAliases(sealer: FieldSealer, _ report: inout VaultCheckReport) throws(StoreError) {
        try database.forEachRow("SELECT id, book_id, alias FROM book_alias") { row in
            report.verified["book_alias", default: 0] += 1
            let binding = Binding(vaultID: vaultID, table: "book_alias", recordID: row.text("id"), field: "alias")
            if !opens(row.blob("alias"), binding, sealer) {
                report.findings.append(.init(kind: "book_alias", id: row.text("book_id"), problem: "a name another program gives the book does not open"))
            }
        }
    }

    private func checkKeptVersions(sealer: FieldSealer, _ report: inout VaultCheckReport) throws(StoreError) {
        try database.forEachRow("SELECT annotation_id, hlc, body, locator, comment FROM annotation_version") { row in
            report.verified["annotation_version", default: 0] += 1
            let recordID = AnnotationTable.versionRecordID(row.text("annotation_id"), clock: row.text("hlc"))
            for field in ["body", "locator", "comment"] where !row.isNull(field) {
                let binding = Binding(vaultID: vaultID, table: "annotation_version", recordID: recordID, field: field)
                if !opens(row.blob(field), binding, sealer) {
                    report.findings.append(.init(kind: "annotation_version", id: row.text("annotation_id"), problem: "\(field) of a kept version does not open"))
                }
            }
        }
    }

    private func checkTitleCache(sealer: FieldSealer, _ report: inout VaultCheckReport) throws(StoreError) {
        try database.forEachRow("SELECT id, titles FROM book_title_cache") { row in
            report.verified["book_title_cache", default: 0] += 1
            let binding = Binding(vaultID: vaultID, table: "book_title_cache", recordID: String(row.int64("id")), field: "titles")
            if !opens(row.blob("titles"), binding, sealer) {
                report.findings.append(.init(kind: "book_title_cache", id: nil, problem: "titles do not open (rebuilt at the next change to a book)"))
            }
        }
    }

    /// `book_activity` (migration 0011) against the live notes, quotes and sessions counted
    /// again: a book whose row differs is named.
    private func checkBookActivity(_ report: inout VaultCheckReport) throws(StoreError) {
        try database.forEachRow("SELECT count(*) AS count FROM book_activity") { row in
            report.verified["book_activity"] = Int(row.int64("count"))
        }
        try database.forEachRow("""
            SELECT coalesce(kept.book_id, counted.book_id) AS book_id FROM book_activity AS kept FULL JOIN (
                SELECT book_id, sum(notes) AS notes, sum(quotes) AS quotes, sum(sessions) AS sessions, max(last_session) AS last_session
                FROM (SELECT book_id, sum(kind = 'note') AS notes, sum(kind = 'quote') AS quotes, 0 AS sessions, NULL AS last_session
                      FROM annotation WHERE deleted_at IS NULL GROUP BY book_id
                      UNION ALL
                      SELECT book_id, 0, 0, count(*), max(ended_at) FROM reading_session WHERE deleted_at IS NULL GROUP BY book_id)
                GROUP BY book_id) AS counted ON counted.book_id = kept.book_id
            WHERE coalesce(kept.notes, 0) != coalesce(counted.notes, 0) OR coalesce(kept.quotes, 0) != coalesce(counted.quotes, 0)
               OR coalesce(kept.sessions, 0) != coalesce(counted.sessions, 0) OR kept.last_session IS NOT counted.last_session
            """) { row in
            report.findings.append(.init(kind: "book_activity", id: row.text("book_id"), problem: "counts differ from the journal's"))
        }
    }

    /// Whether `sealed` opens under `binding`; the plaintext is wiped at once.
    private func opens(_ sealed: [UInt8], _ binding: Binding, _ sealer: FieldSealer) -> Bool {
        guard var plain = try? sealer.open(sealed, binding: binding) else { return false }
        wipe(&plain)
        return true
    }
}
