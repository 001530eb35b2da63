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

    var checksum: String { SHA256.hex(of: Array(sql.utf8)) }
}

/// Every migration ever shipped, in order. The schema version of a vault is the number
/// of these it has applied.
enum Migrations {
    static let all: [Migration] = [
        Migration0001Initial.migration,
        Migration0002RekeyJob.migration,
        Migration0003SyncState.migration,
        Migration0004BookTitleCache.migration,
    ]

    static var latestVersion: Int { all.count }
}
