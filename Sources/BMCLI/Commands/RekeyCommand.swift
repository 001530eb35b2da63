import VaultKit

/// `rekey`: a new vault key, every sealed field re-encrypted, a new recovery key.
enum RekeyCommand {
    static func rekey(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "rekey", abstract: "Re-encrypt everything under a new vault key.",
            discussion: "Asks for the passphrase (it stays the same) and prints a NEW recovery key; the old recovery key stops working when the rekey finishes. The work runs in batches: if it is interrupted, the journal stays closed until `bmvault rekey` is run again, and it resumes where it stopped.",
            options: [SharedOptions.passphraseStdin, SharedOptions.kdf,
                      OptionSpec(name: "batch-size", valueName: "n", help: "Records per transaction (for tests).", isHidden: true)]
        ) { invocation in
            let kdf = try invocation.option("kdf").map { (text) throws(CLIError) in KDFParameters(strength: try ValueParsing.kdfStrength(text)) }
            let batchSize = try invocation.option("batch-size").map { (text) throws(CLIError) -> Int in
                guard let size = Int(text), size > 0 else { throw .invalidValue("--batch-size takes a positive whole number") }
                return size
            } ?? 500
            let vault = try context.openVault()
            let resuming = try vault.hasPendingRekey()
            let passphrase = invocation.flag("passphrase-stdin") ? try SecretInput.readLine()
                : try SecretInput.prompt("Passphrase for \(vault.location.directory): ")
            context.console.progress(resuming ? "Resuming the interrupted rekey...\n" : "Deriving keys...\n")
            let outcome = try vault.rekey(passphrase: passphrase, kdf: kdf, batchSize: batchSize, began: { recoveryKey in
                context.console.err("""
                    Your NEW recovery key is on the next line; the old one stops working when this finishes.
                    It is shown only this once: write it down and keep it away from this computer.

                    """)
                recoveryKey.withUnsafeBytes { context.console.out(bytes: $0) }
                context.console.out("\n")
                context.console.flush()
            }, progress: { done, total in
                context.console.progress("\rRe-encrypting: \(done) of \(total) records")
            })
            context.console.progress("\n")
            var summary = "Rekeyed: \(outcome.reencrypted) records re-encrypted under a new key"
            if outcome.resumed { summary += " (resumed an interrupted rekey)" }
            if outcome.damaged > 0 { summary += "; \(outcome.damaged) damaged fields were left as they were" }
            context.console.err(summary + ".\n")
        }
    }
}
