public import VaultCrypto
public import Journal

/// Everything the Store can report. No case carries record content: ids, field names,
/// counts and SQLite result codes only.
public enum StoreError: Error, Equatable, Sendable {
    /// No vault database at this path.
    case vaultNotFound(path: String)
    /// A vault already exists at this path; it was left untouched.
    case vaultExists(path: String)
    /// The file is not a bmvault vault (not SQLite, or SQLite without vault metadata).
    case notAVault(path: String)
    /// Written by a newer bmvault: its schema version is above the newest this build knows.
    /// The file is left exactly as it was.
    case newerSchema(found: Int, supported: Int)
    /// The vault records a migration whose text differs from this build's copy of it
    /// (a shipped migration was edited). The vault is refused, and left as it was.
    case migrationChanged(id: String)
    /// There is not enough free space to keep a snapshot and upgrade the vault. Nothing was touched.
    case insufficientSpace(needed: Int64, available: Int64)
    /// An upgrade failed and was rolled back: the vault is at schema `from`, as it was,
    /// and the copy taken before the upgrade is at `snapshot`.
    case upgradeFailed(from: Int, to: Int, snapshot: String, reason: String)
    /// A migrated vault failed a check (foreign keys, the frozen schema, integrity).
    case upgradeCheckFailed(check: String)
    /// The note is not (or no longer) in conflict.
    case noConflict(id: String)
    /// `conflicts resolve --keep` named a side this conflict does not have, or one that
    /// cannot be told on this device.
    case conflictSideUnclear(ConflictSideProblem)
    /// A remote with this name is already set up.
    case remoteExists(name: String)
    /// No remote has this name.
    case remoteNotFound(name: String)
    /// A rekey began and has not finished; `rekey` must run again to finish it before the
    /// journal can be read or written.
    case rekeyInProgress
    /// A journal read or write needs the vault key, and none was attached.
    case locked
    /// The key offered does not belong to this vault (another vault's, or from before a rekey).
    case keyMismatch
    /// No record has this id.
    case recordNotFound(id: String)
    /// The record was deleted and its content is gone (purged): it cannot come back.
    case recordPurged(id: String)
    /// The record does not show a tag it was asked to take away (the tag is not named: a
    /// tag is the reader's words).
    case tagNotFound(id: String)
    /// The record's version number is at the end of its range; it cannot change again.
    case versionExhausted(id: String)
    /// The record exists, but a sealed field does not open: it was altered or damaged.
    case recordUnreadable(id: String, field: String)
    /// A record of another kind has this id (e.g. a book id where a note was expected).
    case wrongRecordKind(id: String, expected: String, found: String)
    /// A change the journal's rules refuse, found inside the transaction that would have
    /// made it (a corrected session that would end before it starts).
    case invalidInput(JournalError)
    /// The book still has notes or quotes, which would be hidden with it.
    case bookHasAnnotations(id: String, count: Int)
    /// A plain position behind the book's `current` one; moving back needs `rewind`.
    case progressBehind(current: Double)
    /// A tombstone retention period outside 1 to `maximumDays` days.
    case invalidRetention(maximumDays: Int)
    /// Another bmvault process held the vault's write lock for longer than the busy timeout.
    case busy
    /// The disk is full. The change was rolled back; nothing saved before was touched.
    case diskFull
    /// A file would pass the size this process may write (`ulimit -f`); nothing was changed.
    case fileTooLarge
    /// A file changed while it was read (its size or modification time moved, or it ended
    /// before its size: a download restarted, a sync tool rewriting it); nothing was kept.
    case fileChangedWhileRead
    /// Any other SQLite failure: its extended result code and SQLite's own message (never a value).
    case database(code: Int32, message: String)
    /// A field could not be encoded to be stored (its name, never its value).
    case encodingFailed(field: String)
    /// A file-system call failed with `errno`.
    case io(operation: String, errno: Int32)
    /// Sealing failed (opening failures are ``recordUnreadable(id:field:)``).
    case crypto(CryptoError)
    /// `backup` found its file, or the checksum beside it, already there: nothing was written.
    case backupExists(path: String)
    /// A backup to restore does not match the checksum beside it, fails SQLite's
    /// integrity check, or SQLite finds a page of it malformed: nothing was restored.
    case backupDamaged(path: String)
    /// A backup to restore whose schema is not the one bmvault shipped for its version (a
    /// table, index or trigger added or changed by hand): nothing was restored.
    case backupAltered(path: String)
    /// `backup --out` names a file in a folder that does not exist (a backup makes no
    /// folder): nothing was written.
    case backupFolderMissing(path: String)
    /// A book file (by its id) read back is not what was added: its SHA-256 differs. Its
    /// stored copy (`stored`) is then damaged; a linked file was changed where it lies.
    case fileChanged(id: String, stored: Bool)
    /// A book file (by its id) added on another device, whose content this device does not hold.
    case fileElsewhere(id: String)
    /// A book file (by its id) could not be opened: its stored copy (`stored`) or the file
    /// it links to is gone (`ENOENT`), or may not be read (`errno`).
    case fileUnreachable(id: String, stored: Bool, errno: Int32)
}

extension StoreError {
    /// SQLite found the file malformed (`SQLITE_CORRUPT`) or not a database at all
    /// (`SQLITE_NOTADB`): damage to report as such where a file is checked (restore, check),
    /// not a failure of bmvault's.
    var isDamagedDatabase: Bool {
        guard case .database(let code, _) = self else { return false }
        return [.corrupt, .notADatabase].contains(ResultCode(primaryOf: code))
    }

    init(_ error: DatabaseError) {
        if error.isDiskFull {
            self = .diskFull
        } else if error.isFileTooLarge {
            self = .fileTooLarge
        } else if error.isBusy {
            self = .busy
        } else {
            self = .database(code: error.extendedCode, message: error.message)
        }
    }
}
