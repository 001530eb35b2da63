/// A text of a migration that landed on main, shipped to readers who build from it, and was
/// then edited in place: a mistake that must never happen again (`SchemaSnapshotTests`
/// pins every migration's text as it first landed), but whose vaults must still open.
///
/// Every vault that records `checksum` for `migrationID` was written by a build that knew
/// exactly `vaultVersion` migrations, so it is at that version. The repair is frozen SQL,
/// like a migration, that brings such a vault to the schema today's text of the migration
/// produces (verified against its `schemaChecksum` before anything else runs); the runner
/// applies it inside the upgrade's one transaction, with the original kept in the
/// snapshot until the whole upgrade has succeeded (Docs/MIGRATIONS.md, "Migrations
/// edited after they shipped").
struct ShippedVariant: Sendable {
    /// The migration this is an earlier text of.
    let migrationID: String
    /// SHA-256 of that earlier text, as its builds recorded it in `schema_migration`.
    let checksum: String
    /// The commit whose build wrote it, for the record and for the notice.
    let commit: String
    /// The schema version of every vault that records it.
    let vaultVersion: Int
    let repair: String
    /// As for ``Migration/editsSchemaText``: the repair edits a table's text in place.
    var editsSchemaText = false
}

/// Every shipped variant there is. Append only, like ``Migrations/all``.
enum ShippedVariants {
    static let all: [ShippedVariant] = [
        Migration0006AsLandedInDec822e.variant,
        Migration0006AsAmendedInA37bc02.variant,
    ]

    /// The variant of `migrationID` whose text has `checksum`; nil when no build wrote it.
    static func variant(of migrationID: String, checksum: String) -> ShippedVariant? {
        all.first { $0.migrationID == migrationID && $0.checksum == checksum }
    }
}
