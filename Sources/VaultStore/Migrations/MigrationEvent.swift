/// What an upgrade reports while it runs, so the CLI can print a notice and progress.
public enum MigrationEvent: Sendable, Equatable {
    /// Pending migrations were found; the original is kept at `snapshot` until success.
    case upgrading(from: Int, to: Int, snapshot: String)
    /// The vault had applied migration `id` from a text that shipped in `commit` and was
    /// changed afterwards; it now has the schema of today's text (Docs/MIGRATIONS.md).
    case repaired(id: String, commit: String)
    /// Migration `index` of `count` (1-based) is being applied.
    case applying(id: String, index: Int, count: Int)
    /// The upgrade committed and verified; the snapshot is gone.
    case upgraded(from: Int, to: Int, milliseconds: Int64)
}
