import Journal

/// One positional argument of a command.
///
/// Positionals are bound in declaration order, left to right, so optional arguments
/// belong after the required ones and only the last argument may be variadic: the
/// parser does not backtrack to find another way to share the tokens out.
struct ArgumentSpec: Equatable, Sendable {
    /// Shown as `<name>`; also the key for `Invocation.argument(_:)`.
    let name: String
    let help: String
    let isOptional: Bool
    /// Takes every remaining positional. Only allowed on the last argument.
    let isVariadic: Bool

    init(name: String, help: String, isOptional: Bool = false, isVariadic: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isVariadic = isVariadic
    }
}

/// One named option (`--locator <locator>`) or flag (`--json`) of a command.
///
/// The parser never requires an option: a command that cannot do without one (`export
/// --out`) says so itself, in its own words, and marks it ``isRequired`` so that usage
/// lines show it without brackets.
struct OptionSpec: Equatable, Sendable {
    /// The long name without dashes; also the key for `Invocation.option(_:)`.
    let name: String
    let short: Character?
    /// The placeholder of the value (`locator` → `--locator <locator>`); nil makes a flag.
    let valueName: String?
    let help: String
    /// Shown as `[--tag <tag> ...]`. Every option may be given again; this only documents
    /// that all values matter, where a plain option keeps the last one.
    let isRepeatable: Bool
    /// Parsed like any other option but left out of help and usage, for options that
    /// exist for tests or scripts rather than for people.
    let isHidden: Bool
    /// Shown without brackets in usage lines (`export --out <dir>`): the command fails
    /// without it. Set by ``Parameter/option(_:_:missing:_:)``.
    var isRequired = false

    init(
        name: String, short: Character? = nil, valueName: String? = nil, help: String,
        isRepeatable: Bool = false, isHidden: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
        self.isRepeatable = isRepeatable
        self.isHidden = isHidden
    }

    var isFlag: Bool { valueName == nil }
}

/// A command, or a group of commands, as data: the parser and the help text are both
/// derived from this one description, so they cannot disagree.
///
/// A command with subcommands takes no positionals of its own: a positional there names
/// a subcommand. Given none, it runs if it has `run`, and shows its help otherwise.
///
/// Not `Sendable`: `run` may capture the caller's non-sendable context (a terminal, an
/// opened vault), so build the table in a function rather than a global.
struct CommandSpec {
    let name: String
    /// One sentence; the OVERVIEW line and the SUBCOMMANDS entry.
    let abstract: String
    /// Printed after the OVERVIEW line, wrapped; `\n` starts a new line.
    let discussion: String?
    let arguments: [ArgumentSpec]
    let options: [OptionSpec]
    let subcommands: [CommandSpec]
    /// nil for a pure group such as `book`. Runs with what was parsed and the moment the
    /// command runs, which relative times on its command line (`now`, `HH:MM`) are read
    /// against. bmvault's commands get this from ``init(name:abstract:discussion:parameters:subcommands:run:)``.
    let run: ((Invocation, Timestamp) throws -> Void)?
    /// Parsed and run like any other, but left out of help, completion and the man page:
    /// for what the completion scripts call (`__complete-book`), not for people.
    var isHidden = false
    /// Command lines shown under EXAMPLES in the help and the manual page, each with what
    /// it does.
    var examples: [(command: String, what: String)] = []

    init(
        name: String, abstract: String, discussion: String? = nil,
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        subcommands: [CommandSpec] = [], run: ((Invocation, Timestamp) throws -> Void)? = nil
    ) {
        assert(
            arguments.dropLast().allSatisfy { !$0.isVariadic },
            "only the last argument of '\(name)' may be variadic")
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.run = run
    }
}

extension CommandSpec {
    /// The `help` command every tool with subcommands gets at its root (unless it defines
    /// its own): listed in the root help, and resolved by the parser, never run.
    static var builtInHelp: CommandSpec {
        CommandSpec(
            name: "help", abstract: "Show subcommand help information.",
            arguments: [
                ArgumentSpec(
                    name: "subcommands", help: "The command to show help for.",
                    isOptional: true, isVariadic: true)
            ])
    }

    /// This command with `examples` for its help page.
    func withExamples(_ examples: [(command: String, what: String)]) -> CommandSpec {
        var command = self
        command.examples = examples
        return command
    }

    /// Whether `builtInHelp` applies to this command as the root.
    var offersBuiltInHelp: Bool {
        !subcommands.isEmpty && !subcommands.contains { $0.name == CommandSpec.builtInHelp.name }
    }
}
