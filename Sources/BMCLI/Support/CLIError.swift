internal import FileIO

/// Failures that belong to the terminal side of bmvault: input, prompts, the editor.
/// Like every bmvault error, no case carries what the reader typed.
enum CLIError: Error, Equatable {
    /// A value on the command line is malformed (a time, a duration, a number).
    /// The message names the option and the accepted forms, never the value.
    case invalidValue(String)
    /// A passphrase is needed, there is no terminal to ask on, and no `--passphrase-stdin`.
    case noTerminal
    /// The two passphrases typed at `init` or `passphrase change` differ.
    case passphraseMismatch
    /// A passphrase or recovery key is longer than ``SecretInput/maximumBytes``.
    case secretTooLong(limit: Int)
    /// Text on standard input or from the editor is not valid UTF-8.
    case invalidUTF8
    /// No TEXT, no piped standard input, and neither `$VISUAL` nor `$EDITOR` is set.
    case noEditor
    /// The editor buffer needs a private `$XDG_RUNTIME_DIR` (0700, ours), and there is none.
    case noPrivateRuntimeDirectory
    /// bmvault was told to stop (SIGTERM, SIGHUP) while the editor was open.
    case interrupted(signal: Int32)
    /// The editor could not be started, or exited with a non-zero status.
    case editorFailed(status: Int32)
    /// Some records could not be read; the rest were shown.
    case unreadableRecords(count: Int)
    /// A file-system or terminal call failed.
    case system(operation: String, errno: Int32)
}

extension CLIError {
    /// A failed file-system call, by the name FileIO gives it (`open`, `read`, `write`).
    static func system(_ error: FileIOError) -> CLIError {
        .system(operation: error.operation.rawValue, errno: error.errno.rawValue)
    }
}
