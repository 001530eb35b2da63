import Journal
public import VaultStore

extension Vault {
    /// The schema version and migration history of the vault at `location`, read without
    /// upgrading it.
    public static func schemaState(at location: VaultLocation) throws(VaultError) -> SchemaState {
        try storeCall { () throws(StoreError) in try SchemaState(ofVaultAt: location.databasePath) }
    }

    /// Upgrades a throwaway copy of the vault at `location` and reports what would change.
    public static func rehearseUpgrade(at location: VaultLocation, clock: any Clock = SystemClock()) throws(VaultError) -> UpgradeRehearsal {
        try storeCall { () throws(StoreError) in
            try UpgradeRehearsal.run(at: location.databasePath, clock: clock, generatorVersion: BuildInfo.version)
        }
    }
}
