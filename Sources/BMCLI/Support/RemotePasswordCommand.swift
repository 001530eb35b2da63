import VaultKit

/// `BMVAULT_REMOTE_PASSWORD_COMMAND`: a program whose first line of output is a WebDAV
/// remote's password, for a sync where no keyring keeps it (cron, SSH, `--no-keyring`). It
/// runs exactly as ``PassphraseCommand`` runs `BMVAULT_PASSPHRASE_COMMAND` (no shell,
/// standard input `/dev/null`, the first line into secure memory), once for each such
/// remote, with the remote's name in `$BMVAULT_REMOTE`, so one command can serve several
/// (`sh -c 'pass show "webdav/$BMVAULT_REMOTE"'`).
enum RemotePasswordCommand {
    static let variable = "BMVAULT_REMOTE_PASSWORD_COMMAND"
    /// The variable the command finds the remote's name in.
    static let remoteVariable = "BMVAULT_REMOTE"

    /// The password `command` prints for `remote`, run with `environment` and the remote's
    /// name added to it.
    static func run(_ command: String, remote: String, environment: [String: String]) throws(CLIError) -> SecretBytes {
        var childEnvironment = environment
        childEnvironment[remoteVariable] = remote
        do {
            return try PassphraseCommand.run(command, environment: childEnvironment)
        } catch .passphraseCommandInvalid {
            throw .remotePasswordCommandInvalid
        } catch .passphraseCommandFailed(let status) {
            throw .remotePasswordCommandFailed(remote: remote, status: status)
        }
    }
}
