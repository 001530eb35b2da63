/// Every bmvault command, as one table: the parser, the help and Docs/CLI.md all follow it.
enum CommandTable {
    static let vaultOption = OptionSpec(
        name: "vault", valueName: "dir",
        help: "The vault directory (default: $BMVAULT_HOME, else $XDG_DATA_HOME/bmvault, else ~/.local/share/bmvault).")

    static let noKeyringOption = OptionSpec(
        name: "no-keyring",
        help: "Do not use the Secret Service: ask for the passphrase (or run $BMVAULT_PASSPHRASE_COMMAND) and keep the key in this process only.")

    static let verboseOption = OptionSpec(name: "verbose", help: "Log more events (never more content) to the log file and standard error; `import` lists what it did not add.")
    static let debugOption = OptionSpec(name: "debug", help: "Log every event, with timings (never content), to the log file and standard error.")
    static let quietOption = OptionSpec(name: "quiet", short: "q", help: "Leave out confirmations (Added, Saved, Deleted, ...) on standard error; errors, warnings and questions stay.")

    /// Accepted anywhere before `--`, by every command.
    static let colorOption = OptionSpec(name: "color", valueName: "when",
                                        help: "Colour ids, kinds and conflicts: auto (at a terminal, unless NO_COLOR is set), always or never.")

    static let noPagerOption = OptionSpec(name: "no-pager", help: "Print long output (list, search, show, ...) straight to the terminal, not through $PAGER.")

    static let globalOptions = [vaultOption, noKeyringOption, verboseOption, debugOption, quietOption, colorOption, noPagerOption]

    static func root(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "bmvault", abstract: "An encrypted, offline-first reading journal.",
            discussion: "Books, reading sessions, notes and quotes, sealed with libsodium; the key stays in the Secret Service while the vault is unlocked. Start with `bmvault init`, then `bmvault unlock`.",
            subcommands: [
                VaultCommands.initCommand(context),
                VaultCommands.unlock(context),
                VaultCommands.lock(context),
                VaultCommands.status(context),
                VaultCommands.passphrase(context),
                VaultCommands.recoveryKey(context),
                MigrateCommand.migrate(context),
                RekeyCommand.rekey(context),
                DiagnosticsCommand.diagnostics(context),
                CheckCommand.check(context),
                BackupCommands.backup(context),
                BackupCommands.restore(context),
                BookCommands.book(context),
                BookCommands.session(context),
                AnnotationCommands.note(context),
                AnnotationCommands.quote(context),
                ReadCommands.list(context).withExamples([
                    ("bmvault list --book dune --sort locator", "One book's notes and quotes, in the order of the book."),
                    ("bmvault list --since \"yesterday 21:00\" --kind quote", "The quotes added since last night."),
                    ("bmvault list -n 5", "The five latest."),
                ]),
                ReadCommands.show(context).withExamples([
                    ("bmvault show @last", "The note or quote added last, in full."),
                    ("bmvault show abc8de", "A record by its short id, as listings show it."),
                ]),
                AnnotationCommands.edit(context).withExamples([
                    ("bmvault edit @last", "Change the last note in your editor."),
                    ("bmvault edit abc8de --locator \"p. 14\"", "Correct a locator; the text stays."),
                ]),
                AnnotationCommands.move(context),
                AnnotationCommands.delete(context),
                TagCommands.tag(context),
                FileCommands.file(context),
                TrashCommands.trash(context),
                TrashCommands.undelete(context),
                ReadCommands.search(context).withExamples([
                    ("bmvault search", "Asks for the words, so they stay out of the shell's history."),
                    ("bmvault search '\"the spice\" arrakis' --book dune", "A phrase and a word, in one book."),
                ]),
                StatsCommand.stats(context),
                SyncCommands.remote(context),
                SyncCommands.sync(context),
                SyncCommands.outbox(context),
                SyncCommands.conflicts(context),
                SyncCommands.purge(context),
                ArchiveCommands.export(context),
                ArchiveCommands.importCommand(context),
                ShellCommands.completion(context),
                ShellCommands.man(context),
                VersionCommand.version(context),
                ShellCommands.completeBook(context),
            ])
    }
}
