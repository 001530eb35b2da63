internal import FileIO
import Foundation
import Journal
import Keystore
import Telemetry
public import VaultStore

extension Vault {
    /// Writes a consistent copy of the vault to `path` while other commands go on, still
    /// encrypted, with its SHA-256 beside it (see `Store.backup(to:)`). Needs no key.
    public func backup(to path: String) throws(VaultError) -> BackupSummary {
        let summary = try storeCall { () throws(StoreError) in try store.backup(to: Self.absolute(path)) }
        log.notice("vault.backup.written", ["bytes": .integer(summary.bytes)])
        return summary
    }

    /// Makes the vault at `location` again from the backup at `backup` (checked against its
    /// checksum and by SQLite), as a new device of its vault: see `VaultBackup.restore`. The vault
    /// opens locked; the passphrase or recovery key of the backup's time opens it.
    public static func restore(from backup: String, at location: VaultLocation, keyStore: any KeyStore,
                               clock: any Clock = SystemClock(), events: (MigrationEvent) -> Void = { _ in }) throws(VaultError) -> Vault {
        let backup = absolute(backup)
        do {
            try FileDescriptor.open(backup, .readOnly).close()
        } catch where error.operation == .type {
            throw .backupNotAFile(path: backup)
        } catch {
            // Missing or unreadable: VaultBackup.restore says so, as for every other backup.
        }
        try storeCall { () throws(StoreError) in
            try VaultBackup.restore(from: backup, to: location.databasePath, clock: clock,
                                    generatorVersion: BuildInfo.version, events: events)
        }
        log.notice("vault.restored")
        return try open(at: location, keyStore: keyStore, clock: clock)
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
