import VaultKit

/// `backup` and `restore`: a consistent copy of the vault, still encrypted, and a vault
/// made again from one.
enum BackupCommands {
    struct BackupInput: CommandInput {
        var out = ""  // Required: decoding always sets it.
        var withoutFiles = false

        static var parameters: [Parameter<BackupInput>] {
            [.nonEmptyOption(\.out, OptionSpec(name: "out", valueName: "file", help: "The file to create (required); its SHA-256 goes beside it in FILE.sha256."),
                             missing: "backup needs --out FILE, a file that does not exist yet"),
             .flag(\.withoutFiles, OptionSpec(name: "without-files", help: "Leave the book files out (the journal only); said in the output."))]
        }
    }

    static func backup(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "backup", abstract: "Copy the vault, still encrypted, to a new file.",
            discussion: "A consistent copy even while other commands run (SQLite's online backup), written under a temporary name and given FILE only if nothing has that name; its SHA-256 goes in FILE.sha256. The copy holds the encrypted book files kept on this device too (not with --without-files), and is as encrypted as the vault: its passphrase or recovery key opens it. Works while locked. Restore it with `bmvault restore FILE`.",
            parameters: BackupInput.parameters
        ) { input in
            let summary = try context.openVaultWithoutKey().backup(to: input.out, withFiles: !input.withoutFiles)
            let what = summary.bookFiles > 0 ? "the vault and its \(ArchiveCommands.plural(summary.bookFiles, "book file"))"
                : summary.bookFilesLeftOut > 0 ? "the vault without its \(ArchiveCommands.plural(summary.bookFilesLeftOut, "book file")) (--without-files)"
                : "the vault"
            context.console.err("Backed up \(what) to \(summary.path) (\(summary.bytes) bytes; SHA-256 \(summary.sha256), also in \(summary.path).sha256). "
                                + "It is as encrypted as the vault.\n")
        }
    }

    struct RestoreInput: CommandInput {
        var path = ""

        static var parameters: [Parameter<RestoreInput>] {
            [.argument(\.path, ArgumentSpec(name: "file", help: "A file written by `bmvault backup` (or a copy of vault.db)."))]
        }
    }

    static func restore(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "restore", abstract: "Make the vault again from a backup, as a new device.",
            discussion: "Into the vault location (--vault or $BMVAULT_HOME), which must hold no vault. FILE is checked against FILE.sha256 when it is there, and by SQLite's integrity check. The restored vault is a new device of its vault: its next sync takes in what the other devices hold (this device's changes after the backup among them) and sends every remote the journal as it stands. It opens with the passphrase or recovery key it had when the backup was made.",
            parameters: RestoreInput.parameters
        ) { input in
            let (vault, bookFiles) = try Vault.restore(from: input.path, at: context.location, keyStore: context.keyStore(),
                                                       clock: context.clock, events: context.reportMigration)
            let files = bookFiles > 0 ? " with its \(ArchiveCommands.plural(bookFiles, "book file"))" : ""
            context.console.err("Restored the vault\(files) from \(input.path) into \(vault.location.directory), as a new device of its vault. "
                                + "Unlock it with the passphrase it had then; a sync takes in what other devices hold.\n")
        }
    }
}
