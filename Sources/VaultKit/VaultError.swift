public import Archive
public import BookFiles
public import Importers
public import Journal
public import Keystore
public import VaultStore
public import VaultCrypto

/// Everything a vault operation can report, in words the reader can act on. No case
/// carries journal content or a passphrase: ids, paths, counts and codes only.
public enum VaultError: Error, Equatable, Sendable {
    /// `init` found a vault already there; it was left untouched.
    case vaultExists(path: String)
    /// The file at the location is not a bmvault vault.
    case notAVault(path: String)
    /// The secret typed opens the key another device's rekey set, but not this device's own
    /// key, which that device never had (two rekeys made at once, under different passphrases).
    case rekeyNeedsThisDevicesSecret
    /// The backup to restore is a FIFO, a device or a folder, not a file: refused before
    /// SQLite opens it (its open of a FIFO would wait for a writer for ever).
    case backupNotAFile(path: String)
    /// No key for this vault in the Secret Service: run `bmvault unlock`.
    case locked
    /// The record is not (or no longer) in conflict.
    case noConflict(id: String)
    /// A remote with this name is already set up.
    case remoteExists(name: String)
    /// A remote name may use letters, digits, `-`, `_` and `.` only.
    case invalidRemoteName
    /// No remote is set up, so there is nothing to sync with.
    case noRemote
    /// The folder given for remote `name` (nil: the folder given to `init --join`) does not
    /// exist, or is not a folder. The path is not repeated: a folder's name can be private.
    case remoteFolderMissing(name: String?)
    /// The folder given for remote `name` (nil: to `init --join`) cannot be read or written by this user.
    case remoteFolderNotPermitted(name: String?)
    /// A remote could not be used (`errorClass` says why: unreachable, otherVault,
    /// unauthorized, noSuchFolder, ...).
    case remote(name: String, errorClass: String)
    /// A WebDAV URL bmvault will not use, and why (plain HTTP to another machine, a
    /// password in it, ...). The URL is not repeated.
    case invalidRemoteURL(reason: String)
    /// `--ca-file` names no readable file.
    case caFileUnreadable(path: String)
    /// TLS with the server of remote `name` (nil: the URL given to `init --join`) failed,
    /// in libcurl's words (an untrusted certificate, another host name).
    case remoteTLS(name: String?, reason: String)
    /// `remote password` of a remote that has none (a folder).
    case remoteHasNoPassword(name: String)
    /// A file from another program that could not be read (its line named, never its text).
    case importFile(ImportError)
    /// A book file `file add` cannot take: unreadable, in no format it reads, damaged or
    /// locked by DRM (the reason never quotes the file). Nothing was changed.
    case bookFile(BookFileError)
    /// A book file (by its id) read back is not what was added: its stored copy
    /// (`stored`) is damaged, or a linked file changed where it lies.
    case fileChanged(id: String, stored: Bool)
    /// The file `file export --out` names could not be created: it exists (`EEXIST`; never
    /// replaced), its folder does not (`ENOENT`), or another reason (`errno`). Nothing was written.
    case outFileNotCreated(errno: Int32)
    /// `file open` needs `$XDG_RUNTIME_DIR` (a private directory that goes at logout) to
    /// decrypt into; there is none.
    case noRuntimeDirectory
    /// The book has several files: `--file` must say which one the locator is in.
    case severalFiles(candidates: [String])
    /// The book has no file to record a locator in (`file add` first).
    case noFile
    /// The file is in no format `import` reads.
    case notImportable(path: String)
    /// `import --from device` of a folder that holds none of ``ReadingDevice/markers``.
    case notADevice(path: String)
    /// A file of a reading device's folder, of `format`, could not be imported (`error`
    /// says why); nothing of the device was.
    indirect case onDevice(format: ImportFormat, VaultError)
    /// The file does not name its book (calibre's highlights): `--book` must.
    case importNeedsBook(format: ImportFormat)
    /// `--book` was given for a file that names its books itself.
    case importBookNotAsked(format: ImportFormat)
    /// `--gap` or `--min-session` given for a format other than KOReader's statistics.
    case importSessionRulesNotAsked(format: ImportFormat)
    /// `book merge` was given one book twice.
    case mergeIntoItself
    /// A calibre export holds the highlights of `count` books, and names none of them.
    case importSeveralBooks(count: Int)
    /// This sync would delete `count` of the vault's `total` live books and notes; nothing
    /// was changed (`--allow-mass-delete` lets it).
    case massDelete(count: Int, total: Int)
    /// No remote has this name.
    case remoteNotFound(name: String)
    /// A rekey was interrupted; `bmvault rekey` must finish it before the journal opens.
    case rekeyInProgress
    /// The unlock period ended; the key was removed from the Secret Service.
    case sessionExpired
    /// The keyring collection holding the key is locked (unlock it in the keyring first).
    case keyringLocked
    /// The Secret Service could not be reached or did not answer.
    case keystore(KeystoreError)
    /// The passphrase does not open the vault. Nothing was changed.
    case wrongPassphrase
    /// The recovery key is well-formed but does not open this vault.
    case wrongRecoveryKey
    /// The recovery key has a typo: wrong length, or a character outside its alphabet.
    case invalidRecoveryKey
    /// The recovery key has 36 characters of its alphabet, but its checksum does not match:
    /// one is mistyped.
    case recoveryKeyChecksumFailed
    /// A new passphrase is shorter than ``Vault/minimumPassphraseCharacters``.
    case passphraseTooShort(minimum: Int)
    /// A passphrase contains a NUL byte, which the KDF and terminals cannot carry.
    case passphraseInvalid
    /// The text or value given breaks a journal rule (empty, too long, out of range).
    case invalidInput(JournalError)
    /// No book matches the BOOK argument.
    case bookNotFound
    /// The BOOK argument matches several books; their ids are listed so one can be chosen.
    case ambiguousBook(candidates: [String])
    /// The ID argument is neither a record id, a short id, a prefix of at least four id
    /// characters, nor `@last`, `@last~N` or `@last-book`.
    case malformedID
    /// `@last~N` (or `@last`, `@last-book`) asks for more notes and quotes than the journal has.
    case noRecentEntry(reference: String)
    /// No live record has this id or id prefix (no deleted one, for `undelete`).
    case recordNotFound(id: String)
    /// The reader was asked to confirm and did not; nothing was changed.
    case declined
    /// An id prefix matches several records.
    case ambiguousID(candidates: [String])
    /// The id names a record of another kind than the command works on.
    case wrongRecordKind(id: String, expected: String, found: String)
    /// A failure of the vault's storage, as the Store reported it (the CLI reads its cases
    /// itself: a record not found, a full disk, an unreadable record, a failed upgrade, ...).
    case storage(StorageError)
    /// A cryptographic failure other than a wrong passphrase or a damaged record.
    case crypto(CryptoError)
    /// An export or import failed: a malformed, damaged or newer archive, or a file-system
    /// failure. An import that fails changes nothing in the vault.
    case archive(ArchiveError)
    /// An export into a notes folder (`export --markdown-folder`) was refused or failed: a
    /// folder that is not an earlier export's, a state file bmvault cannot read, a file-system
    /// failure. Notes already put in place stay (each is whole); the state file says which.
    case notesFolder(NotesFolderError)
}

/// The Store's own error, as ``VaultError/storage(_:)`` carries it: the CLI decides each
/// storage failure's message and exit code from it, without depending on the storage module.
public typealias StorageError = StoreError
