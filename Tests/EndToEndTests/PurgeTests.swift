import Foundation
import Testing

/// A vault purges deleted text after the retention period, with or without a remote: on
/// the way of any command, or all at once with `bmvault purge` (issue 17, item 5).
@Suite struct PurgeTests {
    /// Moves `id`'s deletion (and the last daily look) `days` into the past.
    private func backdate(_ id: String, days: Int, in vault: TestVault) throws {
        let shift = Int64(days) * 86_400_000
        let sql = """
            UPDATE annotation SET deleted_at = deleted_at - \(shift) WHERE id = '\(id)';
            UPDATE vault_meta SET value = '0' WHERE key = 'tombstones_purge_checked_at';
            """
        #expect(try vault.syncTestSQL(sql).status == 0)
    }

    private func bodyLength(_ id: String, in vault: TestVault) throws -> String {
        try vault.syncTestSQL("SELECT length(body) FROM annotation WHERE id = '\(id)'").line
    }

    @Test func deletedTextGoesAfterTheRetentionWithoutARemote() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Kept alone"]).line
        let gone = try vault.succeed(["note", "add", book, "words deleted long ago"]).line
        try vault.succeed(["delete", gone])
        #expect(try bodyLength(gone, in: vault) != "0")

        try backdate(gone, days: 91, in: vault)
        try vault.succeed(["list"])                                    // any command, on its way
        #expect(try bodyLength(gone, in: vault) == "0", "purged after 90 days, with no remote")
    }

    @Test func purgeDoesItAllNowEvenWhileLocked() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let book = try vault.succeed(["book", "add", "Kept alone"]).line
        let gone = try vault.succeed(["note", "add", book, "deleted"]).line
        let recent = try vault.succeed(["note", "add", book, "deleted yesterday"]).line
        try vault.succeed(["delete", gone])
        try vault.succeed(["delete", recent])
        try backdate(gone, days: 200, in: vault)
        try vault.succeed(["lock"])
        let purged = try vault.succeed(["purge"])
        #expect(purged.stderr == "Purged 1 deleted record older than 90 days.\n", "\(purged)")
        #expect(try bodyLength(gone, in: vault) == "0")
        #expect(try bodyLength(recent, in: vault) != "0", "within the retention: kept")
        #expect(try vault.succeed(["purge"]).stderr == "Purged 0 deleted records older than 90 days.\n")
    }

    @Test func deleteHelpSaysWhenTheTextIsGone() throws {
        let vault = try TestVault()
        let help = try vault.succeed(["delete", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("at the latest after the retention period (90 days by default, `bmvault remote retention`)"), "\(help)")
        #expect(help.contains("`bmvault purge` purges what is past the retention now"), "\(help)")
    }
}
