import Journal
import VaultKit

/// `remote`, `sync`, `outbox`, `conflicts`: the sync side of the vault.
enum SyncCommands {
    struct RemoteAddInput: CommandInput {
        var name = ""
        var path = ""
        var files = false
        var server = ServerInput()

        static var parameters: [Parameter<RemoteAddInput>] {
            [.argument(\.name, ArgumentSpec(name: "name", help: "A name for it: letters, digits, '-', '_', '.'.")),
             .argument(\.path, ArgumentSpec(name: "path", help: "The folder, or a WebDAV folder's https:// URL.")),
             .flag(\.files, OptionSpec(name: "files", help: "Also carry book files (encrypted) to and from it; see `remote files`."))]
                + ServerInput.parameters(\.server)
        }
    }

    struct RemoteFilesInput: CommandInput {
        var name = ""
        var carries = false

        static var parameters: [Parameter<RemoteFilesInput>] {
            [.argument(\.name, ArgumentSpec(name: "name", help: "The remote's name.")),
             .argument(\.carries, ArgumentSpec(name: "on|off", help: "on: sync carries book files there and back; off: only their records."),
                       ValueParsing.onOff)]
        }
    }

    /// What a WebDAV server asks for: `--user`, `--password-stdin`, `--ca-file`.
    struct ServerInput: Equatable {
        var user: String?
        var passwordStdin = false
        var caFile: String?

        static func parameters<Input: CommandInput>(_ field: WritableKeyPath<Input, ServerInput>) -> [Parameter<Input>] {
            [.option(field.appending(path: \.user), OptionSpec(name: "user", valueName: "name", help: "WebDAV: the user name on the server.")),
             .flag(field.appending(path: \.passwordStdin),
                   OptionSpec(name: "password-stdin", help: "WebDAV: read the password or app token from a line of standard input (after the passphrase's, with --passphrase-stdin).")),
             .option(field.appending(path: \.caFile),
                     OptionSpec(name: "ca-file", valueName: "path", help: "WebDAV: trust the certificates in this PEM file instead of the system's."))]
        }

        var isEmpty: Bool { self == ServerInput() }

        /// The WebDAV folder at `url` with these options, and its password: read from standard
        /// input, or asked at the terminal when a user name is given; none without one.
        func folder(_ url: String, context: CommandContext) throws -> (WebDAVFolder, SecretBytes?) {
            let folder = try WebDAVFolder(url: url, user: user, caFile: caFile)
            if passwordStdin { return (folder, try SecretInput.readLine()) }
            guard let user else { return (folder, nil) }
            guard context.console.stdinIsTerminal else { throw CLIError.noTerminalForServerPassword }
            return (folder, try SecretInput.prompt("Password for \(user) on the server: "))
        }
    }

    struct RemotePasswordInput: CommandInput {
        var name = ""
        var passwordStdin = false

        static var parameters: [Parameter<RemotePasswordInput>] {
            [.argument(\.name, ArgumentSpec(name: "name", help: "The WebDAV remote's name.")),
             .flag(\.passwordStdin, OptionSpec(name: "password-stdin", help: "Read the password or app token from the first line of standard input."))]
        }
    }

    struct RemoteRemoveInput: CommandInput {
        var name = ""

        static var parameters: [Parameter<RemoteRemoveInput>] { [.argument(\.name, ArgumentSpec(name: "name", help: "The remote's name."))] }
    }

    struct RetentionInput: CommandInput {
        /// nil shows the current setting.
        var days: Int?

        static var parameters: [Parameter<RetentionInput>] {
            [.argument(\.days, ArgumentSpec(name: "days", help: "Whole days, 1 to 3650; without it, the current setting.", isOptional: true),
                       ValueParsing.days)]
        }
    }

    static func remote(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "remote", abstract: "Set up the folders this vault syncs through.", subcommands: [
            CommandSpec(
                name: "add", abstract: "Add a remote: a folder (a USB stick, a NAS, a synced folder) or a WebDAV folder (Nextcloud, ownCloud).",
                discussion: "At the first sync the folder gets a `bmvault-<vault id>` directory holding only sealed operations and the vault's wrapped keyslots, so another device can join with `bmvault init --join PATH` (or URL). A WebDAV folder is an https:// URL (http:// on this machine only), such as https://cloud.example/remote.php/dav/files/ada/bmvault; its password or app token is asked for at the terminal (or read with --password-stdin) and kept in the Secret Service, never in the vault.",
                parameters: RemoteAddInput.parameters
            ) { input in
                let vault = try context.openVault()
                let remote: RemoteRecord
                if WebDAVFolder.isURL(input.path) {
                    let (folder, password) = try input.server.folder(input.path, context: context)
                    context.console.progress("Checking the server...\n")
                    remote = try vault.addWebDAVRemote(name: input.name, folder: folder, password: password, carriesFiles: input.files)
                } else {
                    guard input.server.isEmpty else {
                        throw CLIError.invalidValue("--user, --password-stdin and --ca-file are for a WebDAV remote (an https:// URL), not a folder")
                    }
                    remote = try vault.addRemote(name: input.name, path: input.path, carriesFiles: input.files)
                }
                context.console.note("Added remote \(remote.name) at \(remote.location)\(remote.carriesFiles ? ", carrying book files" : "").\n")
            },
            CommandSpec(
                name: "files", abstract: "Say whether a remote carries book files.",
                discussion: "A book file's record (its book, format, checksum, metadata, your place in it) always syncs. With on, sync also sends the files this device holds to the remote, encrypted as the file store keeps them (under a random name; the server sees only their sizes), and takes from it the files this device lacks, each checked before it is kept. Off by default: a small USB stick or a metered server never receives a book unasked.",
                parameters: RemoteFilesInput.parameters
            ) { input in
                try context.openVault().setRemoteCarriesFiles(input.carries, name: input.name)
                context.console.note(input.carries ? "Remote \(input.name) carries book files from the next sync.\n"
                                                   : "Remote \(input.name) no longer carries book files (those on it stay).\n")
            },
            CommandSpec(
                name: "password", abstract: "Replace the password a WebDAV remote's server asks for.",
                discussion: "Asked at the terminal, or read with --password-stdin; checked with the server, then kept in the Secret Service.",
                parameters: RemotePasswordInput.parameters
            ) { input in
                let vault = try context.openVault()
                // Which remote, before anything secret is asked for.
                guard let record = try vault.remotes().first(where: { $0.name == input.name }) else {
                    throw VaultError.remoteNotFound(name: input.name)
                }
                guard record.kind == .webdav else { throw VaultError.remoteHasNoPassword(name: input.name) }
                let password = input.passwordStdin ? try SecretInput.readLine() : try SecretInput.prompt("New password for remote \(input.name): ")
                try vault.setRemotePassword(name: input.name, password: password)
                context.console.note("Kept the new password of remote \(input.name).\n")
            },
            CommandSpec(name: "list", abstract: "List the remotes, with when each last synced.",
                        discussion: "Works while locked: names, folders and times are not content.",
                        parameters: JSONOnlyInput.parameters) { input in
                let remotes = try context.openVaultWithoutKey().remotes()
                if input.json {
                    context.console.out(JSONDocuments.render(remotes.map {
                        JSONDocuments.RemoteDocument(name: $0.name, kind: $0.kind.rawValue, location: $0.location, addedAt: $0.addedAt.iso8601,
                                                     lastSyncedAt: $0.lastSyncedAt?.iso8601, carriesFiles: $0.carriesFiles)
                    }))
                } else {
                    for remote in remotes {
                        context.console.out("\(remote.name)  \(remote.kind.rawValue)  \(remote.location)  \(lastSync(remote))"
                                            + (remote.carriesFiles ? "  carries book files" : "") + "\n")
                    }
                }
            },
            CommandSpec(name: "remove", abstract: "Forget a remote (the folder is left as it is).",
                        parameters: RemoteRemoveInput.parameters) { input in
                try context.openVault().removeRemote(name: input.name)
                context.console.note("Removed.\n")
            },
            CommandSpec(
                name: "retention", abstract: "Show or set how long deleted records keep their content.",
                discussion: "A deleted book, note or quote keeps its text this many days on this device (default 90), so `bmvault undelete` can bring it back; then it is purged. The purge keeps only the tombstone's id, dates and clock; it happens at the next sync, at any command (a hundred records at a time), or with `bmvault purge`. A deletion not yet sent waits for its sync. A shorter period makes deleted text go sooner.",
                parameters: RetentionInput.parameters
            ) { input in
                let vault = try context.openVault()
                if let days = input.days {
                    try vault.setTombstoneRetention(days: days)
                    context.console.note("Deleted records now keep their content for at most \(days) days.\n")
                } else {
                    context.console.out("\(try vault.tombstoneRetentionDays())\n")
                }
            },
        ])
    }

    static func purge(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "purge", abstract: "Purge the text of records deleted longer ago than the retention period.",
            discussion: "Every command already purges a hundred such records on its way; this purges them all now. Works while locked. See `bmvault remote retention`.",
            parameters: NoInput.parameters
        ) { _ in
            let vault = try context.openVaultWithoutKey()
            let purged = try vault.purgeExpiredTombstones(all: true)
            let days = try vault.tombstoneRetentionDays()
            context.console.note("Purged \(purged) deleted record\(purged == 1 ? "" : "s") older than \(days) days.\n")
        }
    }

    struct SyncInput: CommandInput {
        var remote: String?
        var retryFailed = false
        var allowMassDelete = false
        var json = false

        static var parameters: [Parameter<SyncInput>] {
            [.option(\.remote, OptionSpec(name: "remote", valueName: "name", help: "Only this remote.")),
             .flag(\.retryFailed, OptionSpec(name: "retry-failed", help: "Put operations that failed for good back in line first.")),
             .flag(\.allowMassDelete, OptionSpec(name: "allow-mass-delete", help: "Let this sync delete many records.")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func sync(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "sync", abstract: "Send the outbox and take in other devices' changes.",
            discussion: "Conflicts never lose text: both versions are kept and listed by `bmvault conflicts`. A sync that would delete more than half (and at least 10) of the vault's books, notes and quotes stops and asks for --allow-mass-delete.",
            parameters: SyncInput.parameters
        ) { input in
            // The headless path: no password kept for a WebDAV remote. It comes from
            // BMVAULT_REMOTE_PASSWORD_COMMAND, else the terminal, before anything is synced,
            // and is kept nowhere.
            let vault = try context.openVault()
            var given: [String: SecretBytes] = [:]
            for record in try vault.remotesWithoutKeptPassword(named: input.remote) {
                if let command = context.environment[RemotePasswordCommand.variable], !command.isEmpty {
                    given[record.name] = try RemotePasswordCommand.run(command, remote: record.name, environment: context.environment)
                } else if context.console.stdinIsTerminal {
                    given[record.name] = try? SecretInput.prompt("Password for remote \(record.name) (none is kept in a keyring; not kept now either): ")
                }
            }
            let summary = try vault.sync(remote: input.remote, retryFailed: input.retryFailed,
                                         allowMassDelete: input.allowMassDelete, askPassword: { given[$0.name] }) { step in
                context.console.progress("\r\(step)")
            }
            context.console.progress("\n")
            printSummary(summary, json: input.json, context: context)
            if let shortfall = summary.shortfall { throw CLIError.syncIncomplete(shortfall) }
        }
    }

    /// `synced 2026-12-04 18:40`, or `never synced`: when a sync last used the remote fully.
    static func lastSync(_ remote: RemoteRecord) -> String {
        remote.lastSyncedAt.map { "synced " + HumanFormat.localTime($0) } ?? "never synced"
    }

    static func printSummary(_ summary: SyncSummary, json: Bool, context: CommandContext) {
        if json {
            context.console.out(JSONDocuments.render(JSONDocuments.SyncDocument(
                pushed: summary.pushed, pulled: summary.pulled, conflicts: summary.conflicts, failures: summary.failures,
                failedForGood: summary.failedForGood, deferred: summary.deferred, rejected: summary.rejected, purged: summary.purged, skippedRemotes: summary.skipped,
                silentDevices: summary.silentDevices, returningAfterDays: summary.returningAfterDays,
                snapshots: summary.snapshots, unsentRecords: summary.unsentRecords,
                rekeyedElsewhere: summary.rekeyedElsewhere.sorted(), filesSent: summary.filesSent, filesReceived: summary.filesReceived,
                filesRefused: summary.filesRefused, filesRemoved: summary.filesRemoved,
                keyslotsTakenUpFrom: summary.keyslotsTakenUp)))
            return
        }
        var line = "Synced: \(summary.pushed) pushed, \(summary.pulled) pulled, "
            + HumanFormat.counted([(summary.conflicts, "conflict"), (summary.failures, "failure")])
        if summary.failedForGood > 0 { line += ", \(summary.failedForGood) failed for good" }
        if summary.deferred > 0 { line += ", \(summary.deferred) waiting for other records" }
        if summary.rejected > 0 { line += ", \(summary.rejected) unreadable operations skipped" }
        if summary.purged > 0 { line += ", \(summary.purged) deleted records purged" }
        if summary.unsentRecords > 0 { line += ", \(summary.unsentRecords) unreadable records not sent" }
        if summary.filesSent > 0 { line += ", " + HumanFormat.counted([(summary.filesSent, "book file")]) + " sent" }
        if summary.filesReceived > 0 { line += ", " + HumanFormat.counted([(summary.filesReceived, "book file")]) + " received" }
        if summary.filesRefused > 0 { line += ", " + HumanFormat.counted([(summary.filesRefused, "book file")]) + " refused" }
        if summary.filesRemoved > 0 {
            line += ", " + HumanFormat.counted([(summary.filesRemoved, "removed book file")]) + " taken off the remotes"
        }
        context.console.out(line + ".\n")
        for (name, operations) in summary.snapshots.sorted(by: { $0.key < $1.key }) {
            context.console.out("Remote \(name) received the whole journal as it stands (\(HumanFormat.counted([(operations, "operation")]))): a device can join through it.\n")
        }
        for (name, reason) in summary.skipped.sorted(by: { $0.key < $1.key }) {
            context.console.err("Skipped remote \(name): \(ErrorReport.remoteMessage(name: name, errorClass: reason)).\n")
        }
        if summary.conflicts > 0 { context.console.err("See them with `bmvault conflicts`.\n") }
        if let remote = summary.keyslotsTakenUp { context.reportKeyslotsTakenUp(from: remote) }
        if let days = summary.returningAfterDays {
            context.console.err("This device last synced \(HumanFormat.counted([(days, "day")])) ago, longer than the retention period; it has taken in every change since.\n")
        }
        for (device, days) in summary.silentDevices.sorted(by: { $0.key < $1.key }) {
            context.console.err("Device \(device.prefix(8)) has not synced for \(HumanFormat.counted([(days, "day")])): the files of deleted records stay on the remote until it does.\n")
        }
    }

    static func outbox(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "outbox", abstract: "Show the operations waiting to be synced (never their content).",
                    parameters: JSONOnlyInput.parameters) { input in
            let entries = try context.openVaultWithoutKey().outbox()
            if input.json {
                context.console.out(JSONDocuments.render(entries.map(JSONDocuments.OutboxEntryDocument.init)))
                return
            }
            if entries.isEmpty { context.console.out("The outbox is empty.\n") }
            for entry in entries {
                var line = "\(entry.id)  \(JSONDocuments.outboxKey(entry.state))  \(entry.entity.rawValue) \(entry.action.rawValue)  attempts: \(entry.attempts)"
                if let next = entry.nextAttemptAt { line += "  next: \(HumanFormat.localTime(next))" }
                if let error = entry.lastErrorClass { line += "  last error: \(error)" }
                context.console.out(line + "\n")
            }
        }
    }

    struct ResolveInput: CommandInput {
        var id = ""
        var keep = ConflictKeep.both  // Required: decoding always sets it.

        static var parameters: [Parameter<ResolveInput>] {
            [.argument(\.id, SharedOptions.id),
             .option(\.keep, OptionSpec(name: "keep", valueName: "choice", help: "note, copy, both, mine or theirs (required)."),
                     missing: ValueParsing.conflictChoiceNeeded, ValueParsing.conflictKeep)]
        }
    }

    static func conflicts(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "conflicts", abstract: "List conflicts from syncing, and resolve them.",
            discussion: "A conflict copy holds the text another device wrote while this one (or a third) changed the same note; a note marked edited-after-delete came back because it was edited somewhere after being deleted elsewhere.",
            parameters: JSONOnlyInput.parameters,
            subcommands: [
                CommandSpec(
                    name: "resolve", abstract: "Resolve a conflict: keep one text, or both.",
                    discussion: "For a conflict copy: note keeps the note's text and lets the copy go; copy puts the copy's text in the note; both keeps the copy as a note of its own. For a note brought back: note or both keep it. mine keeps the side written on this device and theirs the other (`bmvault conflicts` says which device wrote each); they work when exactly one side was written here.",
                    parameters: ResolveInput.parameters
                ) { input in
                    try context.openVault().resolveConflict(input.id, keep: input.keep)
                    context.console.note("Resolved.\n")
                },
            ]
        ) { input in
            let vault = try context.openVault()
            let conflicts = try vault.conflicts()
            let names = try vault.recordNames()
            if !input.json { context.startPaging() }
            var shown: [JSONDocuments.ConflictDocument] = []
            for result in conflicts {
                switch result {
                case .failure(let unreadable):
                    context.reportUnreadable(unreadable)
                case .success(let conflict):
                    if input.json {
                        shown.append(JSONDocuments.ConflictDocument(conflict))
                    } else {
                        context.console.out(HumanFormat.conflictBlock(conflict, name: { context.console.style.id(names.shortID($0)) },
                                                                  style: context.console.style))
                    }
                }
            }
            if input.json {
                context.console.out(JSONDocuments.render(shown))
            } else if conflicts.isEmpty {
                context.console.out("No conflicts.\n")
            }
            try context.finishListing()
        }
    }
}
