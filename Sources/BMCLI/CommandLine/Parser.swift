/// Turns `argv` (without `argv[0]`) into a `ParseResult` using a table of `CommandSpec`s.
///
/// Pure: no I/O and no environment, so every behaviour is testable from a string array.
struct CommandLineParser {
    /// The tool itself (`bmvault`), with the top-level commands as subcommands.
    let root: CommandSpec
    /// Options such as `--vault <dir>`, accepted anywhere before `--` and listed only in
    /// the root help. A command's own option of the same name takes precedence.
    let globalOptions: [OptionSpec]

    init(root: CommandSpec, globalOptions: [OptionSpec] = []) {
        self.root = root
        self.globalOptions = globalOptions
    }

    /// `-h`/`--help` anywhere before `--` wins over every other problem and shows the help
    /// of the deepest command named before the problem: someone asking for help should
    /// get it, not an error about the line they are trying to fix.
    func parse(_ arguments: [String]) throws(UsageError) -> ParseResult {
        let helpRequested = arguments.prefix { $0 != "--" }.contains { $0 == "-h" || $0 == "--help" }
        var walk = Walk(parser: self, tokens: arguments)
        do throws(UsageError) {
            return try walk.run()
        } catch {
            guard helpRequested else { throw error }
            return .help(HelpFormatter.help(for: walk.path, globalOptions: globalOptions))
        }
    }
}

/// One left-to-right pass over the tokens. Subcommand names are resolved as they are met,
/// so options are looked up in the command named so far (plus the global ones).
private struct Walk {
    let parser: CommandLineParser
    let tokens: [String]
    private var index = 0
    private(set) var path: [CommandSpec]
    private var positionals: [String] = []
    private var optionValues: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var globalValues: [String: String] = [:]

    init(parser: CommandLineParser, tokens: [String]) {
        self.parser = parser
        self.tokens = tokens
        self.path = [parser.root]
    }

    private var command: CommandSpec { path[path.count - 1] }

    /// Whether `path` is the root's built-in `help`, whose positionals name a command.
    private var isBuiltInHelp: Bool {
        path.count == 2 && parser.root.offersBuiltInHelp && command.name == CommandSpec.builtInHelp.name
    }

    mutating func run() throws(UsageError) -> ParseResult {
        var optionsEnded = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if !optionsEnded && token == "--" {
                optionsEnded = true
            } else if !optionsEnded && Self.looksLikeOption(token) {
                if let early = try option(token) { return early }
            } else {
                try positional(token)
            }
        }
        return try finish()
    }

    /// `-x` and `--x`, but not a lone `-` (conventionally stdin) nor `-5` (a negative
    /// number, such as a progress correction), which are values.
    static func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), let second = token.dropFirst().first else { return false }
        return !("0"..."9").contains(second)
    }

    private mutating func option(_ token: String) throws(UsageError) -> ParseResult? {
        let equals = token.firstIndex(of: "=")
        let spelling = String(token[..<(equals ?? token.endIndex)])
        let inlineValue = equals.map { String(token[token.index(after: $0)...]) }
        func noInlineValue() throws(UsageError) {
            if inlineValue != nil { throw failure(.flagGivenValue(spelling: spelling)) }
        }

        if spelling == "--help" || spelling == "-h" {
            try noInlineValue()
            if isBuiltInHelp { return try helpTarget() }  // `help note add --help`
            return .help(HelpFormatter.help(for: path, globalOptions: parser.globalOptions))
        }
        if (spelling == "--version" || spelling == "-V") && path.count == 1 {
            try noInlineValue()
            return .version
        }
        let isGlobal: Bool
        let spec: OptionSpec
        if let own = Self.find(spelling, in: command.options) {
            (spec, isGlobal) = (own, false)
        } else if let global = Self.find(spelling, in: parser.globalOptions) {
            (spec, isGlobal) = (global, true)
        } else {
            let names = (command.options + parser.globalOptions).filter { !$0.isHidden }.map { "--" + $0.name }
            throw failure(.unknownOption(spelling: spelling, suggestion: spelling.hasPrefix("--")
                                         ? NameSuggestion.closest(to: spelling, among: names) : nil))
        }

        guard let valueName = spec.valueName else {
            try noInlineValue()
            if isGlobal { globalValues[spec.name] = "" } else { flags.insert(spec.name) }
            return nil
        }
        let value: String
        if let inlineValue {
            value = inlineValue
        } else if index < tokens.count && !Self.looksLikeOption(tokens[index]) {
            value = tokens[index]
            index += 1
        } else {
            throw failure(.missingValue(spelling: spelling, valueName: valueName))
        }
        if isGlobal { globalValues[spec.name] = value } else { optionValues[spec.name, default: []].append(value) }
        return nil
    }

    private static func find(_ spelling: String, in options: [OptionSpec]) -> OptionSpec? {
        if spelling.hasPrefix("--") {
            let name = spelling.dropFirst(2)
            return options.first { $0.name == name }
        }
        guard spelling.count == 2, let short = spelling.last else { return nil }
        return options.first { $0.short == short }
    }

    private mutating func positional(_ token: String) throws(UsageError) {
        if command.subcommands.isEmpty {
            positionals.append(token)
        } else if let sub = subcommand(token, of: path) {
            path.append(sub)
        } else {
            let available = subcommandNames(of: path)
            throw failure(.unknownCommand(available: available, suggestion: NameSuggestion.closest(to: token, among: available)))
        }
    }

    /// The names a positional could have had under the last command in `path`.
    private func subcommandNames(of path: [CommandSpec]) -> [String] {
        var names = path[path.count - 1].subcommands.filter { !$0.isHidden }.map(\.name)
        if path.count == 1 && parser.root.offersBuiltInHelp { names.append(CommandSpec.builtInHelp.name) }
        return names
    }

    /// The subcommand `name` of the last command in `path`, counting the root's `help`.
    private func subcommand(_ name: String, of path: [CommandSpec]) -> CommandSpec? {
        if let sub = path[path.count - 1].subcommands.first(where: { $0.name == name }) { return sub }
        let isBuiltInHelp = path.count == 1 && parser.root.offersBuiltInHelp && name == CommandSpec.builtInHelp.name
        return isBuiltInHelp ? CommandSpec.builtInHelp : nil
    }

    private func finish() throws(UsageError) -> ParseResult {
        if isBuiltInHelp { return try helpTarget() }
        guard command.run != nil else {
            let help = HelpFormatter.help(for: path, globalOptions: parser.globalOptions)
            guard path.count == 1, positionals.isEmpty else { return .help(help) }
            return .home(help: help, Invocation(commandPath: [], arguments: [:], options: optionValues, flags: flags,
                                                globalOptions: globalValues))
        }
        var remaining = positionals[...]
        var bound: [String: [String]] = [:]
        for argument in command.arguments {
            if argument.isVariadic {
                bound[argument.name] = Array(remaining)
                remaining = []
            } else if let value = remaining.popFirst() {
                bound[argument.name] = [value]
            }
            if bound[argument.name, default: []].isEmpty && !argument.isOptional {
                throw failure(.missingArgument(label: HelpFormatter.usageFragment(for: argument)))
            }
        }
        if !remaining.isEmpty {
            throw failure(.extraArgument(position: positionals.count - remaining.count + 1))
        }
        let invocation = Invocation(
            commandPath: path.dropFirst().map(\.name), arguments: bound,
            options: optionValues, flags: flags, globalOptions: globalValues)
        return .run(command, invocation)
    }

    /// `bmvault help note add`: the positionals after `help` name the command to describe.
    private func helpTarget() throws(UsageError) -> ParseResult {
        var target = [parser.root]
        for name in positionals {
            guard let sub = subcommand(name, of: target) else {
                let available = subcommandNames(of: target)
                throw UsageError(
                    .unknownCommand(available: available, suggestion: NameSuggestion.closest(to: name, among: available)), commandPath: target.map(\.name),
                    usage: HelpFormatter.usageLine(for: target, globalOptions: parser.globalOptions))
            }
            target.append(sub)
        }
        return .help(HelpFormatter.help(for: target, globalOptions: parser.globalOptions))
    }

    private func failure(_ reason: UsageError.Reason) -> UsageError {
        UsageError(
            reason, commandPath: path.map(\.name),
            usage: HelpFormatter.usageLine(for: path, globalOptions: parser.globalOptions))
    }
}
