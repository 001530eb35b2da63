import VaultKit

/// `completion` and `man`: what a shell and `man` need, generated from the command table;
/// and `__complete-book`, which the completion scripts ask for titles.
enum ShellCommands {
    struct CompletionInput: CommandInput {
        var shell = CompletionScript.Shell.bash

        static var parameters: [Parameter<CompletionInput>] {
            [.argument(\.shell, ArgumentSpec(name: "shell", help: "bash, zsh or fish.")) { (text) throws(CLIError) in
                guard let shell = CompletionScript.Shell(rawValue: text) else { throw CLIError.invalidValue("completion takes bash, zsh or fish") }
                return shell
            }]
        }
    }

    static func completion(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "completion", abstract: "Print a shell completion script: bash, zsh or fish.",
            discussion: """
                bash: `source <(bmvault completion bash)` in ~/.bashrc, or save it as \
                ~/.local/share/bash-completion/completions/bmvault. zsh: `source <(bmvault completion zsh)` in ~/.zshrc, after compinit. \
                fish: save it as ~/.config/fish/completions/bmvault.fish. Commands and options complete from the \
                command table; a BOOK completes to titles only while the vault is unlocked, asked of bmvault each \
                time and never cached.
                """,
            parameters: CompletionInput.parameters
        ) { input in
            context.console.out(CompletionScript.script(for: input.shell, root: CommandTable.root(context),
                                                        globalOptions: CommandTable.globalOptions))
        }
    }

    struct PrefixInput: CommandInput {
        var prefix: String?

        static var parameters: [Parameter<PrefixInput>] {
            [.argument(\.prefix, ArgumentSpec(name: "prefix", help: "The start of a title.", isOptional: true))]
        }
    }

    /// The titles a BOOK being completed could be, one per line: only while the vault is
    /// unlocked in the keyring. It never asks for anything and never fails loudly (a shell
    /// is waiting on it): a locked or missing vault gives no titles, exit 0.
    static func completeBook(_ context: CommandContext) -> CommandSpec {
        var command = CommandSpec(name: "__complete-book", abstract: "Book titles for shell completion.",
                                  parameters: PrefixInput.parameters) { input in
            guard context.usesKeyring, let vault = try? context.openVaultWithoutKey(), (try? vault.ensureUnlocked()) != nil,
                  let titles = try? vault.bookTitles(startingWith: input.prefix ?? "") else { return }
            for title in titles where !title.contains("\n") { context.console.out(title + "\n") }
        }
        command.isHidden = true
        return command
    }

    static func man(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "man", abstract: "Print bmvault's manual page (roff), for man -l - or to install.",
            discussion: "`bmvault man | man -l -` reads it now; `bmvault man > ~/.local/share/man/man1/bmvault.1` installs it for you (then `man bmvault`).",
            parameters: NoInput.parameters
        ) { _ in
            context.console.out(ManPage.render(root: CommandTable.root(context), globalOptions: CommandTable.globalOptions,
                                               version: BuildInfo.version))
        }
    }
}
