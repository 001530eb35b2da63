import BookFiles
import Foundation
import Journal
import VaultKit

/// The one-line message and exit status for every failure bmvault reports. Messages say
/// what happened and what to do next; they name ids, paths and counts, never content.
struct ErrorReport: Equatable {
    let message: String
    let exitCode: ExitCode

    init(_ message: String, _ exitCode: ExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: any Error) {
        switch error {
        case let error as VaultError: self = Self.report(error)
        case let error as CLIError: self = Self.report(error)
        default: self = ErrorReport("unexpected failure (\(type(of: error)))", .failure)
        }
    }

    static func report(_ error: VaultError) -> ErrorReport {
        switch error {
        case .vaultExists(let path):
            return ErrorReport("a vault already exists at \(path); it was left untouched", .failure)
        case .rekeyNeedsThisDevicesSecret:
            return ErrorReport("that passphrase opens the key another device set when both were rekeyed at once, but not this device's own key, which that device never had: unlock with this device's passphrase, make it the other one with `bmvault passphrase change`, then unlock again; nothing was changed", .noPermission)
        case .backupNotAFile(let path):
            return ErrorReport("\(path) is not a file (a FIFO, a device or a folder), so not a backup; nothing was restored", .dataError)
        case .notAVault(let path):
            return ErrorReport("\(path) is not a bmvault vault", .dataError)
        case .locked:
            return ErrorReport("the vault is locked; run `bmvault unlock`", .noPermission)
        case .noConflict(let id):
            return ErrorReport("\(id) is not in conflict; see `bmvault conflicts`", .notFound)
        case .invalidRemoteName:
            return ErrorReport("a remote name may use letters, digits, '-', '_' and '.' only", .usage)
        case .noRemote:
            return ErrorReport("no remote is set up; add one with `bmvault remote add NAME PATH`", .notFound)
        case .remoteFolderMissing(let name):
            return ErrorReport("\(folderGiven(name)) does not exist or is not a folder (is the drive mounted?); nothing was set up", .unavailable)
        case .remoteFolderNotPermitted(let name):
            return ErrorReport("permission denied on \(folderGiven(name)): this user cannot read and write there; nothing was set up", .unavailable)
        case .remote(let name, let errorClass):
            return ErrorReport(remoteMessage(name: name, errorClass: errorClass), remoteExitCode(errorClass))
        case .invalidRemoteURL(let reason):
            return ErrorReport("that URL cannot be a remote: \(reason); nothing was set up", .usage)
        case .caFileUnreadable(let path):
            return ErrorReport("cannot read the CA file \(path); nothing was set up", .notFound)
        case .remoteTLS(let name, let reason):
            return ErrorReport("TLS with the server \(name.map { "of remote \($0)" } ?? "given to `init --join`") failed: \(reason) (a server with its own certificate authority needs --ca-file); nothing was set up", .unavailable)
        case .importFile(.invalidUTF8):
            return ErrorReport("the file is not UTF-8 text; nothing was imported", .dataError)
        case .importFile(.malformed(let line, let reason)):
            return ErrorReport("line \(line) of the file: \(reason); nothing was imported", .dataError)
        case .importFile(.unreadableDatabase(let reason)):
            return ErrorReport("the database could not be read (\(reason)); nothing was imported", .dataError)
        case .importFile(.missingFromDatabase(let what)):
            return ErrorReport("the database has no \(what), which its format has; nothing was imported", .dataError)
        case .bookFile(let error):
            return ErrorReport(bookFileMessage(error), bookFileExitCode(error))
        case .fileChanged(let id, stored: true):
            return ErrorReport("book file \(id): its stored copy in the vault's files folder is damaged (it is not what was added: it does not open, or its checksum differs); `bmvault file verify` lists every such file, and a device or an archive that holds the file can add it again", .dataError)
        case .fileChanged(let id, stored: false):
            return ErrorReport("book file \(id) is not what was added (its checksum differs): the linked file was changed where it lies; `bmvault file verify` lists every such file", .dataError)
        case .outFileNotCreated(let code) where code == EEXIST:
            return ErrorReport("the --out file already exists; file export never replaces a file (nothing was written)", .failure)
        case .outFileNotCreated(let code) where code == ENOENT || code == ENOTDIR:
            return ErrorReport("the folder of the --out file does not exist; file export makes no folder (nothing was written)", .notFound)
        case .outFileNotCreated(let code):
            return ErrorReport("the --out file could not be created: \(String(cString: strerror(code))) (nothing was written)", fileAccessExitCode(code))
        case .noRuntimeDirectory:
            return ErrorReport("file open decrypts into a private $XDG_RUNTIME_DIR (absolute, yours, no group or other permissions), and there is none (bmvault will not put a book in /tmp); use `bmvault file export ID --out PATH` for a plain copy", .unavailable)
        case .severalFiles(let candidates):
            return ErrorReport("the book has \(candidates.count) files; say which with --file: \(candidates.joined(separator: ", ")); nothing was changed", .usage)
        case .noFile:
            return ErrorReport("the book has no file to keep a locator in; add one with `bmvault file add PATH --book BOOK`; nothing was changed", .notFound)
        case .notImportable(let path):
            return ErrorReport("\(path) is not a format bmvault can import (it reads a bmvault archive or its journal.json, a Kindle's My Clippings.txt, a KOReader sidecar or a folder of them, KOReader's statistics, a Kobo's database or its drive, calibre highlights, a Readwise export, a jrnl journal or a Goodreads library export); nothing was imported", .dataError)
        case .notADevice(let path):
            return ErrorReport("\(path) is not a reading device's folder (it holds none of \(ReadingDevice.markers.joined(separator: ", "))); nothing was imported", .dataError)
        case .onDevice(let format, let error):
            let report = report(error)
            return ErrorReport("\(format.name) on the device: \(report.message)", report.exitCode)
        case .importNeedsBook(let format):
            return ErrorReport("\(format.name) do not say which book they are from: name it with --book BOOK (add it first with `bmvault book add`); nothing was imported", .usage)
        case .importSessionRulesNotAsked(let format):
            return ErrorReport("--gap and --min-session are for KOReader statistics; \(format.name) holds no page turns; nothing was imported", .usage)
        case .importBookNotAsked(let format):
            return ErrorReport("--book is for calibre highlights and jrnl journals; \(format.name) names its books itself; nothing was imported", .usage)
        case .mergeIntoItself:
            return ErrorReport("both name the same book: book merge takes the book to merge, then the book to keep; nothing was changed", .usage)
        case .importSeveralBooks(let count):
            return ErrorReport("these calibre highlights are from \(count) books and name none: export them from calibre's viewer one book at a time; nothing was imported", .dataError)
        case .remoteHasNoPassword(let name):
            return ErrorReport("remote \(name) is a folder, which has no password", .usage)
        case .massDelete(let count, let total):
            return ErrorReport("this sync would delete \(count) of your \(total) books, notes and quotes, so it stopped; nothing was changed. If the deletions are intended, run `bmvault sync --allow-mass-delete`", .failure)
        case .remoteExists(let name):
            return ErrorReport("a remote named \(name) exists already", .usage)
        case .remoteNotFound(let name):
            return ErrorReport("no remote is named \(name); see `bmvault remote list`", .notFound)
        case .rekeyInProgress:
            return ErrorReport("a rekey was interrupted before it finished; run `bmvault rekey` to finish it, or `bmvault unlock` if it was taking up another device's rekey (nothing is lost)", .failure)
        case .sessionExpired:
            return ErrorReport("the vault's unlock period has ended and its key was removed; run `bmvault unlock`", .noPermission)
        case .keyringLocked, .keystore(.keyringLocked):
            return ErrorReport("the keyring holding the vault key is locked; unlock it in your keyring (Seahorse, KeePassXC), or run `bmvault unlock` to use the session keyring", .noPermission)
        case .keystore(let keystoreError):
            return report(keystoreError)
        case .wrongPassphrase:
            return ErrorReport("wrong passphrase; nothing was changed", .noPermission)
        case .wrongRecoveryKey:
            return ErrorReport("that recovery key does not open this vault; nothing was changed", .noPermission)
        case .invalidRecoveryKey:
            return ErrorReport("that is not a valid recovery key: expected 36 characters in six groups (check for a typo)", .dataError)
        case .recoveryKeyChecksumFailed:
            return ErrorReport("the recovery key's checksum failed: a character is mistyped or two are swapped; nothing was changed", .dataError)
        case .passphraseTooShort(let minimum):
            return ErrorReport("the passphrase must have at least \(minimum) characters", .dataError)
        case .passphraseInvalid:
            return ErrorReport("the passphrase must not contain a NUL character", .dataError)
        case .invalidInput(let journalError):
            return ErrorReport(describe(journalError), .dataError)
        case .bookNotFound:
            return ErrorReport("no book matches BOOK; see `bmvault book list`", .notFound)
        case .ambiguousBook(let candidates):
            return ErrorReport("BOOK matches \(candidates.count) books; name one by id: \(candidates.joined(separator: ", "))", .usage)
        case .malformedID:
            return ErrorReport("ID must be a record id, a short id (6 or more characters), a unique prefix of at least 4, or @last, @last~N, @last-book", .usage)
        case .noRecentEntry(let reference):
            return ErrorReport("\(reference) names no note or quote: the journal has fewer", .notFound)
        case .recordNotFound(let id):
            return ErrorReport("no note, quote, book or session has id \(id)", .notFound)
        case .declined:
            return ErrorReport("not confirmed; nothing was changed", .failure)
        case .ambiguousID(let candidates):
            return ErrorReport("ID matches \(candidates.count) records; give more characters: \(candidates.joined(separator: ", "))", .usage)
        case .wrongRecordKind(let id, let expected, let found):
            return ErrorReport("\(id) is a \(found); this command works on a \(expected)", .dataError)
        case .storage(let storeError):
            return report(storeError)
        case .crypto(let cryptoError):
            return ErrorReport("cryptographic failure: \(cryptoError)", .failure)
        case .archive(let archiveError):
            return report(archiveError)
        case .notesFolder(let notesError):
            return report(notesError)
        }
    }

    /// Storage failures, decided from the Store's own error: those the facade also raises
    /// itself (a record not found, a locked vault, ...) read as the facade's.
    static func report(_ error: StorageError) -> ErrorReport {
        switch error {
        case .vaultNotFound(let path):
            return ErrorReport("no vault at \(path); create one with `bmvault init`", .notFound)
        case .backupExists(let path):
            return ErrorReport("\(path) exists already; nothing was written (a backup never replaces a file)", .failure)
        case .backupDamaged(let path):
            return ErrorReport("\(path) does not match the checksum beside it, or is damaged; nothing was restored", .dataError)
        case .backupAltered(let path):
            return ErrorReport("\(path) is not as bmvault made it: its schema differs from the one shipped for its version (a table, index or trigger added, changed or removed by hand or by another program); nothing was restored", .dataError)
        case .backupFolderMissing(let path):
            return ErrorReport("the folder of \(path) does not exist; a backup makes no folder (nothing was written)", .notFound)
        case .newerSchema(let found, let supported):
            return ErrorReport("this vault has schema version \(found), newer than the \(supported) this bmvault \(BuildInfo.version) knows; upgrade bmvault (the vault was not changed)", .failure)
        case .conflictSideUnclear(.noCopy):
            return ErrorReport("a note brought back by an edit has no copy: --keep note (or both) keeps it, and `bmvault delete ID` lets the deletion stand", .usage)
        case .conflictSideUnclear(.neitherWrittenHere):
            return ErrorReport("neither side of this conflict was written on this device, so mine and theirs name nothing: use --keep note, copy or both (`bmvault conflicts` shows who wrote each)", .usage)
        case .conflictSideUnclear(.bothWrittenHere):
            return ErrorReport("both sides of this conflict were written on this device, so mine and theirs name nothing: use --keep note, copy or both", .usage)
        case .fileElsewhere(let id):
            return ErrorReport("book file \(id) is kept on another device, not on this one", .notFound)
        case .fileUnreachable(let id, let stored, let code) where code == ENOENT || code == ENOTDIR:
            return stored
                ? ErrorReport("book file \(id): its stored copy is gone from the vault's files folder; `bmvault file verify` lists every file missing", .notFound)
                : ErrorReport("book file \(id) is not where it was linked; `bmvault file verify --search DIR` looks for it, `--repair` re-links it", .notFound)
        case .fileUnreachable(let id, let stored, let code) where code == EINVAL || code == EISDIR:
            return ErrorReport("book file \(id): \(stored ? "its stored copy in the vault's files folder" : "the file it links to") is not a file (a FIFO, a device or a folder), so it was not read; `bmvault file verify` lists every such file", .dataError)
        case .fileUnreachable(let id, _, let code):
            return ErrorReport("book file \(id) cannot be read: \(String(cString: strerror(code)))", fileAccessExitCode(code))
        case .recordPurged(let id):
            return ErrorReport("record \(id) was deleted and its content is gone (purged after the retention period); nothing was brought back", .notFound)
        case .tagNotFound(let id):
            return ErrorReport("\(id) has no tag by that name (see `bmvault show \(id)`); no tag was taken away", .notFound)
        case .versionExhausted(let id):
            return ErrorReport("record \(id) has reached the highest version number (\(VersionNumber.range.upperBound)) and cannot change again; nothing was changed", .dataError)
        case .recordUnreadable(let id, let field):
            return ErrorReport(unreadable(id: id, field: field), .dataError)
        case .bookHasAnnotations(let id, let count):
            return ErrorReport("book \(id) still has \(count) notes and quotes; delete them first", .dataError)
        case .progressBehind(let current):
            return ErrorReport("that is behind the current position (\(HumanFormat.percent(current))); to move back on purpose, add --rewind", .usage)
        case .invalidRetention(let maximumDays):
            return ErrorReport("DAYS must be a whole number of days from 1 to \(maximumDays)", .usage)
        case .busy:
            return ErrorReport("another bmvault process kept the vault busy; nothing was changed, try again", .failure)
        case .diskFull:
            return ErrorReport("the disk is full; nothing was changed", .failure)
        case .fileTooLarge:
            return ErrorReport("a file would grow past the size this process may write (ulimit -f: File too large); nothing was changed", .failure)
        case .insufficientSpace(let needed, let available):
            return ErrorReport("not enough free space to upgrade the vault safely: it needs \(bytes(needed)), \(bytes(available)) are free; nothing was changed", .failure)
        case .upgradeFailed(let from, let to, let snapshot, let reason):
            return ErrorReport("upgrading the vault from schema \(from) to \(to) failed (\(reason)); it is still at schema \(from), and its original is kept at \(snapshot)", .failure)
        case .vaultExists(let path): return report(VaultError.vaultExists(path: path))
        case .notAVault(let path): return report(VaultError.notAVault(path: path))
        case .locked, .keyMismatch: return report(VaultError.locked)
        case .rekeyInProgress: return report(VaultError.rekeyInProgress)
        case .noConflict(let id): return report(VaultError.noConflict(id: id))
        case .remoteExists(let name): return report(VaultError.remoteExists(name: name))
        case .remoteNotFound(let name): return report(VaultError.remoteNotFound(name: name))
        case .recordNotFound(let id): return report(VaultError.recordNotFound(id: id))
        case .wrongRecordKind(let id, let expected, let found): return report(VaultError.wrongRecordKind(id: id, expected: expected, found: found))
        case .invalidInput(let journalError): return report(VaultError.invalidInput(journalError))
        case .fileChanged(let id, let stored): return report(VaultError.fileChanged(id: id, stored: stored))
        case .crypto(let cryptoError): return report(VaultError.crypto(cryptoError))
        case .migrationChanged(let id):
            return ErrorReport("this vault records migration \(id) differently from this bmvault \(BuildInfo.version); it was not opened or changed: "
                               + "upgrade bmvault, or report it with the output of `bmvault diagnostics`", .failure)
        case .fileChangedWhileRead:
            return ErrorReport("the file changed while it was read (is it still being written or downloaded?); nothing was changed: add it again once it is complete", .temporaryFailure)
        case .database, .encodingFailed, .io, .upgradeCheckFailed:
            return ErrorReport("storage failure: \(error)", .failure)
        }
    }

    /// Archive errors name the file (relative to the archive), the line and the record id,
    /// never text from it, nor the PATH or --out value the reader typed.
    static func report(_ error: ArchiveError) -> ErrorReport {
        func place(_ file: String, _ line: Int?) -> String { line.map { "\(file) line \($0)" } ?? file }
        func record(_ id: String?) -> String { id.map { "record \($0): " } ?? "" }
        let unchanged = "; nothing was imported"
        switch error {
        case .newerFormat(let found, let supported):
            return ErrorReport("this archive has format version \(found), newer than the \(supported) this bmvault \(BuildInfo.version) reads; upgrade bmvault\(unchanged)", .dataError)
        case .notFound:
            return ErrorReport("PATH does not exist; give an archive directory or its journal.json", .notFound)
        case .notAnArchive:
            return ErrorReport("PATH is not a bmvault archive (no manifest.json, journal.json or book Markdown of bmvault)\(unchanged)", .dataError)
        case .checksumMismatch(let entry):
            return ErrorReport("the file of entry \(entry) in manifest.json's files (counted from 1) is missing or differs from manifest.json (size or SHA-256): the archive was changed or damaged\(unchanged); --force imports it anyway", .dataError)
        case .plainCopyDiffers(let file):
            return ErrorReport("\(file) is not the book file journal.json lists (its size or SHA-256 differs): the archive was changed or damaged\(unchanged)", .dataError)
        case .malformed(let file, let line, let reason):
            return ErrorReport("\(place(file, line)): \(reason)\(unchanged)", .dataError)
        case .invalidUTF8(let file, let line):
            return ErrorReport("\(place(file, line)): the text is not valid UTF-8\(unchanged)", .dataError)
        case .truncated(let file, let line):
            return ErrorReport("\(place(file, line)): the file ends too early (was it cut short?)\(unchanged)", .dataError)
        case .missingField(let file, let line, let id, let field):
            return ErrorReport("\(place(file, line)): \(record(id))\(field) is missing\(unchanged)", .dataError)
        case .invalidField(let file, let line, let id, let field, let reason):
            return ErrorReport("\(place(file, line)): \(record(id))\(field) is \(reason)\(unchanged)", .dataError)
        case .duplicateRecord(let file, let line, let id):
            return ErrorReport("\(place(file, line)): a second record with id \(id)\(unchanged)", .dataError)
        case .unknownBook(let file, let line, let id, let book):
            return ErrorReport("\(place(file, line)): record \(id) belongs to book \(book), which is neither in the archive nor in the vault\(unchanged)", .dataError)
        case .destinationExists:
            return ErrorReport("the --out directory already exists; export writes a new directory (nothing was written)", .failure)
        case .io(let operation, let path, let code):
            return ErrorReport("\(operation) of \(path) failed: \(String(cString: strerror(code)))", .failure)
        }
    }

    static func report(_ error: NotesFolderError) -> ErrorReport {
        switch error {
        case .notEmpty:
            return ErrorReport("the --markdown-folder folder has files and is not one bmvault exported to (no .bmvault-notes.json); add --into-existing to write notes beside them (nothing was written)", .failure)
        case .notADirectory:
            return ErrorReport("the --markdown-folder path is not a folder (nothing was written)", .failure)
        case .busy:
            return ErrorReport("another bmvault export is writing into this folder; try again once it has finished", .temporaryFailure)
        case .newerState(let found, let supported):
            return ErrorReport("the folder's .bmvault-notes.json has format \(found), newer than the \(supported) this bmvault \(BuildInfo.version) reads; upgrade bmvault (nothing was written)", .dataError)
        case .malformedState(let reason):
            return ErrorReport("the folder's .bmvault-notes.json is not one bmvault wrote (\(reason)); nothing was written. Move it away to start the folder afresh (bmvault then writes new notes beside the old)", .dataError)
        case .notAFile(let what):
            return ErrorReport("\(what) is a symbolic link or not a regular file; bmvault never follows or replaces one (nothing was written)", .failure)
        case .io(let operation, let path, let code):
            return ErrorReport("\(operation) of \(path) failed: \(String(cString: strerror(code)))", .failure)
        }
    }

    static func report(_ error: KeystoreError) -> ErrorReport {
        switch error {
        case .noSessionBus:
            return ErrorReport("no D-Bus session bus: log in to a desktop session, or start one with `dbus-run-session` and a Secret Service provider (README, \"Without a desktop\")", .unavailable)
        case .noProvider:
            return ErrorReport("no Secret Service on the session bus: start `gnome-keyring-daemon --start --components=secrets`, or enable KeePassXC's Secret Service integration", .unavailable)
        case .timedOut(let milliseconds):
            return ErrorReport("the Secret Service did not answer within \(Double(milliseconds) / 1000) s; check that your keyring (gnome-keyring, KeePassXC) is running and not waiting on a prompt", .unavailable)
        case .keyringLocked:
            return report(VaultError.keyringLocked)
        case .noSuchCollection(let alias) where alias == "session":
            return ErrorReport("this keyring has no session collection (KeePassXC keeps none); run `bmvault unlock --remember` to keep the key in the default collection", .unavailable)
        case .noSuchCollection:
            return ErrorReport("this keyring has no default collection; create one in your keyring app (such as Seahorse), or unlock without --remember", .unavailable)
        case .malformedItem:
            return ErrorReport("the keyring item for this vault was not written by bmvault; run `bmvault lock`, then `bmvault unlock`", .unavailable)
        case .failure(let domain, let code):
            return ErrorReport("the Secret Service failed (\(domain) \(code))", .unavailable)
        }
    }

    static func report(_ error: CLIError) -> ErrorReport {
        switch error {
        case .invalidValue(let message):
            return ErrorReport(message, .usage)
        case .noTerminal:
            return ErrorReport("no terminal to ask for the passphrase; pipe it in with --passphrase-stdin", .usage)
        case .noTerminalForServerPassword:
            return ErrorReport("no terminal to ask for the server's password; pipe it in with --password-stdin; nothing was set up", .usage)
        case .passphraseMismatch:
            return ErrorReport("the passphrases do not match; nothing was changed", .dataError)
        case .secretTooLong(let limit):
            return ErrorReport("the passphrase is longer than \(limit) bytes; nothing was changed", .dataError)
        case .invalidUTF8:
            return ErrorReport("the text is not valid UTF-8; nothing was saved", .dataError)
        case .noEditor:
            return ErrorReport("no TEXT given, nothing piped on stdin, neither $VISUAL nor $EDITOR set, and no editor or vi on $PATH", .usage)
        case .configInvalid(let path, let line, let reason):
            return ErrorReport("\(path)\(line > 0 ? ", line \(line)" : ""): \(reason); nothing was done", .usage)
        case .emptyBuffer:
            return ErrorReport("the editor's buffer was empty: cancelled, nothing was saved", .failure)
        case .noPrivateRuntimeDirectory:
            return ErrorReport("the editor needs a private $XDG_RUNTIME_DIR for its buffer (bmvault will not put a note in /tmp); pass TEXT or pipe it on stdin", .failure)
        case .interrupted(let signal):
            return ErrorReport("stopped by signal \(signal) while the editor was open; nothing was saved", .failure)
        case .editorFailed(let status):
            return ErrorReport("the editor exited with status \(status); nothing was saved", .failure)
        case .editorBufferNotAFile:
            return ErrorReport("the editor left something other than a file where its buffer was (a FIFO?); nothing was saved", .failure)
        case .unreadableRecords(let count):
            return ErrorReport("\(count) record\(count == 1 ? "" : "s") could not be read (listed above); every other record was shown", .dataError)
        case .noPassphraseSource(let reason):
            let why = switch reason {
            case .noSessionBus: "there is no D-Bus session bus"
            case .noProvider: "no Secret Service runs on the session bus"
            case .noKeyringOption: "--no-keyring was given"
            }
            return ErrorReport("the vault key is needed and \(why): run this at a terminal to type the passphrase, set BMVAULT_PASSPHRASE_COMMAND to a command that prints it, or start a Secret Service (README, \"Without a desktop\")", .noPermission)
        case .passphraseCommandInvalid:
            return ErrorReport("BMVAULT_PASSPHRASE_COMMAND is empty or has an unterminated quote (it runs without a shell)", .usage)
        case .passphraseCommandFailed(let status) where status == 127:
            return ErrorReport("BMVAULT_PASSPHRASE_COMMAND could not be started: its first word is not a program in PATH", .noPermission)
        case .passphraseCommandFailed(let status):
            return ErrorReport("BMVAULT_PASSPHRASE_COMMAND exited with status \(status); nothing was changed", .noPermission)
        case .remotePasswordCommandInvalid:
            return ErrorReport("\(RemotePasswordCommand.variable) is empty or has an unterminated quote (it runs without a shell)", .usage)
        case .remotePasswordCommandFailed(_, let status) where status == 127:
            return ErrorReport("\(RemotePasswordCommand.variable) could not be started: its first word is not a program in PATH", .noPermission)
        case .remotePasswordCommandFailed(let remote, let status):
            return ErrorReport("\(RemotePasswordCommand.variable) exited with status \(status) for remote \(remote); nothing was synced", .noPermission)
        case .keyringCommandWithoutKeyring(let command):
            return ErrorReport("`\(command)` works on the keyring and --no-keyring turns it off; without a keyring each command asks for the passphrase", .usage)
        case .syncIncomplete(let shortfall):
            return report(shortfall)
        case .checkFoundDamage(let count):
            return ErrorReport("the check found \(counted(count, "problem")) (listed above); nothing was changed. What another device holds comes back from it; an export or a copy of vault.db made before the damage restores the rest (Docs/CLI.md, `check`)", .dataError)
        case .filesNotIntact(let count):
            return ErrorReport("\(counted(count, "book file")) missing, unreadable or changed (listed above); nothing was deleted. `file verify --search DIR` looks for moved files, `--repair` re-links them", .dataError)
        case .notesLeftAsTheyWere(let count):
            return ErrorReport("every other note was written; \(counted(count, "note")) left as \(count == 1 ? "it was" : "they were") (listed above): --show-edits shows what differs, --overwrite-edited writes bmvault's parts anyway (your text outside them stays)", .failure)
        case .filesNotCopied(let count):
            return ErrorReport("the archive was written, but without the plain copies of \(counted(count, "book file")) (listed above); journal.json lists them", .dataError)
        case .viewerFailed(let status) where status == 127:
            return ErrorReport("xdg-open could not be started (is xdg-utils installed?); `file open --print-path` decrypts it for a viewer of your own", .unavailable)
        case .viewerFailed(let status):
            return ErrorReport("the viewer exited with status \(status); the decrypted copy is removed by the next bmvault command", .failure)
        case .recoveryKeyNotShown:
            return ErrorReport("the new recovery key could not be written to standard output; the passphrase still opens the vault: run `bmvault recovery-key rotate` for another where its output can be written", .failure)
        case .system(let operation, let code):
            return ErrorReport("\(operation) failed: \(String(cString: strerror(code)))", .failure)
        }
    }

    /// The last line of a sync that fell short: what is left, and what to do about it.
    static func report(_ shortfall: SyncShortfall) -> ErrorReport {
        switch shortfall {
        case .rekeyedElsewhere(let remotes):
            let names = remotes.sorted().joined(separator: ", ")
            return ErrorReport("the vault was rekeyed on another device (remote \(names) holds its new key), so nothing was sent there under the old key: run `bmvault unlock` (it asks for the passphrase) to take up the new key, then sync again", .failure)
        case .needsAttention(let failed, let unreadable, let unsent, let refused):
            var parts: [String] = []
            if failed > 0 {
                parts.append("\(counted(failed, "operation")) failed for good and \(failed == 1 ? "waits" : "wait") in the outbox (`bmvault outbox` says why; `bmvault sync --retry-failed` tries again)")
            }
            if unreadable > 0 {
                parts.append("\(counted(unreadable, "operation")) on the remotes could not be read here and \(unreadable == 1 ? "was" : "were") skipped (damaged files, or another vault key: Docs/SYNC.md, \"When sync says it could not read\")")
            }
            if unsent > 0 {
                parts.append("\(counted(unsent, "record")) here could not be read and \(unsent == 1 ? "is" : "are") not on the remote (`bmvault diagnostics` names the damage; a backup or an export restores it)")
            }
            if refused > 0 {
                parts.append("\(counted(refused, "book file")) on the remotes did not check out and \(refused == 1 ? "was" : "were") not kept (damaged on the remote, so removed from it: a device that holds \(refused == 1 ? "it" : "them") sends \(refused == 1 ? "it" : "them") again at its next sync; Docs/FILES.md, \"Blobs on remotes\")")
            }
            return ErrorReport("the sync is not complete: " + parts.joined(separator: "; "), .failure)
        case .remotesSkipped(let skipped):
            let names = skipped.keys.sorted().joined(separator: ", ")
            let (remote, they) = skipped.count == 1 ? ("remote", "it needs") : ("remotes", "they need")
            // Remotes that only ran out of time are as temporary as an upload to retry.
            let timedOut = skipped.values.allSatisfy { $0 == "timedOut" }
            return ErrorReport("the sync is not complete: \(remote) \(names) could not be used (said above); what \(they) waits in the outbox",
                               timedOut ? .temporaryFailure : .unavailable)
        case .leftToRetry(let failures, let deferred):
            var parts: [String] = []
            if failures > 0 { parts.append("\(counted(failures, "upload")) failed for now and will be retried") }
            if deferred > 0 { parts.append("\(counted(deferred, "received operation")) \(deferred == 1 ? "waits" : "wait") for records not received yet") }
            return ErrorReport("the sync is not complete: " + parts.joined(separator: "; ") + "; run `bmvault sync` again later", .temporaryFailure)
        }
    }

    /// `1 operation`, `3 operations`.
    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `VaultError.malformedID`, `StoreError.recordUnreadable`: the error's type and case (a
    /// storage failure's own, not the wrapping `VaultError.storage`), never its associated values.
    static func errorClass(_ error: any Error) -> String {
        if case VaultError.storage(let storageError) = error { return errorClass(storageError) }
        // Only bmvault's own error enums are described; any other error's text is unknown.
        guard error is VaultError || error is CLIError || error is StorageError else { return "\(type(of: error))" }
        let caseName = String(describing: error).prefix { $0 != "(" }
        return "\(type(of: error)).\(caseName)"
    }

    /// Failures that are not the reader's doing deserve a report file: a failed upgrade, a
    /// storage or cryptographic failure, or anything unexpected.
    static func deservesFailureReport(_ error: any Error) -> Bool {
        switch error {
        case let error as VaultError:
            switch error {
            case .storage(.upgradeFailed), .storage(.database), .storage(.encodingFailed), .storage(.io), .storage(.migrationChanged),
                 .storage(.upgradeCheckFailed), .storage(.crypto), .crypto:
                return true
            default: return false
            }
        case let error as CLIError:
            if case .system = error { return true }
            return false
        default:
            return true
        }
    }

    /// A refused login is the reader's to fix (77); a server that did not answer within its
    /// deadline (SECURITY.md, "Remotes (sync)") may next time (75); any other failure of a
    /// remote is 69.
    static func remoteExitCode(_ errorClass: String) -> ExitCode {
        switch errorClass {
        case "unauthorized", "unauthorized.given", "unauthorized.setup", "noPassword": .noPermission
        case "timedOut": .temporaryFailure
        default: .unavailable
        }
    }

    static func remoteMessage(name: String, errorClass: String) -> String {
        switch errorClass {
        case "unreachable": return "the remote \(name) cannot be reached (is the drive mounted, the folder or server there?); nothing was synced"
        case "timedOut": return "the server of remote \(name) did not answer in time; try again later"
        case "unauthorized": return "the server of remote \(name) refused the user name or password (replace it with `bmvault remote password \(name)`)"
        case "unauthorized.setup": return "the server of remote \(name) refused the user name or password; nothing was set up (check them, then try again)"
        case "unauthorized.given": return "the server of remote \(name) refused the user name or the password given for this sync (typed, or printed by \(RemotePasswordCommand.variable)); nothing was synced with it"
        case "noPassword": return "no keyring holds the password of remote \(name), so none was sent: set \(RemotePasswordCommand.variable) to a command that prints it, run `bmvault sync` at a terminal to type it, or keep it with `bmvault remote password \(name)` where a Secret Service runs"
        case "plainHTTP": return "remote \(name) is a plain http:// URL to another machine, which would send its password in the clear: "
            + "add it again with https://; nothing was synced"
        case "noSuchFolder": return "no such folder on the server of remote \(name): create it there, or check the URL; nothing was synced"
        case "outOfSpace": return "the server of remote \(name) is out of space; nothing more was synced"
        case "io.cafile": return "the CA file of remote \(name) cannot be read or is not a file (a FIFO, a device?): fix it, or add the remote again with another --ca-file; nothing was synced with it"
        case "tls": return "TLS with the server of remote \(name) failed (its certificate is not trusted here: see `remote add --ca-file`)"
        case "listingTooLarge": return "the server of remote \(name) lists more entries in one folder than any of bmvault's holds (1,000,000, or 512 MiB); it was not read on, and nothing more was synced"
        case let http where http.hasPrefix("http.create-once."):
            return "the server of remote \(name) lets a file be written twice, which bmvault's sync cannot rely on; use another server (nothing was set up)"
        case let http where http.hasPrefix("http."):
            let parts = http.split(separator: ".")
            return "the server of remote \(name) answered \(parts.last ?? "") to a \(parts.dropFirst().first ?? "") request; nothing more was synced"
        case "otherVault": return "the remote \(name) holds another vault; use another folder"
        case "noVault": return "that folder holds no bmvault vault to join"
        case "severalVaults": return "that folder holds several bmvault vaults; join from a folder with one"
        case let probe where probe.hasPrefix("probe."):
            return "the folder for remote \(name) cannot hold bmvault's files: \(probeStep(probe.dropFirst("probe.".count))) failed there; check that the drive is writable, not full and not read-only (nothing was set up)"
        default: return "the remote \(name) could not be used (\(errorClass)); nothing was synced"
        }
    }

    /// The folder a remote error is about, without its path (a folder's name can be private).
    private static func folderGiven(_ remote: String?) -> String {
        remote.map { "the folder for remote \($0)" } ?? "the folder given to `init --join`"
    }

    /// A step of ``FolderRemote``'s probe, in words.
    private static func probeStep<Text: StringProtocol>(_ errorClass: Text) -> String {
        switch errorClass {
        case "io.create", "io.link", "io.renameat2": "creating a file"
        case "io.create-once": "refusing to create a file twice (the file system lets a name be written twice)"
        case "io.verify", "io.read", "io.open": "reading a file back"
        case "io.write", "io.fsync", "io.close": "writing a file"
        case "io.rename": "replacing a file"
        case "io.mkdir": "making a folder"
        default: "a file operation (\(errorClass))"
        }
    }

    /// `12.5 MiB`: a byte count for people.
    static func bytes(_ count: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }

    /// The line printed for each record that fails authentication.
    static func unreadable(id: String, field: String) -> String {
        "record \(id) cannot be read: its \(field) failed authentication (altered or damaged)"
    }

    private static func describe(_ error: JournalError) -> String {
        switch error {
        case .emptyText(let field) where field == "query": return "the search query is empty"
        case .emptyText(let field): return "the \(field) is empty; nothing was saved"
        case .textTooLong(let field, let limit): return "the \(field) is longer than \(limit) bytes; nothing was saved"
        case .controlCharacters(let field): return "the \(field) must be a single line without control characters"
        case .progressOutOfRange: return "progress must be between 0 and 100"
        case .pagesOutOfRange: return "pages must be between 0 and \(ReadingSession.maximumPages)"
        case .sessionEndsBeforeStart: return "the session ends before it starts"
        case .quoteNeedsLocator: return "a quote needs a locator (where it is from); only a note's can be removed"
        case .sessionInFuture: return "the session ends in the future; give the times it really started and ended"
        case .invalidID: return "that is not a record id"
        case .invalidClock: return "a record carries a malformed clock reading"
        case .invalidTimestamp: return "that is not an ISO 8601 time with an offset"
        case .versionOutOfRange: return "a version number is outside 1 to \(VersionNumber.range.upperBound)"
        case .tooManySearchTerms(let limit): return "a search takes at most \(limit) words and phrases"
        case .ratingOutOfRange: return "a rating is 1 to 5 stars, in halves (such as 4 or 3.5)"
        case .statusInFuture: return "that date is in the future; give the day it happened"
        case .noteInFuture: return "--on is in the future; give the day it was written (nothing was saved)"
        case .invalidReadingLog: return "a book's reading log is malformed"
        case .invalidISBN: return "that is not an ISBN: give the 10 or 13 digits of one (hyphens allowed) whose check digit matches"
        case .yearOutOfRange: return "a year is a whole number from \(Edition.years.lowerBound) to \(Edition.years.upperBound)"
        case .pageCountOutOfRange: return "a book's number of pages is a whole number from 1 to \(ReadingSession.maximumPages)"
        case .noPageCount: return "the book has no number of pages; give one with `bmvault book edit BOOK --pages-total N`, or a percent"
        case .pageBeyondEnd(let pages): return "the book has \(pages) pages; give a page from 0 to \(pages)"
        case .invalidEdition: return "a book's edition is malformed"
        case .invalidTag: return "a tag is one word of at most \(Tag.maximumCharacters) characters, with no space or comma"
        case .invalidImportKey: return "not an import key (a source, a colon, then letters and digits)"
        case .invalidSessionSource: return "not a session source (a short word of lowercase letters, digits and -)"
        }
    }

    /// What a book file `file add` refused is, in words that never quote the file.
    static func bookFileMessage(_ error: BookFileError) -> String {
        switch error {
        case .unreadable(let code):
            return "cannot read the file: \(String(cString: strerror(code))); nothing was changed"
        case .unknownFormat:
            return "the file is not an EPUB, MOBI, AZW3 or PDF (told by its content, not its name); nothing was changed"
        case .damaged(let format, let reason):
            return "the \(format.rawValue.uppercased()) file is damaged (\(reason)); nothing was changed"
        case .encrypted(let format):
            return "the \(format.rawValue.uppercased()) file is locked (DRM or a password), so its metadata cannot be read; nothing was changed"
        }
    }

    static func bookFileExitCode(_ error: BookFileError) -> ExitCode {
        switch error {
        case .unreadable(let code): fileAccessExitCode(code)
        case .unknownFormat, .damaged, .encrypted: .dataError
        }
    }

    /// A file that could not be opened or created: not there (66), not permitted (77), or
    /// another failure (1).
    static func fileAccessExitCode(_ code: Int32) -> ExitCode {
        code == ENOENT || code == ENOTDIR ? .notFound : code == EACCES || code == EPERM ? .noPermission : .failure
    }
}
