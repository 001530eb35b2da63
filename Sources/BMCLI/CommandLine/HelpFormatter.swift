/// Help pages, usage lines and error text, laid out like swift-argument-parser's so the
/// tool reads like other Swift command-line tools.
///
/// Layout: two-space indent, descriptions in a column starting at 26, text wrapped to
/// 79 columns (a single word longer than that is left whole), sections separated by one
/// blank line, one trailing newline. The usage line is never wrapped, so that it can be
/// copied whole.
enum HelpFormatter {
    static let descriptionColumn = 26
    static let lineWidth = 79

    /// The help page of the last command in `path` (`path[0]` is the root).
    /// `globalOptions` appear only in the root's page, where they are written.
    static func help(for path: [CommandSpec], globalOptions: [OptionSpec]) -> String {
        guard let command = path.last else { return "" }
        let isRoot = path.count == 1
        var sections = [wrap("OVERVIEW: " + command.abstract, width: lineWidth).joined(separator: "\n")]
        if let discussion = command.discussion {
            sections.append(wrap(discussion, width: lineWidth).joined(separator: "\n"))
        }
        sections.append("USAGE: " + usageLine(for: path, globalOptions: globalOptions))

        if !command.arguments.isEmpty {
            sections.append(section("ARGUMENTS:", command.arguments.map { ("<\($0.name)>", $0.help) }))
        }

        let options = visible(command.options) + (isRoot ? visible(globalOptions) : [])
        var optionRows = options.map { (optionLabel($0), $0.help) }
        if isRoot { optionRows.append(("-V, --version", "Show the version.")) }
        optionRows.append(("-h, --help", "Show help information."))
        sections.append(section("OPTIONS:", optionRows))

        if !command.examples.isEmpty {
            sections.append("EXAMPLES:\n" + command.examples.map { example in
                "  " + example.command + "\n" + wrap(example.what, width: lineWidth - 6).map { "      " + $0 }.joined(separator: "\n")
            }.joined(separator: "\n"))
        }

        let subcommands = command.subcommands.filter { !$0.isHidden } + (isRoot && command.offersBuiltInHelp ? [.builtInHelp] : [])
        if !subcommands.isEmpty {
            let helpCommand = ([path[0].name, "help"] + path.dropFirst().map(\.name)).joined(separator: " ")
            sections.append(
                section("SUBCOMMANDS:", subcommands.map { ($0.name, $0.abstract) })
                    + "\n\n  See '\(helpCommand) <subcommand>' for detailed help.")
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// `bmvault note add <book> [<text>] [--locator <locator>]`: the path, then arguments
    /// and options for a leaf, or options and `<subcommand>` for a group. No prefix.
    static func usageLine(for path: [CommandSpec], globalOptions: [OptionSpec]) -> String {
        guard let command = path.last else { return "" }
        let options = visible(command.options) + (path.count == 1 ? visible(globalOptions) : [])
        var parts = path.map(\.name)
        if command.subcommands.isEmpty {
            parts += command.arguments.map(usageFragment(for:)) + options.map(usageFragment(for:))
        } else {
            parts += options.map(usageFragment(for:)) + [command.run == nil ? "<subcommand>" : "[<subcommand>]"]
        }
        return parts.joined(separator: " ")
    }

    /// Exactly three lines: the message, the usage line, and where to read more.
    static func render(_ error: UsageError) -> String {
        """
        Error: \(error.message)
        Usage: \(error.usage)
          See '\(error.commandPath.joined(separator: " ")) --help' for more information.

        """
    }

    /// `<book>`, `[<text>]`, `<authors> ...`, `[<authors> ...]`.
    static func usageFragment(for argument: ArgumentSpec) -> String {
        let label = "<\(argument.name)>" + (argument.isVariadic ? " ..." : "")
        return argument.isOptional ? "[\(label)]" : label
    }

    /// `[--json]`, `[--locator <locator>]`, `[--tag <tag> ...]`, or `--out <dir>` for an
    /// option the command cannot do without.
    static func usageFragment(for option: OptionSpec) -> String {
        let value = option.valueName.map { " <\($0)>" } ?? ""
        let fragment = "--\(option.name)\(value)\(option.isRepeatable ? " ..." : "")"
        return option.isRequired ? fragment : "[\(fragment)]"
    }

    private static func optionLabel(_ option: OptionSpec) -> String {
        let short = option.short.map { "-\($0), " } ?? ""
        return short + "--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
    }

    private static func visible(_ options: [OptionSpec]) -> [OptionSpec] {
        options.filter { !$0.isHidden }
    }

    private static func section(_ title: String, _ rows: [(label: String, description: String)]) -> String {
        ([title] + rows.map { row(label: $0.label, description: $0.description) }).joined(separator: "\n")
    }

    /// A label and its description; a label too wide for its column (over 23 characters)
    /// gets a line of its own so the descriptions stay aligned.
    private static func row(label: String, description: String) -> String {
        let labelText = "  " + label
        let indent = String(repeating: " ", count: descriptionColumn)
        let lines = wrap(description, width: lineWidth - descriptionColumn)
        guard !description.isEmpty else { return labelText }
        if labelText.count < descriptionColumn {
            let padded = labelText + String(repeating: " ", count: descriptionColumn - labelText.count)
            return ([padded + lines[0]] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }
        return ([labelText] + lines.map { indent + $0 }).joined(separator: "\n")
    }

    /// Greedy word wrap to `width` characters; `\n` in `text` starts a new line, and a
    /// word wider than `width` is kept whole rather than broken mid-word.
    static func wrap(_ text: String, width: Int) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { paragraph in
            var lines: [String] = []
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            return lines + [line]
        }
    }
}
