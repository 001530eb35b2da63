import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Telemetry
import VaultKit

/// The bmvault command line: parses, runs one command, and turns every outcome into an
/// exit status. Errors print one line, `Error: ...`, on standard error.
public enum BMCLIMain {
    /// Runs bmvault with `arguments` (without the program name) and returns the exit status.
    public static func run(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        // Whatever bmvault creates (vault files, SQLite's -wal and -shm, logs) is private to the reader.
        umask(0o077)
        // A file-size limit (`ulimit -f`) is an error to report ("File too large"), not a
        // signal that kills bmvault in the middle of a write.
        signal(SIGXFSZ, SIG_IGN)
        let context = CommandContext(environment: environment)
        defer { context.console.finishPaging() }
        context.startLogging(threshold: .notice)
        let parser = CommandLineParser(root: CommandTable.root(context), globalOptions: CommandTable.globalOptions)
        var commandName = "bmvault"
        let started = Date()
        do {
            switch try parser.parse(arguments) {
            case .help(let text):
                context.console.out(text)
            case .home(let help, let invocation):
                context.vaultOption = invocation.globalOptions[CommandTable.vaultOption.name]
                context.usesKeyring = invocation.globalOptions[CommandTable.noKeyringOption.name] == nil
                context.config = (try? Config.load(environment: environment)) ?? Config()   // the home screen never fails
                if !HomeScreen.show(context) { context.console.out(help) }
            case .version:
                context.console.out("bmvault \(BuildInfo.version)\n")   // as `bmvault version` prints it
            case .run(let command, let invocation):
                commandName = invocation.commandPath.joined(separator: " ")
                context.vaultOption = invocation.globalOptions[CommandTable.vaultOption.name]
                context.usesKeyring = invocation.globalOptions[CommandTable.noKeyringOption.name] == nil
                context.config = try Config.load(environment: environment)
                context.console.colorChoice = context.config.color ?? .auto
                context.console.quiet = invocation.globalOptions[CommandTable.quietOption.name] != nil
                context.pages = invocation.globalOptions[CommandTable.noPagerOption.name] == nil
                context.verbose = invocation.globalOptions[CommandTable.verboseOption.name] != nil
                if let when = invocation.globalOptions[CommandTable.colorOption.name] {
                    guard let choice = ColorChoice(rawValue: when) else { throw CLIError.invalidValue("--color takes auto, always or never") }
                    context.console.colorChoice = choice
                }
                let threshold: LogLevel = invocation.globalOptions[CommandTable.debugOption.name] != nil ? .debug
                    : invocation.globalOptions[CommandTable.verboseOption.name] != nil ? .info : .notice
                context.startLogging(threshold: threshold, command: commandName)
                log.info("cli.command.started", ["command": .public(commandName)])
                try command.run?(invocation, context.clock.now())
                log.info("cli.command.finished", ["command": .public(commandName), "status": 0, "ms": .integer(milliseconds(since: started))])
            }
            return ExitCode.success.rawValue
        } catch let error as UsageError {
            context.console.finishPaging()
            context.console.err(HelpFormatter.render(error))
            log.info("cli.command.failed", ["command": .public(commandName), "error": .public("usage"), "status": .integer(Int64(ExitCode.usage.rawValue))])
            return ExitCode.usage.rawValue
        } catch {
            let report = ErrorReport(error)
            context.console.finishPaging()   // what was listed first, then the error, on the terminal
            context.console.err("Error: \(report.message)\n")
            let errorClass = ErrorReport.errorClass(error)
            log.log(report.exitCode == .failure ? .error : .warning, "cli.command.failed",
                    ["command": .public(commandName), "error": .public(errorClass), "status": .integer(Int64(report.exitCode.rawValue)),
                     "ms": .integer(milliseconds(since: started))])
            if ErrorReport.deservesFailureReport(error) {
                context.writeFailureReport(command: commandName, errorClass: errorClass, status: report.exitCode)
            }
            return report.exitCode.rawValue
        }
    }

    private static func milliseconds(since start: Date) -> Int64 {
        Int64(Date().timeIntervalSince(start) * 1000)
    }
}
