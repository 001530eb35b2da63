import VaultCrypto

/// One frozen step of the vault schema.
///
/// A migration is plain SQL and never depends on application types, so it means the
/// same thing in every future build. Once shipped it is never edited: its SHA-256 is
/// recorded when it runs, and a build whose text no longer matches is refused.
struct Migration: Sendable {
    /// Ordered and unique: `0001_initial`, `0002_...`.
    let id: String
    let sql: String

    var checksum: String { SHA256.hex(of: Array(sql.utf8)) }
}

/// Every migration ever shipped, in order. The schema version of a vault is the number
/// of these it has applied.
enum Migrations {
    static let all: [Migration] = [
        Migration0001Initial.migration,
    ]

    static var latestVersion: Int { all.count }
}
