/// What one run of the bmvault binary did.
struct CommandResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    /// For test failure messages.
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

    /// Standard output without the final newline: an id printed by an `add` command.
    var line: String { stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout }
}
