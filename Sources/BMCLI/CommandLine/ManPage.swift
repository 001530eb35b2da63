/// bmvault's manual page in roff (man(7)), generated from the command table, so it lists
/// every command and option the parser knows, with the help texts `--help` shows.
enum ManPage {
    static func render(root: CommandSpec, globalOptions: [OptionSpec], version: String) -> String {
        let name = root.name
        var page = """
            .TH \(name.uppercased()) 1 "" "\(name) \(version)" "User Commands"
            .SH NAME
            \(name) \\- \(text(root.abstract.trimmingSuffix(".")))
            .SH SYNOPSIS
            .B \(name)
            [\\fIglobal options\\fR] \\fIcommand\\fR [\\fIarguments\\fR] [\\fIoptions\\fR]
            .SH DESCRIPTION
            \(text(root.discussion ?? root.abstract))
            .PP
            Text given on the command line lands in the shell's history and the process list:
            give a note through the editor (no TEXT) or standard input (\\fB\\-\\fR as TEXT) instead.
            .SH GLOBAL OPTIONS
            Accepted anywhere before \\fB\\-\\-\\fR.

            """
        page += globalOptions.filter { !$0.isHidden }.map(optionItem).joined()
        page += ".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nPrint the version (also \\fB\(name) version\\fR).\n"
        page += ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nShow the help of the command named so far.\n"
        page += ".SH COMMANDS\n"
        for (path, command) in leaves(root, path: [name]) {
            page += ".SS \"\(text(path.joined(separator: " ")))\"\n"
            page += ".B " + text(HelpFormatter.usageLine(for: commandPath(root, path), globalOptions: [])) + "\n"
            page += ".PP\n" + text(command.abstract) + "\n"
            if let discussion = command.discussion { page += ".PP\n" + text(discussion) + "\n" }
            for argument in command.arguments {
                page += ".TP\n\\fI" + text(HelpFormatter.usageFragment(for: argument)) + "\\fR\n" + text(argument.help) + "\n"
            }
            page += command.options.filter { !$0.isHidden }.map(optionItem).joined()
            if !command.examples.isEmpty {
                page += ".PP\nExamples:\n"
                for example in command.examples {
                    page += ".TP\n.B " + text(example.command) + "\n" + text(example.what) + "\n"
                }
            }
        }
        page += ".SH EXIT STATUS\n"
        for code in ExitCode.allCases { page += ".TP\n.B \(code.rawValue)\n" + text(code.meaning) + "\n" }
        page += """
            .SH ENVIRONMENT
            .TP
            .B BMVAULT_HOME
            The vault directory, unless \\fB\\-\\-vault\\fR is given.
            .TP
            .B XDG_DATA_HOME
            Without either, the vault is \\fI$XDG_DATA_HOME/bmvault\\fR, else \\fI~/.local/share/bmvault\\fR.
            .TP
            .B BMVAULT_PASSPHRASE_COMMAND
            Without a keyring, the command whose first line of output is the passphrase.
            .TP
            .B BMVAULT_KEYRING_TIMEOUT_MS
            How long to wait for the Secret Service.
            .TP
            .BR VISUAL ", " EDITOR
            The editor for a note given without TEXT at a terminal.
            .SH SECURITY
            Notes, quotes, locators, titles, authors and tags are encrypted with libsodium; the key stays in the
            Secret Service while the vault is unlocked. No journal content is written to logs, errors or
            diagnostics. See SECURITY.md in bmvault's documentation.
            .SH SEE ALSO
            The full reference is CLI.md in bmvault's documentation (Docs/CLI.md in its source).

            """
        return page
    }

    /// Every command that runs, with its path, depth first (groups that also run, such as
    /// `conflicts`, included).
    private static func leaves(_ command: CommandSpec, path: [String]) -> [([String], CommandSpec)] {
        var found: [([String], CommandSpec)] = command.run != nil && path.count > 1 ? [(path, command)] : []
        for sub in command.subcommands where !sub.isHidden { found += leaves(sub, path: path + [sub.name]) }
        return found
    }

    /// The specs along `path` (names, the root's first), for the usage line.
    private static func commandPath(_ root: CommandSpec, _ path: [String]) -> [CommandSpec] {
        var specs = [root]
        for name in path.dropFirst() {
            guard let next = specs[specs.count - 1].subcommands.first(where: { $0.name == name }) else { break }
            specs.append(next)
        }
        return specs
    }

    private static func optionItem(_ option: OptionSpec) -> String {
        var label = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
        label += "\\fB\\-\\-" + text(option.name) + "\\fR"
        if let value = option.valueName { label += " \\fI" + text(value) + "\\fR" }
        return ".TP\n" + label + "\n" + text(option.help) + "\n"
    }

    /// `value` as roff text: backslashes escaped, hyphens as \-, and a line that would
    /// start with `.` or `'` (a request) guarded by \&.
    static func text(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }
            .joined(separator: "\n")
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
