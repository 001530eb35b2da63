internal import FileIO
import Foundation
import Journal
import Keystore
import Telemetry
public import VaultStore

extension Vault {
    /// Writes a consistent copy of the vault to `path` while other commands go on, still
    /// encrypted, with the encrypted blobs of the book files kept here (none with
    /// `withFiles` false) and its SHA-256 beside it (see `Store.backup(to:withFiles:)`).
    /// Needs no key.
    public func backup(to path: String, withFiles: Bool = true) throws(VaultError) -> BackupSummary {
        let summary = try storeCall { () throws(StoreError) in try store.backup(to: Self.absolute(path), withFiles: withFiles) }
        log.notice("vault.backup.written", ["bytes": .integer(summary.bytes), "bookFiles": .integer(Int64(summary.bookFiles))])
        return summary
    }

    /// Makes the vault at `location` again from the backup at `backup` (checked against its
    /// checksum and by SQLite), as a new device of its vault: see `VaultBackup.restore`. The vault
    /// opens locked; the passphrase or recovery key of the backup's time opens it. Also says
    /// how many book files' blobs the backup brought back into the file store.
    public static func restore(from backup: String, at location: VaultLocation, keyStore: any KeyStore,
                               clock: any Clock = SystemClock(),
                               events: (MigrationEvent) -> Void = { _ in }) throws(VaultError) -> (vault: Vault, bookFiles: Int) {
        let backup = absolute(backup)
        do {
            try FileDescriptor.open(backup, .readOnly).close()
        } catch where error.operation == .type {
            throw .backupNotAFile(path: backup)
        } catch {
            // Missing or unreadable: VaultBackup.restore says so, as for every other backup.
        }
        let bookFiles = try storeCall { () throws(StoreError) in
            try VaultBackup.restore(from: backup, to: location.databasePath, clock: clock,
                                    generatorVersion: BuildInfo.version, events: events)
        }
        log.notice("vault.restored", ["bookFiles": .integer(Int64(bookFiles))])
        return (try open(at: location, keyStore: keyStore, clock: clock), bookFiles)
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
