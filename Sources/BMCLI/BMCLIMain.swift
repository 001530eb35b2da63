import Foundation
#if canImport(Glibc)
import Glibc
#endif
import VaultKit

/// The bmvault command line: parses, runs one command, and turns every outcome into an
/// exit status. Errors print one line, `Error: ...`, on standard error.
public enum BMCLIMain {
    /// Runs bmvault with `arguments` (without the program name) and returns the exit status.
    public static func run(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        // Whatever bmvault creates (vault files, SQLite's -wal and -shm) is private to the reader.
        umask(0o077)
        let context = CommandContext(environment: environment)
        defer { context.console.flush() }
        let parser = CommandLineParser(root: CommandTable.root(context), globalOptions: [CommandTable.vaultOption])
        do {
            switch try parser.parse(arguments) {
            case .help(let text):
                context.console.out(text)
            case .version:
                context.console.out("bmvault \(BuildInfo.version)\n")
            case .run(let command, let invocation):
                context.vaultOption = invocation.globalOptions[CommandTable.vaultOption.name]
                try command.run?(invocation)
            }
            return ExitCode.success.rawValue
        } catch let error as UsageError {
            context.console.err(HelpFormatter.render(error))
            return ExitCode.usage.rawValue
        } catch {
            let report = ErrorReport(error)
            context.console.err("Error: \(report.message)\n")
            return report.exitCode.rawValue
        }
    }
}
