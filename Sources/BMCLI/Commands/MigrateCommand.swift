import VaultKit

/// `migrate`: see, rehearse or run the vault's schema upgrades.
enum MigrateCommand {
    struct Input: CommandInput {
        var status = false
        var dryRun = false
        var json = false

        static var parameters: [Parameter<Input>] {
            [.flag(\.status, OptionSpec(name: "status", help: "List the migrations applied so far and those pending.")),
             .flag(\.dryRun, OptionSpec(name: "dry-run", help: "Upgrade a copy, verify it, report what would change and how long it took, and delete the copy.")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func migrate(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "migrate", abstract: "Show, rehearse or run the vault's schema upgrades.",
            discussion: "Upgrades also run by themselves when any command opens an older vault. Without options, this upgrades now and prints the schema version. Neither --status nor --dry-run changes the vault.",
            parameters: Input.parameters
        ) { input in
            if input.status && input.dryRun {
                throw CLIError.invalidValue("use either --status or --dry-run, not both")
            }
            if input.dryRun {
                let rehearsal = try Vault.rehearseUpgrade(at: context.location, clock: context.clock)
                printRehearsal(rehearsal, json: input.json, context: context)
                return
            }
            if !input.status { _ = try context.openVaultWithoutKey() }
            printState(try Vault.schemaState(at: context.location), json: input.json, context: context)
        }
    }

    private static func printState(_ state: SchemaState, json: Bool, context: CommandContext) {
        if json {
            context.console.out(JSONDocuments.render(JSONDocuments.SchemaStateDocument(state)))
            return
        }
        var text = "schema version \(state.version) (this bmvault knows up to \(state.latestVersion))\n"
        // Ids padded to the longest, never cut (0005_outbox_check_comparisons has 29 characters).
        let width = state.history.map(\.id.count).max() ?? 0
        for record in state.history {
            text += "  \(record.id.padding(toLength: width, withPad: " ", startingAt: 0)) applied \(HumanFormat.localTime(record.appliedAt))"
                + " in \(record.durationMilliseconds) ms by bmvault \(record.bmvaultVersion)\n"
        }
        text += state.pending.isEmpty ? "no pending migrations\n"
            : state.pending.map { "  pending: \($0.id) (\($0.summary))\n" }.joined()
        context.console.out(text)
    }

    private static func printRehearsal(_ rehearsal: UpgradeRehearsal, json: Bool, context: CommandContext) {
        if json {
            context.console.out(JSONDocuments.render(JSONDocuments.RehearsalDocument(rehearsal)))
            return
        }
        guard !rehearsal.pending.isEmpty else {
            context.console.out("The vault is at schema \(rehearsal.to), the newest this bmvault knows; nothing to do.\n")
            return
        }
        var text = "Upgrading a copy from schema \(rehearsal.from) to \(rehearsal.to) took \(rehearsal.milliseconds) ms and passed every check.\n"
        text += rehearsal.repairs.map { "  would bring \($0.id), as the build of \($0.commit) applied it, to its final text\n" }.joined()
        text += rehearsal.pending.map { "  would apply \($0.id): \($0.summary)\n" }.joined()
        text += rehearsal.added.map { "  would add \($0)\n" }.joined()
        text += rehearsal.removed.map { "  would remove \($0)\n" }.joined()
        text += "The copy was deleted; the vault was not changed.\n"
        context.console.out(text)
    }
}
