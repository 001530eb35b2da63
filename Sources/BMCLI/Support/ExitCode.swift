/// bmvault's exit statuses (sysexits.h values), documented in Docs/CLI.md.
enum ExitCode: Int32 {
    case success = 0
    /// Anything not listed below.
    case failure = 1
    /// The command line was wrong: unknown option, missing argument, ambiguous name.
    case usage = 64
    /// The input data was wrong: empty text, invalid UTF-8, a malformed recovery key, a record that fails authentication.
    case dataError = 65
    /// The vault, book or record does not exist.
    case notFound = 66
    /// The Secret Service is not reachable or did not answer; a sync skipped a remote it could not use.
    case unavailable = 69
    /// A sync left operations to retry later (a remote failed for now, records not received yet).
    case temporaryFailure = 75
    /// The vault is locked, or the passphrase or recovery key is wrong.
    case noPermission = 77
}
