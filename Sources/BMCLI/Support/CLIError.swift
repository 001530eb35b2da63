internal import FileIO
import VaultKit

/// Failures that belong to the terminal side of bmvault: input, prompts, the editor.
/// Like every bmvault error, no case carries what the reader typed.
enum CLIError: Error, Equatable {
    /// A value on the command line is malformed (a time, a duration, a number).
    /// The message names the option and the accepted forms, never the value.
    case invalidValue(String)
    /// A passphrase is needed, there is no terminal to ask on, and no `--passphrase-stdin`.
    case noTerminal
    /// A WebDAV server's password is needed (`--user` given), there is no terminal to ask on,
    /// and no `--password-stdin`.
    case noTerminalForServerPassword
    /// The two passphrases typed at `init` or `passphrase change` differ.
    case passphraseMismatch
    /// A passphrase or recovery key is longer than ``SecretInput/maximumBytes``.
    case secretTooLong(limit: Int)
    /// Text on standard input or from the editor is not valid UTF-8.
    case invalidUTF8
    /// No TEXT, no piped standard input, neither `$VISUAL` nor `$EDITOR` set, and neither
    /// `editor` nor `vi` on `$PATH`.
    case noEditor
    /// The config file has a line bmvault cannot use (0: the file as a whole); the value on
    /// it is never repeated.
    case configInvalid(path: String, line: Int, reason: String)
    /// The editor's buffer was saved empty (or left with only its comment lines): the
    /// reader cancelled, and nothing was saved.
    case emptyBuffer
    /// The editor buffer needs a private `$XDG_RUNTIME_DIR` (0700, ours), and there is none.
    case noPrivateRuntimeDirectory
    /// bmvault was told to stop (SIGTERM, SIGHUP) while the editor was open.
    case interrupted(signal: Int32)
    /// The editor could not be started, or exited with a non-zero status.
    case editorFailed(status: Int32)
    /// The editor left a FIFO, a device or a folder where its buffer was: nothing is read
    /// from it (a FIFO would block bmvault for ever).
    case editorBufferNotAFile
    /// Some records could not be read; the rest were shown.
    case unreadableRecords(count: Int)
    /// The vault key is needed, no keyring holds it (none is reachable, or `--no-keyring`),
    /// and there is neither a terminal to ask on nor a `BMVAULT_PASSPHRASE_COMMAND`.
    case noPassphraseSource(KeylessReason)
    /// `BMVAULT_PASSPHRASE_COMMAND` is empty or has an unterminated quote (its text is never repeated).
    case passphraseCommandInvalid
    /// `BMVAULT_PASSPHRASE_COMMAND` could not be started (127) or exited with this status.
    case passphraseCommandFailed(status: Int32)
    /// `BMVAULT_REMOTE_PASSWORD_COMMAND` is empty or has an unterminated quote (its text is never repeated).
    case remotePasswordCommandInvalid
    /// `BMVAULT_REMOTE_PASSWORD_COMMAND`, run for remote `remote`, could not be started (127)
    /// or exited with this status.
    case remotePasswordCommandFailed(remote: String, status: Int32)
    /// `--no-keyring` with a command whose whole job is the keyring (`unlock`, `lock`).
    case keyringCommandWithoutKeyring(command: String)
    /// A new recovery key could not be written to standard output (a full disk, a closed
    /// pipe); the passphrase still opens the vault, so `recovery-key rotate` makes another.
    case recoveryKeyNotShown
    /// `check` found damage (listed first, by kind and id).
    case checkFoundDamage(count: Int)
    /// `file verify` found book files missing, unreadable or changed (listed first, by id).
    case filesNotIntact(count: Int)
    /// `export --with-files` wrote the archive without the plain copies of some book files
    /// (named first, by id).
    case filesNotCopied(count: Int)
    /// `export --markdown-folder` wrote every other note, and left these as they were
    /// (edited by the reader in bmvault's parts, or not a file; listed first).
    case notesLeftAsTheyWere(count: Int)
    /// `file open` could not start the viewer (`xdg-open`), or it failed with this status.
    case viewerFailed(status: Int32)
    /// A sync (`sync`, or `--fresh`) did not do everything: its summary was shown first.
    case syncIncomplete(SyncShortfall)
    /// A file-system or terminal call failed.
    case system(operation: String, errno: Int32)
}

/// Why a command works without a keyring, for the message that says what to do instead.
enum KeylessReason: Equatable {
    /// There is no D-Bus session bus (SSH, a console, a server, WSL).
    case noSessionBus
    /// The bus is up but no Secret Service runs on it.
    case noProvider
    /// The reader asked for `--no-keyring`.
    case noKeyringOption
}

extension CLIError {
    /// A failed file-system call, by the name FileIO gives it (`open`, `read`, `write`).
    static func system(_ error: FileIOError) -> CLIError {
        .system(operation: error.operation.rawValue, errno: error.errno.rawValue)
    }
}
