public import Applier
public import Archive
public import Importers
public import Keystore
public import VaultStore
public import Sync
public import VaultCrypto

// The few lower-level types the CLI needs to call the facade, named here so the CLI
// depends on VaultKit alone and never imports the crypto or keystore modules.

/// The kinds of file `import` tells apart by content.
public typealias ImportFormat = Importers.ImportFormat
/// How KOReader's page turns become reading sessions (`import --gap`, `--min-session`).
public typealias KOReaderSessionRules = Importers.KOReaderStatistics.Rules

/// Bytes in locked, wiped-on-release memory: passphrases, recovery keys.
public typealias SecretBytes = VaultCrypto.SecretBytes
/// Argon2id cost presets for a passphrase keyslot.
public typealias KDFStrength = KDFParameters.Strength
/// Argon2id parameters stored with a passphrase keyslot.
public typealias KDFParameters = VaultCrypto.KDFParameters
/// Where the unlocked key is kept: the session collection or the default (remembered) one.
public typealias KeyPersistence = Keystore.KeyPersistence
/// Why the Secret Service could not be used.
public typealias KeystoreError = Keystore.KeystoreError
/// The keystore a vault keeps its key in while unlocked.
public typealias KeyStore = Keystore.KeyStore
/// The freedesktop Secret Service keystore.
public typealias SecretServiceKeyStore = Keystore.SecretServiceKeyStore
public typealias MemoryKeyStore = Keystore.MemoryKeyStore
/// Errors from opening sealed data.
public typealias CryptoError = VaultCrypto.CryptoError
/// Where a vault's schema stands: its version, history and pending migrations.
public typealias SchemaState = VaultStore.SchemaState
/// What upgrading a vault would change, found on a throwaway copy.
public typealias UpgradeRehearsal = VaultStore.UpgradeRehearsal
/// What `diagnostics` may say about a vault.
public typealias VaultInspection = VaultStore.VaultInspection
/// The life of an outbox operation.
public typealias OutboxState = VaultStore.OutboxState
/// A place the vault syncs with.
public typealias RemoteRecord = VaultStore.RemoteRecord
/// What one sync did.
public typealias SyncSummary = Sync.SyncSummary
public typealias SyncShortfall = Sync.SyncShortfall
/// Which side a resolution keeps, as the Store applies it.
public typealias ConflictChoice = VaultStore.ConflictChoice
/// The two sides of a conflict, with the device that wrote each.
public typealias ConflictSides = VaultStore.ConflictSides
/// The words of `conflicts resolve --keep`.
public typealias ConflictKeep = VaultStore.ConflictKeep
/// Why a `--keep` word names no side of a conflict.
public typealias ConflictSideProblem = VaultStore.ConflictSideProblem
/// An operation waiting in the outbox, without its payload.
public typealias OutboxEntry = VaultStore.OutboxEntry
/// Why an export or an import of an archive failed.
public typealias ArchiveError = Archive.ArchiveError
/// What an export wrote.
public typealias ArchiveSummary = Archive.ArchiveSummary
/// What an import did, or (a dry run) would do.
public typealias ImportSummary = Applier.ImportSummary
/// A book's id and title alone, for naming books cheaply.
public typealias BookTitle = VaultStore.BookTitle
/// What `check` verified and found.
public typealias VaultCheckReport = VaultStore.VaultCheckReport
/// What `backup` wrote.
public typealias BackupSummary = VaultStore.BackupSummary
/// What an automatic schema upgrade reports as it goes.
public typealias MigrationEvent = VaultStore.MigrationEvent
/// Why an export into a notes folder was refused or failed.
public typealias NotesFolderError = Archive.NotesFolderError
/// What an export into a notes folder may do.
public typealias NotesFolderOptions = Archive.NotesFolderOptions
/// What an export into a notes folder did.
public typealias NotesFolderSummary = Archive.NotesFolderSummary
/// A note an export into a notes folder left as it was, and why.
public typealias NotesFolderProblem = Archive.NotesFolderProblem
