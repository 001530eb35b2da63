import VaultKit

/// `rekey`: a new vault key, every sealed field re-encrypted, a new recovery key.
enum RekeyCommand {
    struct Input: CommandInput {
        var passphraseStdin = false
        /// nil keeps the current cost.
        var kdf: KDFStrength?
        var batchSize = 500

        static var parameters: [Parameter<Input>] {
            [.flag(\.passphraseStdin, SharedOptions.passphraseStdin), .option(\.kdf, SharedOptions.kdf, ValueParsing.kdfStrength),
             .option(\.batchSize, OptionSpec(name: "batch-size", valueName: "n", help: "Records per transaction (for tests).", isHidden: true),
                     ValueParsing.batchSize)]
        }
    }

    static func rekey(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "rekey", abstract: "Re-encrypt everything under a new vault key.",
            discussion: "Asks for the passphrase (it stays the same) and prints a NEW recovery key; the old recovery key stops working when the rekey finishes. The work runs in batches: if it is interrupted, the journal stays closed until `bmvault rekey` is run again, and it resumes where it stopped.",
            parameters: Input.parameters
        ) { input in
            let vault = try context.openVaultWithoutKey()
            let resuming = try vault.hasPendingRekey()
            let passphrase = input.passphraseStdin ? try SecretInput.readLine()
                : try SecretInput.prompt("Passphrase for \(vault.location.directory): ")
            context.console.progress(resuming ? "Resuming the interrupted rekey...\n" : "Deriving keys...\n")
            let kdf = input.kdf.map(KDFParameters.init(strength:))
            var recoveryKeyShown = true
            let outcome = try vault.rekey(passphrase: passphrase, kdf: kdf, batchSize: input.batchSize, began: { recoveryKey in
                recoveryKeyShown = (try? context.showNewRecoveryKey(recoveryKey, introduction: """
                    Your NEW recovery key is on the next line; the old one stops working when this finishes.
                    It is shown only this once: write it down and keep it away from this computer.

                    """)) != nil
            }, progress: { done, total in
                context.console.progress("\rRe-encrypting: \(done) of \(total) records")
            })
            context.console.progress("\n")
            var summary = "Rekeyed: \(outcome.reencrypted) records re-encrypted under a new key"
            if outcome.resumed { summary += " (resumed an interrupted rekey)" }
            if outcome.damaged > 0 { summary += "; \(outcome.damaged) damaged fields were left as they were" }
            context.console.err(summary + ".\n")
            context.console.err("Other devices ask for the passphrase at their next unlock, once a sync from here has reached a remote they use.\n")
            // The rekey itself is done; the reader must still hear that its new key was not shown.
            if !recoveryKeyShown { throw CLIError.recoveryKeyNotShown }
        }
    }
}
