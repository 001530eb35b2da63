import VaultCrypto

/// One frozen step of the vault schema.
///
/// A migration is plain SQL and never depends on application types, so it means the
/// same thing in every future build. Once shipped it is never edited: its SHA-256 is
/// recorded when it runs, and a vault whose record differs from this build's text is
/// refused (see Docs/MIGRATIONS.md for the checklist to add one).
struct Migration: Sendable {
    /// Ordered and unique: `0001_initial`, `0002_...`.
    let id: String
    /// One line for `bmvault migrate --dry-run` and `--status`.
    let summary: String
    /// SHA-256 of the whole schema after this migration, normalised as in
    /// `Schemas/sqlite/vN.sql` without its header line (see ``SchemaText``). An upgrade
    /// that does not end at exactly this schema is rolled back.
    let schemaChecksum: String
    let sql: String
    /// True for a migration that changes a table's SQL text in place, through
    /// `PRAGMA writable_schema`, as SQLite documents for changes that leave every stored
    /// row valid (a CHECK constraint rewritten into an equivalent one). The runner turns
    /// defensive mode off for it and bumps `schema_version`, so every connection
    /// reparses the schema; the verification before `COMMIT` (the frozen schema, and
    /// `integrity_check`, which re-checks every CHECK constraint) still decides.
    var editsSchemaText = false

    var checksum: String { Self.checksum(of: sql) }

    /// SHA-256 of a migration's (or a repair's) SQL, as `schema_migration` records it.
    static func checksum(of sql: String) -> String { SHA256.hex(of: Array(sql.utf8)) }
}

/// Every migration ever shipped, in order. The schema version of a vault is the number
/// of these it has applied.
enum Migrations {
    static let all: [Migration] = [
        Migration0001Initial.migration,
        Migration0002RekeyJob.migration,
        Migration0003SyncState.migration,
        Migration0004BookTitleCache.migration,
        Migration0005OutboxCheckComparisons.migration,
        Migration0006VersionVectors.migration,
        Migration0007RemoteHistory.migration,
        Migration0008KeyChain.migration,
        Migration0009SessionEdits.migration,
        Migration0010Shelves.migration,
        Migration0011Editions.migration,
        Migration0012Moves.migration,
        Migration0013Tags.migration,
        Migration0014ShortIDs.migration,
        Migration0015WebDAVRemotes.migration,
        Migration0016Imports.migration,
        Migration0017Files.migration,
        Migration0018FileSync.migration,
        Migration0019RemoteFiles.migration,
        Migration0020SessionSources.migration,
    ]

    static var latestVersion: Int { all.count }
}
