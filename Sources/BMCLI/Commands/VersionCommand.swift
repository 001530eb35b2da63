import VaultKit

/// `bmvault version`, the same as `--version` and `-V`: what a bug report asks for first.
enum VersionCommand {
    static func version(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "version", abstract: "Print bmvault's version (also --version, -V).", parameters: NoInput.parameters) { _ in
            context.console.out("bmvault \(BuildInfo.version)\n")
        }
    }
}
