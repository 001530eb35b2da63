import Journal
import VaultKit

/// `init`, `unlock`, `lock`, `status`, `passphrase change`: the vault and its key.
enum VaultCommands {
    struct InitInput: CommandInput {
        var passphraseStdin = false
        var kdf = KDFStrength.moderate
        var join: String?
        var recoveryKeyStdin = false
        var server = SyncCommands.ServerInput()

        static var parameters: [Parameter<InitInput>] {
            [.flag(\.passphraseStdin, SharedOptions.passphraseStdin), .option(\.kdf, SharedOptions.kdf, ValueParsing.kdfStrength),
             .option(\.join, OptionSpec(name: "join", valueName: "path",
                                        help: "Join a vault another device syncs through this folder (or WebDAV folder's URL), instead of creating one.")),
             .flag(\.recoveryKeyStdin, OptionSpec(name: "recovery-key-stdin", help: "With --join: prove access with the recovery key, read from standard input."))]
                + SyncCommands.ServerInput.parameters(\.server)
        }
    }

    static func initCommand(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "init", abstract: "Create a vault and print its recovery key once.",
            discussion: "Asks for a new passphrase (twice) unless --passphrase-stdin is given. The recovery key goes to standard output, alone on its line; keep it somewhere safe: it is the only way in if the passphrase is lost.",
            parameters: InitInput.parameters
        ) { input in
            let location = context.location
            guard !Vault.exists(at: location) else { throw VaultError.vaultExists(path: location.databasePath) }
            if let remotePath = input.join {
                try join(remotePath, recovery: input.recoveryKeyStdin, passphraseFromStdin: input.passphraseStdin, server: input.server,
                         context: context)
                return
            }
            guard input.server.isEmpty else { throw CLIError.invalidValue("--user, --password-stdin and --ca-file go with --join URL") }
            let passphrase = try context.newPassphrase(fromStandardInput: input.passphraseStdin)
            context.console.progress("Deriving the key (Argon2id, \(input.kdf.rawValue))...\n")
            let created = try Vault.create(at: location, passphrase: passphrase, kdf: KDFParameters(strength: input.kdf),
                                           keyStore: context.keyStore(), clock: context.clock)
            try context.showNewRecoveryKey(created.recoveryKey, introduction: """
                Created a vault at \(location.directory).

                Your recovery key is on the next line. It is shown only this once: write it down and
                keep it away from this computer. It unlocks the vault if you forget your passphrase.

                """)
            context.console.err("\nNext: `bmvault unlock`.\n")
        }
    }

    /// `init --join PATH` (or URL): this device's copy of a vault that syncs through PATH.
    private static func join(_ remotePath: String, recovery: Bool, passphraseFromStdin: Bool, server: SyncCommands.ServerInput,
                             context: CommandContext) throws {
        let secret: SecretBytes
        if recovery {
            secret = context.console.stdinIsTerminal ? try SecretInput.prompt("Recovery key: ") : try SecretInput.readLine()
        } else {
            secret = passphraseFromStdin ? try SecretInput.readLine() : try SecretInput.prompt("Passphrase of the vault to join: ")
        }
        let source: Vault.JoinSource
        if WebDAVFolder.isURL(remotePath) {
            let (folder, password) = try server.folder(remotePath, context: context)
            source = .webdav(folder, password: password)
        } else {
            guard server.isEmpty else { throw CLIError.invalidValue("--user, --password-stdin and --ca-file are for a WebDAV folder (an https:// URL)") }
            source = .folder(path: remotePath)
        }
        context.console.progress("Checking the key...\n")
        let (vault, completeness) = try Vault.join(at: context.location, from: source, secret: secret, usingRecoveryKey: recovery,
                                                   keyStore: context.keyStore(), clock: context.clock)
        context.console.err("Joined vault \(vault.vaultID) at \(vault.location.directory); it syncs through \(remotePath).\n")
        if completeness.incomplete > 0 {
            let devices = completeness.devices == 1 ? "the device" : "\(completeness.incomplete) of the \(completeness.devices) devices"
            context.console.err("Warning: \(devices) syncing through this folder \(completeness.incomplete == 1 ? "has" : "have") not put all of the journal there yet (a sync that did not finish, or a bmvault older than 0.7): run `bmvault sync` on \(completeness.incomplete == 1 ? "it" : "each") with bmvault 0.7 or later, then sync here.\n")
        }
        context.console.err("Next: `bmvault unlock`, then `bmvault sync`.\n")
    }

    struct UnlockInput: CommandInput {
        var passphraseStdin = false
        var recoveryKeyStdin = false
        /// nil: the config file's `unlock-timeout`, else ``Vault/defaultUnlockSeconds``.
        var timeoutSeconds: Int64?
        var remember = false
        var extend = false

        static var parameters: [Parameter<UnlockInput>] {
            [.flag(\.passphraseStdin, SharedOptions.passphraseStdin),
             .flag(\.recoveryKeyStdin, OptionSpec(name: "recovery-key-stdin", help: "Unlock with the recovery key, read from standard input.")),
             .option(\.timeoutSeconds, OptionSpec(name: "timeout", valueName: "duration", help: "How long to stay unlocked, such as 30m, 8h or 2d (default 8h)."),
                     ValueParsing.duration),
             .flag(\.remember, OptionSpec(name: "remember", help: "Keep the key in the default keyring, which survives logout.")),
             .flag(\.extend, OptionSpec(name: "extend", help: "Already unlocked: keep the key for --timeout from now, without the passphrase."))]
        }
    }

    static func unlock(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "unlock", abstract: "Keep the vault key in the Secret Service for a while.",
            discussion: "The key goes to the in-memory session keyring (gone at logout) unless --remember puts it in the default keyring. It expires after --timeout (default 8h); `bmvault lock` removes it at once. Run while unlocked, it says until when; --extend keeps it longer.",
            parameters: UnlockInput.parameters
        ) { input in
            guard context.usesKeyring else { throw CLIError.keyringCommandWithoutKeyring(command: "unlock") }
            let useRecovery = input.recoveryKeyStdin
            let timeout = input.timeoutSeconds ?? context.config.unlockTimeoutSeconds ?? Vault.defaultUnlockSeconds
            if useRecovery && input.passphraseStdin {
                throw CLIError.invalidValue("use either --passphrase-stdin or --recovery-key-stdin, not both")
            }
            let vault = try context.openVaultWithoutKey()
            let keyState = vault.keyState()
            // Unlocked under a key another device's rekey replaced: the secret is asked for
            // again, to take up the new key.
            let rekeyedElsewhere = input.extend ? nil : try vault.rekeyMadeElsewhere()
            if let remote = rekeyedElsewhere, case .unlocked = keyState {
                context.console.err("The vault is unlocked under a key that a rekey on another device replaced (remote \(remote) holds the new one).\n")
            } else if case .unlocked(let until, let current) = keyState {
                let persistence: KeyPersistence = input.remember ? .remembered : current ?? .session
                if input.extend {
                    let expiry = try vault.extendUnlock(forSeconds: timeout, persistence: persistence)
                    context.console.err("Unlocked until \(HumanFormat.localTime(expiry)) (\(keyringName(persistence))).\n")
                } else {
                    let extended = Timestamp(millisecondsSince1970: context.clock.now().millisecondsSince1970 + timeout * 1000)
                    context.console.err("Already unlocked until \(HumanFormat.localTime(until)) (\(keyringName(current))). "
                                        + "To keep it unlocked until \(HumanFormat.localTime(extended)), run `bmvault unlock --extend"
                                        + (input.timeoutSeconds == nil ? "" : " --timeout ...")
                                        + (input.remember ? " --remember" : "") + "`.\n")
                }
                return
            }
            // A keyring that cannot be reached says so before the passphrase is asked; then,
            // extending never stands in for the passphrase.
            if case .keyringUnavailable(let failure) = keyState { throw VaultError.keystore(failure) }
            if input.extend { throw VaultError.locked }
            let persistence: KeyPersistence = input.remember ? .remembered : .session
            let expiry: Timestamp
            if useRecovery {
                let key = context.console.stdinIsTerminal ? try SecretInput.prompt("Recovery key: ") : try SecretInput.readLine()
                context.console.progress("Unlocking...\n")
                expiry = try vault.unlock(recoveryKey: key, forSeconds: timeout, persistence: persistence,
                                          events: context.reportRekeyFollow)
            } else {
                let passphrase = input.passphraseStdin ? try SecretInput.readLine()
                    : try SecretInput.prompt("Passphrase for \(vault.location.directory): ")
                context.console.progress("Unlocking...\n")
                expiry = try vault.unlock(passphrase: passphrase, forSeconds: timeout, persistence: persistence,
                                          events: context.reportRekeyFollow)
            }
            context.console.err("Unlocked until \(HumanFormat.localTime(expiry)) (\(keyringName(persistence))).\n")
            if useRecovery {
                context.console.err("Set a new passphrase now with `bmvault passphrase change`.\n")
            }
        }
    }

    static func lock(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "lock", abstract: "Remove the vault key from the Secret Service.", parameters: NoInput.parameters) { _ in
            guard context.usesKeyring else { throw CLIError.keyringCommandWithoutKeyring(command: "lock") }
            try context.openVaultWithoutKey().lock()
            context.console.err("Locked.\n")
        }
    }

    static func status(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "status", abstract: "Show whether the vault is unlocked and what it holds.",
            discussion: "Works while locked: it shows counts and ids, never content.",
            parameters: JSONOnlyInput.parameters
        ) { input in
            let vault = try context.openVaultWithoutKey()
            let status = try vault.status()
            let counts = status.counts
            let (state, until, sentence) = describe(status.keyState)
            if input.json {
                var outbox: [String: Int] = [:]
                for (state, count) in status.outbox { outbox[JSONDocuments.outboxKey(state)] = count }
                context.console.out(JSONDocuments.render(JSONDocuments.StatusDocument(
                    locked: status.isLocked, keyState: state, unlockedUntil: until?.iso8601, vaultId: status.vaultID,
                    vaultPath: vault.location.directory, schemaVersion: status.schemaVersion, counts: counts, outbox: outbox,
                    rekeyInProgress: status.rekeyInProgress, conflicts: status.conflicts, remotes: status.remotes.map(\.name),
                    lastSynced: Dictionary(uniqueKeysWithValues: status.remotes.map { ($0.name, $0.lastSyncedAt?.iso8601) }))))
            } else {
                let pending = status.outbox[.pending] ?? 0
                let failed = status.outbox[.failed] ?? 0
                context.console.out(HumanFormat.field("vault", vault.location.directory)
                    + HumanFormat.field("id", status.vaultID)
                    + HumanFormat.field("state", sentence)
                    + (status.rekeyInProgress ? HumanFormat.field("rekey", "interrupted; run `bmvault rekey` to finish it") : "")
                    + HumanFormat.field("schema", "version \(status.schemaVersion)")
                    + HumanFormat.field("journal", HumanFormat.counted([(counts.books, "book"), (counts.sessions, "session"), (counts.notes, "note"), (counts.quotes, "quote")]))
                    + HumanFormat.field("outbox", "\(pending) pending" + (failed > 0 ? ", \(failed) failed" : ""))
                    + HumanFormat.field("sync", status.remotes.isEmpty ? "no remote" : "remotes: " + status.remotes.map { "\($0.name) (\(SyncCommands.lastSync($0)))" }.joined(separator: ", ")
                                        + (status.conflicts > 0 ? "; \(HumanFormat.counted([(status.conflicts, "conflict")])), see `bmvault conflicts`" : "")))
            }
        }
    }

    /// The collection a key is kept in, as the reader knows it.
    private static func keyringName(_ persistence: KeyPersistence?) -> String {
        switch persistence {
        case .remembered: "default keyring"
        case .session: "session keyring"
        case nil: "keyring"
        }
    }

    private static func describe(_ state: VaultStatus.KeyState) -> (String, Timestamp?, String) {
        switch state {
        case .unlocked(let until, let persistence):
            return ("unlocked", until, "unlocked until \(HumanFormat.localTime(until)) (\(keyringName(persistence)))")
        case .notUnlocked:
            return ("locked", nil, "locked; run `bmvault unlock`")
        case .expired:
            return ("expired", nil, "locked (the unlock period ended); run `bmvault unlock`")
        case .keyringLocked:
            return ("keyring-locked", nil, "locked: the keyring holding the key is locked")
        case .keyringUnavailable(let error):
            return ("keyring-unavailable", nil, "locked: " + ErrorReport.report(error).message)
        }
    }

    struct PassphraseChangeInput: CommandInput {
        var passphraseStdin = false
        var kdf = KDFStrength.moderate

        static var parameters: [Parameter<PassphraseChangeInput>] {
            [.flag(\.passphraseStdin, OptionSpec(name: "passphrase-stdin",
                                                 help: "Read the current passphrase (or the recovery key), then the new passphrase, one per line from standard input.")),
             .option(\.kdf, SharedOptions.kdf, ValueParsing.kdfStrength)]
        }
    }

    static func passphrase(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "passphrase", abstract: "Manage the vault's passphrase.",
            subcommands: [
                CommandSpec(
                    name: "change", abstract: "Replace the passphrase, after the current one (or the recovery key).",
                    discussion: "Asks for the current passphrase or the recovery key first, as passwd and gpg do: an unlocked terminal alone cannot change it. Only the passphrase keyslot is rewritten; no note is re-encrypted and the recovery key keeps working. After losing the passphrase, give the recovery key here to set a new one.",
                    parameters: PassphraseChangeInput.parameters
                ) { input in
                    let vault = try context.openVaultWithoutKey()
                    // The current one first, as passwd does: nobody types a new passphrase twice for nothing.
                    let confirmation = try vault.confirm(try context.currentSecret(fromStandardInput: input.passphraseStdin))
                    let passphrase = try context.newPassphrase(fromStandardInput: input.passphraseStdin)
                    context.console.progress("Deriving the key (Argon2id, \(input.kdf.rawValue))...\n")
                    try vault.changePassphrase(confirmed: confirmation, to: passphrase, kdf: KDFParameters(strength: input.kdf))
                    context.console.err("Passphrase changed; the old one no longer opens the vault.\n")
                },
            ])
    }

    struct RecoveryKeyRotateInput: CommandInput {
        var passphraseStdin = false

        static var parameters: [Parameter<RecoveryKeyRotateInput>] {
            [.flag(\.passphraseStdin, OptionSpec(name: "passphrase-stdin",
                                                 help: "Read the current passphrase (or the old recovery key) from standard input."))]
        }
    }

    static func recoveryKey(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "recovery-key", abstract: "Manage the vault's recovery key.",
            subcommands: [
                CommandSpec(
                    name: "rotate", abstract: "Make a new recovery key and print it once; the old one stops working.",
                    discussion: "Asks for the current passphrase (or the old recovery key) first. Only the recovery keyslot is rewritten; no note is re-encrypted and the passphrase keeps working. Remotes get the new keyslot at the next sync.",
                    parameters: RecoveryKeyRotateInput.parameters
                ) { input in
                    let vault = try context.openVaultWithoutKey()
                    let current = try context.currentSecret(fromStandardInput: input.passphraseStdin)
                    context.console.progress("Checking...\n")
                    let recoveryKey = try vault.rotateRecoveryKey(confirmed: try vault.confirm(current))
                    try context.showNewRecoveryKey(recoveryKey, introduction: """
                        Your NEW recovery key is on the next line; the old one no longer opens the vault.
                        It is shown only this once: write it down and keep it away from this computer.

                        """)
                    context.console.err("\nRun `bmvault sync` so your remotes hold the new recovery keyslot.\n")
                },
            ])
    }
}
