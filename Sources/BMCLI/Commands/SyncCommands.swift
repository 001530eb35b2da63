import Journal
import VaultKit

/// `remote`, `sync`, `outbox`, `conflicts`: the sync side of the vault.
enum SyncCommands {
    static func remote(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "remote", abstract: "Set up the folders this vault syncs through.", subcommands: [
            CommandSpec(
                name: "add", abstract: "Add a folder remote (a USB stick, a NAS, a synced folder).",
                discussion: "At the first sync the folder gets a `bmvault-<vault id>` directory holding only sealed operations and the vault's wrapped keyslots, so another device can join with `bmvault init --join PATH`.",
                arguments: [ArgumentSpec(name: "name", help: "A name for it: letters, digits, '-', '_', '.'."),
                            ArgumentSpec(name: "path", help: "The folder.")]
            ) { invocation in
                let remote = try context.openVault().addRemote(name: invocation.argument("name") ?? "", path: invocation.argument("path") ?? "")
                context.console.err("Added remote \(remote.name) at \(remote.location).\n")
            },
            CommandSpec(name: "list", abstract: "List the remotes.", options: [SharedOptions.json]) { invocation in
                let remotes = try context.openVault().remotes()
                if invocation.flag("json") {
                    context.console.out(JSONDocuments.render(remotes.map {
                        JSONDocuments.RemoteDocument(name: $0.name, kind: $0.kind.rawValue, location: $0.location, addedAt: $0.addedAt.iso8601)
                    }))
                } else {
                    for remote in remotes { context.console.out("\(remote.name)  \(remote.kind.rawValue)  \(remote.location)\n") }
                }
            },
            CommandSpec(name: "remove", abstract: "Forget a remote (the folder is left as it is).",
                        arguments: [ArgumentSpec(name: "name", help: "The remote's name.")]) { invocation in
                try context.openVault().removeRemote(name: invocation.argument("name") ?? "")
                context.console.err("Removed.\n")
            },
            CommandSpec(
                name: "retention", abstract: "Show or set how long deleted records keep their content.",
                discussion: "A deleted book, note or quote keeps its text until every device has acknowledged the deletion, or at most this many days once every remote has it (default 90). Then sync purges the text and keeps only the tombstone's id, dates and clock.",
                arguments: [ArgumentSpec(name: "days", help: "Whole days, 1 to 3650; without it, the current setting.", isOptional: true)]
            ) { invocation in
                let vault = try context.openVault()
                if let text = invocation.argument("days") {
                    guard let days = Int(text) else { throw CLIError.invalidValue("DAYS must be a whole number of days from 1 to 3650") }
                    try vault.setTombstoneRetention(days: days)
                    context.console.err("Deleted records now keep their content for at most \(days) days.\n")
                } else {
                    context.console.out("\(try vault.tombstoneRetentionDays())\n")
                }
            },
        ])
    }

    static func sync(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "sync", abstract: "Send the outbox and take in other devices' changes.",
            discussion: "Conflicts never lose text: both versions are kept and listed by `bmvault conflicts`. A sync that would delete more than half (and at least 10) of the vault's books, notes and quotes stops and asks for --allow-mass-delete.",
            options: [OptionSpec(name: "remote", valueName: "name", help: "Only this remote."),
                      OptionSpec(name: "retry-failed", help: "Put operations that failed for good back in line first."),
                      OptionSpec(name: "allow-mass-delete", help: "Let this sync delete many records."),
                      SharedOptions.json]
        ) { invocation in
            let summary = try context.openVault().sync(remote: invocation.option("remote"), retryFailed: invocation.flag("retry-failed"),
                                                       allowMassDelete: invocation.flag("allow-mass-delete")) { step in
                context.console.progress("\r\(step)")
            }
            context.console.progress("\n")
            printSummary(summary, json: invocation.flag("json"), context: context)
        }
    }

    static func printSummary(_ summary: SyncSummary, json: Bool, context: CommandContext) {
        if json {
            context.console.out(JSONDocuments.render(JSONDocuments.SyncDocument(
                pushed: summary.pushed, pulled: summary.pulled, conflicts: summary.conflicts, failures: summary.failures,
                deferred: summary.deferred, rejected: summary.rejected, purged: summary.purged, skippedRemotes: summary.skipped,
                silentDevices: summary.silentDevices, returningAfterDays: summary.returningAfterDays)))
            return
        }
        var line = "Synced: \(summary.pushed) pushed, \(summary.pulled) pulled, \(summary.conflicts) conflicts, \(summary.failures) failures"
        if summary.deferred > 0 { line += ", \(summary.deferred) waiting for other records" }
        if summary.rejected > 0 { line += ", \(summary.rejected) unreadable operations skipped" }
        if summary.purged > 0 { line += ", \(summary.purged) deleted records purged" }
        context.console.out(line + ".\n")
        for (name, reason) in summary.skipped.sorted(by: { $0.key < $1.key }) {
            context.console.err("Skipped remote \(name): \(ErrorReport.remoteMessage(name: name, errorClass: reason)).\n")
        }
        if summary.conflicts > 0 { context.console.err("See them with `bmvault conflicts`.\n") }
        if let days = summary.returningAfterDays {
            context.console.err("This device last synced \(days) days ago, longer than the retention period; it has taken in every change since.\n")
        }
        for (device, days) in summary.silentDevices.sorted(by: { $0.key < $1.key }) {
            context.console.err("Device \(device.prefix(8)) has not synced for \(days) days: the files of deleted records stay on the remote until it does.\n")
        }
    }

    static func outbox(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "outbox", abstract: "Show the operations waiting to be synced (never their content).",
                    options: [SharedOptions.json]) { invocation in
            let entries = try context.openVault().outbox()
            if invocation.flag("json") {
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

    static func conflicts(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "conflicts", abstract: "List conflicts from syncing, and resolve them.",
            discussion: "A conflict copy holds the text another device wrote while this one (or a third) changed the same note; a note marked edited-after-delete came back because it was edited somewhere after being deleted elsewhere.",
            options: [SharedOptions.json],
            subcommands: [
                CommandSpec(
                    name: "resolve", abstract: "Resolve a conflict: keep one text, or both.",
                    discussion: "For a conflict copy: local keeps the note's text and deletes the copy; remote puts the copy's text in the note; both keeps the copy as a note of its own. For a note brought back: local or both keep it; remote deletes it again.",
                    arguments: [SharedOptions.id],
                    options: [OptionSpec(name: "keep", valueName: "choice", help: "local, remote or both (required).")]
                ) { invocation in
                    guard let text = invocation.option("keep"), let choice = ConflictChoice(rawValue: text.lowercased()) else {
                        throw CLIError.invalidValue("conflicts resolve needs --keep local, remote or both")
                    }
                    try context.openVault().resolveConflict(invocation.argument("id") ?? "", keep: choice)
                    context.console.err("Resolved.\n")
                },
            ]
        ) { invocation in
            let printer = ListingPrinter(context: context, json: invocation.flag("json"))
            let conflicts = try context.openVault().conflicts()
            if conflicts.isEmpty && !invocation.flag("json") { context.console.out("No conflicts.\n") }
            for conflict in conflicts { printer.print(conflict) }
            try printer.finish()
        }
    }
}
