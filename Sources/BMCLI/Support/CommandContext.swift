internal import FileIO
import Foundation
import Journal
import Telemetry
import VaultKit

/// What every command runs with: the environment, the console, the clock, and the way
/// to open the vault the global `--vault` option (or the environment) names.
final class CommandContext {
    /// Default bound on every Secret Service call; `BMVAULT_KEYRING_TIMEOUT_MS` overrides it.
    static let defaultKeyringTimeoutMilliseconds = 5000

    let environment: [String: String]
    let console: Console
    let clock: any Clock
    var vaultOption: String?
    /// Whether commands may use the Secret Service; `--no-keyring` turns it off.
    var usesKeyring = true
    /// False with `--no-pager`.
    var pages = true
    /// True with `--verbose`: a command may then show more (`import` lists what it did not
    /// add, by locator, on standard output; never in logs or on standard error).
    var verbose = false
    /// The config file's settings (``Config``), read before the command runs.
    var config = Config()
    /// Records that failed to read during a listing; turns a finished listing into exit 65.
    private(set) var unreadableCount = 0
    /// What a sync asked for by `--fresh` left undone; turns a finished listing into its exit status.
    private(set) var freshSyncShortfall: SyncShortfall?

    init(environment: [String: String], console: Console = Console(), clock: any Clock = SystemClock()) {
        self.environment = environment
        self.console = console
        self.clock = clock
    }

    var location: VaultLocation {
        // --vault, then $BMVAULT_HOME, then the config file's vault, then the XDG default.
        let hasHome = environment["BMVAULT_HOME"].map { !$0.isEmpty } ?? false
        return VaultLocation.resolve(option: vaultOption ?? (hasHome ? nil : config.vault), environment: environment,
                                     currentDirectory: (try? FileSystem.currentDirectory()) ?? ".")
    }

    /// Where logs and failure reports go: `$XDG_STATE_HOME/bmvault`, else `~/.local/state/bmvault`.
    var stateDirectory: String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/bmvault" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
        return home + "/.local/state/bmvault"
    }

    /// Sends log events at `threshold` and above to the log file, and (below `notice`) to
    /// standard error too; arms the crash reporter for `command`.
    func startLogging(threshold: LogLevel, command: String = "bmvault") {
        #if DEBUG
        // Test-only: the canary sweep's positive control. Release builds cannot bypass the scrubber.
        let bypassed = environment["BMVAULT_TEST_UNSCRUBBED"] == "1"
        #else
        let bypassed = false
        #endif
        var sinks: [any LogSink] = [FileSink(directory: stateDirectory)]
        if threshold < .notice { sinks.append(StandardErrorSink()) }
        Logger.shared.configure(threshold: threshold, sinks: sinks, scrubber: Scrubber(bypassed: bypassed))
        CrashReporter.install(stateDirectory: stateDirectory, command: command, version: BuildInfo.version)
    }

    /// A report of an unexpected failure, beside the log, with only what diagnostics may show.
    func writeFailureReport(command: String, errorClass: String, status: ExitCode) {
        let path = FailureReport.write(stateDirectory: stateDirectory, event: "cli.command.failed",
                                       fields: ["command": .public(command), "error": .public(errorClass),
                                                "status": .integer(Int64(status.rawValue)), "version": .public(BuildInfo.version)],
                                       recentLines: FileSink(directory: stateDirectory).recentLines(30))
        if let path { console.err("A failure report (no journal content) was written to \(path).\n") }
    }

    /// The Secret Service, bounded by `BMVAULT_KEYRING_TIMEOUT_MS`; with `--no-keyring`, an
    /// empty keystore in this process's memory, so nothing reaches or asks the keyring.
    func keyStore() -> any KeyStore {
        guard usesKeyring else { return MemoryKeyStore() }
        let timeout = environment["BMVAULT_KEYRING_TIMEOUT_MS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        return SecretServiceKeyStore(timeoutMilliseconds: timeout ?? Self.defaultKeyringTimeoutMilliseconds)
    }

    /// Opens the vault with its key attached, for the commands that read or write the journal.
    ///
    /// The key comes from the keyring. Where no keyring is reachable (or with `--no-keyring`)
    /// it comes from the passphrase, for this process only (``unlockForThisProcess(_:because:)``).
    /// Where the vault is locked and a terminal is attached, the reader is offered an unlock,
    /// as sudo and gpg-agent do; without a terminal the command fails with exit 77.
    func openVault() throws -> Vault {
        let vault = try openVaultWithoutKey()
        if console.stdinIsTerminal && console.stderrIsTerminal {
            // unowned: the vault holds this closure, and outlives every call of it.
            vault.bookChooser = { [console, unowned vault] candidates in BookChoice.ask(candidates, name: vault.shortID, console: console) }
        }
        // Deleted text older than the retention period goes, a bounded share per command.
        vault.purgeExpiredTombstonesOnTheWay()
        // What `file open` decrypted for an earlier command goes now.
        Vault.removeOpenedFiles(runtimeDirectory: environment["XDG_RUNTIME_DIR"], vaultID: vault.vaultID)
        guard usesKeyring else {
            try unlockForThisProcess(vault, because: .noKeyringOption)
            return vault
        }
        do throws(VaultError) {
            try vault.ensureUnlocked()
        } catch {
            switch error {
            case .keystore(.noSessionBus):
                try unlockForThisProcess(vault, because: .noSessionBus)
            case .keystore(.noProvider):
                try unlockForThisProcess(vault, because: .noProvider)
            case .locked where console.stdinIsTerminal, .sessionExpired where console.stdinIsTerminal:
                try offerToUnlock(vault, after: error)
            default:
                throw error
            }
        }
        return vault
    }

    /// The headless path: the passphrase from `BMVAULT_PASSPHRASE_COMMAND` when it is set (an
    /// explicit setting wins, as restic's and borg's password commands do), else from the
    /// terminal, else a failure saying what the options are. The key lives in this process only.
    private func unlockForThisProcess(_ vault: Vault, because reason: KeylessReason) throws {
        let passphrase: SecretBytes
        if let command = environment[PassphraseCommand.variable], !command.isEmpty {
            passphrase = try PassphraseCommand.run(command)
        } else if console.stdinIsTerminal {
            console.flush()
            passphrase = try SecretInput.prompt("Passphrase for \(vault.location.directory) (no keyring: kept for this command only): ")
        } else {
            throw CLIError.noPassphraseSource(reason)
        }
        try vault.unlockForThisProcess(passphrase: passphrase, events: reportRekeyFollow)
    }

    /// What an unlock says about a rekey made on another device, on standard error.
    func reportRekeyFollow(_ event: Vault.RekeyFollowEvent) {
        switch event {
        case .following(let remote):
            console.err("The vault was rekeyed on another device; taking up its new key from remote \(remote)...\n")
        case .progress(let done, let total):
            console.progress("\rre-encrypted \(done) of \(total)")
        case .followed(_, let reencrypted, let damaged):
            console.progress("\n")
            console.err("Took up the new vault key: \(reencrypted) records re-encrypted under it"
                        + (damaged > 0 ? "; \(damaged) damaged fields were left as they were" : "")
                        + ". The passphrase and recovery key set with it now open this vault.\n")
        case .notFollowed(let remote):
            console.err("Note: the vault was rekeyed on another device, and what you typed does not open its new key (remote \(remote) holds it); "
                        + "sync leaves that remote alone until you run `bmvault unlock` with the passphrase set there or the new recovery key.\n")
        case .keyslotsTakenUp(let remote):
            reportKeyslotsTakenUp(from: remote)
        case .keyslotsNotTakenUp(let remote):
            console.err("Note: the passphrase or recovery key was changed on another device (remote \(remote) holds the new ones), "
                        + "and what you typed opens only this device's older ones; unlock with the new one to take them up here.\n")
        }
    }

    /// What an unlock or a sync says when it took up keyslots another device published.
    func reportKeyslotsTakenUp(from remote: String) {
        console.err("Took up the passphrase and recovery key set on another device (remote \(remote)): "
                    + "the ones they replaced no longer open this vault.\n")
    }

    /// A locked vault at a terminal: ask for the passphrase and unlock for the default period.
    private func offerToUnlock(_ vault: Vault, after error: VaultError) throws {
        console.flush()
        console.err(error == .sessionExpired ? "The vault's unlock period has ended.\n" : "The vault is locked.\n")
        let passphrase = try SecretInput.prompt("Passphrase to unlock it for \(Vault.defaultUnlockSeconds / 3600) hours: ")
        let expiry = try vault.unlock(passphrase: passphrase, events: reportRekeyFollow)
        console.err("Unlocked until \(HumanFormat.localTime(expiry)) (session keyring).\n")
    }

    /// Opens the vault without its key, upgrading an older one with a one-line notice on
    /// standard error (and, on a terminal, a line per migration). For the commands that read
    /// only what is in the clear (`status`, `outbox`) or take a passphrase themselves.
    func openVaultWithoutKey() throws(VaultError) -> Vault {
        try Vault.open(at: location, keyStore: keyStore(), clock: clock, events: reportMigration)
    }

    /// What an automatic schema upgrade says: one line on standard error, and on a terminal
    /// a line per migration.
    func reportMigration(_ event: MigrationEvent) {
        switch event {
        case .upgrading(let from, let to, let snapshot):
            console.err("Upgrading the vault from schema \(from) to \(to); its original is kept at \(snapshot) until this succeeds.\n")
        case .repaired(let id, let commit):
            console.progress("  \(id), as the build of \(commit) applied it, brought to its final text\n")
        case .applying(let id, let index, let count):
            console.progress("  migration \(index)/\(count): \(id)\n")
        case .upgraded(_, let to, let milliseconds):
            console.progress("Upgraded to schema \(to) in \(milliseconds) ms.\n")
        }
    }

    var editor: Editor {
        Editor(environment: environment, configured: config.editor) { [self] question in confirm(question) }
    }

    /// Opens the vault for reading: as it is here by default, or after a sync with `--fresh`
    /// (the call site says which: what is here, or what is here after a sync).
    func openVaultForReading(fresh: Bool) throws -> Vault {
        let vault = try openVault()
        if fresh {
            let summary = try vault.sync()
            console.err("Synced first: \(summary.pushed) pushed, \(summary.pulled) pulled, \(HumanFormat.counted([(summary.conflicts, "conflict")])).\n")
            freshSyncShortfall = summary.shortfall
        }
        return vault
    }

    /// Reports a record that cannot be read, in place, and remembers it for the exit status.
    func reportUnreadable(_ record: UnreadableRecord) {
        unreadableCount += 1
        console.err("Error: " + ErrorReport.unreadable(id: record.id, field: record.field) + "\n")
    }

    /// After a listing: fails with exit 65 if any record could not be read, else with the
    /// sync's exit status if `--fresh` asked for a sync that fell short.
    func finishListing() throws(CLIError) {
        console.flush()
        if unreadableCount > 0 { throw .unreadableRecords(count: unreadableCount) }
        if let freshSyncShortfall { throw .syncIncomplete(freshSyncShortfall) }
    }

    /// The text of a note or quote: TEXT if given (`-`: standard input, read to its end,
    /// terminal or not, as Unix tools take it), else standard input when it is not a
    /// terminal, else the editor, on `buffer`.
    func text(argument: String?, buffer: @autoclosure () -> EditorBuffer) throws(CLIError) -> String {
        if argument == Self.standardInputArgument { return try readStandardInput() }
        if let argument { return argument }
        if !console.stdinIsTerminal { return try readStandardInput() }
        console.flush()
        return try editor.edit(buffer())
    }

    /// The TEXT that means standard input: it keeps text out of the shell's history and the
    /// process list even at a terminal.
    static let standardInputArgument = "-"

    /// Sends the rest of standard output through the reader's pager, when it goes to a
    /// terminal: `$PAGER` (run by `/bin/sh`), else `less -FRX` if less is installed (-F: a
    /// listing that fits on the screen is printed as it is). Never with `--no-pager`.
    func startPaging() {
        guard pages, console.stdoutIsTerminal else { return }
        if let pager = config.pager ?? environment["PAGER"], !pager.trimmingCharacters(in: .whitespaces).isEmpty {
            console.startPager(pager)
        } else if let less = ChildProcess.find("less", environment: environment) {
            console.startPager("'\(less)' -FRX")
        }
    }

    /// Whether a person can be asked: standard input and standard error are both terminals.
    var canAsk: Bool { console.stdinIsTerminal && console.stderrIsTerminal }

    /// Asks `prompt` on standard error and reads one line of standard input (shown as
    /// typed: for titles and queries, not secrets); nil at the end of input.
    func ask(_ prompt: String) -> String? {
        console.err(prompt)
        console.flush()
        return Swift.readLine(strippingNewline: true)
    }

    /// Standard input, read to its end into a file that lives in memory only, for `import
    /// -`: the archive reader opens journal.json twice, which a pipe cannot be read, and a
    /// file on disk would keep the journal in the clear. `path` opens it from the start;
    /// `close()` frees it.
    func standardInputInMemory() throws(CLIError) -> (path: String, close: () -> Void) {
        let file: FileDescriptor
        do { file = try FileDescriptor.memoryFile(named: "bmvault-import") } catch { throw .system(error) }
        do throws(FileIOError) {
            try file.writeAll(try FileDescriptor.standardInput.readAll())
        } catch {
            try? file.close()
            throw .system(error)
        }
        return ("/proc/self/fd/\(file.rawValue)", { try? file.close() })
    }

    /// Asks a `[y/N]` question: true only for an answer starting with y (or Y).
    func confirm(_ question: String) -> Bool {
        ask(question)?.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y") == true
    }

    /// Standard input, read to its end, as UTF-8 text.
    func readStandardInput() throws(CLIError) -> String {
        let bytes: [UInt8]
        do { bytes = try FileDescriptor.standardInput.readAll() } catch { throw .system(error) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    /// Shows a new recovery key once: `introduction` on standard error, then the key alone on
    /// its line on standard output, straight from secure memory, flushed at once (a rekey
    /// goes on for a while after it).
    func showNewRecoveryKey(_ recoveryKey: SecretBytes, introduction: String) throws(CLIError) {
        console.err(introduction)
        do {
            try recoveryKey.withUnsafeBytes { (bytes) throws(CLIError) in try console.out(bytes: bytes) }
            try console.out(bytes: [0x0A])
        } catch {
            throw .recoveryKeyNotShown
        }
    }

    /// The current passphrase or the recovery key, proving who is asking before the vault's
    /// keys change: one line of stdin, or asked on the terminal.
    func currentSecret(fromStandardInput: Bool) throws(CLIError) -> SecretBytes {
        if fromStandardInput { return try SecretInput.readLine() }
        console.flush()
        return try SecretInput.prompt("Current passphrase (or recovery key): ")
    }

    /// How many times a new passphrase is asked for at a terminal before giving up.
    static let newPassphraseAttempts = 3

    /// A new passphrase: one line of stdin, or asked twice on the terminal. At the terminal a
    /// passphrase that breaks the rules is refused after its first entry, and a mismatch
    /// asks again (up to ``newPassphraseAttempts`` times), instead of ending the command.
    func newPassphrase(fromStandardInput: Bool) throws -> SecretBytes {
        if fromStandardInput { return try SecretInput.readLine() }
        console.flush()
        var attempt = 1
        while true {
            let first = try SecretInput.prompt("New passphrase: ")
            // Only a passphrase that breaks the rules, or two that differ, is asked again;
            // a terminal that fails ends the command.
            let failure: any Error
            do throws(VaultError) {
                try Vault.checkNewPassphrase(first)
            } catch {
                failure = error
                guard attempt < Self.newPassphraseAttempts else { throw failure }
                console.err(Self.retryReason(failure) + " Try again.\n")
                attempt += 1
                continue
            }
            let second = try SecretInput.prompt("Repeat passphrase: ")
            if first.constantTimeEquals(second) { return first }
            failure = CLIError.passphraseMismatch
            guard attempt < Self.newPassphraseAttempts else { throw failure }
            console.err(Self.retryReason(failure) + " Try again.\n")
            attempt += 1
        }
    }

    /// Why a new passphrase is asked again, in a sentence.
    private static func retryReason(_ failure: any Error) -> String {
        switch failure {
        case CLIError.passphraseMismatch: "The two entries differ."
        case VaultError.passphraseTooShort(let minimum): "Too short: a passphrase needs at least \(minimum) characters."
        default: "That passphrase cannot be used (\(ErrorReport(failure).message))."
        }
    }
}
