/// bmvault's exit statuses (sysexits.h values), documented in Docs/CLI.md and, from
/// ``meaning``, in the manual page.
enum ExitCode: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    case notFound = 66
    case unavailable = 69
    case temporaryFailure = 75
    case noPermission = 77

    /// What the status says, for `bmvault man`.
    var meaning: String {
        switch self {
        case .success: "Everything asked was done."
        case .failure: "Anything not listed below."
        case .usage: "The command line was wrong: unknown option, missing argument, ambiguous name."
        case .dataError: "The input data was wrong: empty text, invalid UTF-8, a malformed recovery key, a record that fails authentication."
        case .notFound: "The vault, book or record does not exist."
        case .unavailable: "The Secret Service is not reachable or did not answer; a sync skipped a remote it could not use; a remote's server could not be used."
        case .temporaryFailure: "A sync left operations to retry later (a remote failed for now, records not received yet); a remote's server did not answer within its deadline; a file changed while it was read."
        case .noPermission: "The vault is locked, or the passphrase or recovery key is wrong, or a server refused the user name or password."
        }
    }
}
