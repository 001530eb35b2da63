/// A command line the parser cannot accept, with what `HelpFormatter.render(_:)` needs
/// to point the user at the right usage line and help page.
///
/// Messages never repeat values the user typed: a misplaced argument might be the text
/// of a private note, so it is identified by position, and an unknown command by the
/// names that would have been valid. Only option spellings are echoed, up to their `=`,
/// and only when they look like an option name: `"-my private words"` is not repeated.
struct UsageError: Error, Equatable {
    let message: String
    /// The full path including the root name, e.g. `["bmvault", "note", "add"]`, because
    /// the rendered hint spells out the whole command.
    let commandPath: [String]
    /// The usage line without its `Usage: ` prefix.
    let usage: String

    init(message: String, commandPath: [String], usage: String) {
        self.message = message
        self.commandPath = commandPath
        self.usage = usage
    }

    init(_ reason: Reason, commandPath: [String], usage: String) {
        self.init(message: reason.message, commandPath: commandPath, usage: usage)
    }
}

extension UsageError {
    /// `-x` or `--some-name`: short enough and plain enough to be an option, not prose.
    static func isOptionName(_ spelling: String) -> Bool {
        let name = spelling.drop { $0 == "-" }
        return spelling.count <= 40 && !name.isEmpty && spelling.count - name.count <= 2
            && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
    }

    /// Every way parsing fails, so the wording (in swift-argument-parser's style, which
    /// users of Swift tools already know) lives in one place.
    enum Reason: Equatable, Sendable {
        /// `label` is the usage form, e.g. `<book>` or `<authors> ...`.
        case missingArgument(label: String)
        /// `position` counts the command's positionals from 1.
        case extraArgument(position: Int)
        /// `spelling` is the option as typed, without any `=value`; `suggestion`, a valid
        /// option it is close to (``NameSuggestion``).
        case unknownOption(spelling: String, suggestion: String? = nil)
        case missingValue(spelling: String, valueName: String)
        case flagGivenValue(spelling: String)
        /// `available` lists the valid subcommand names (empty under a leaf command);
        /// `suggestion`, the one the typed name is close to.
        case unknownCommand(available: [String], suggestion: String? = nil)

        var message: String {
            switch self {
            case .missingArgument(let label):
                "Missing expected argument '\(label)'"
            case .extraArgument(let position):
                "Unexpected extra argument (argument \(position))"
            case .unknownOption(let spelling, let suggestion) where UsageError.isOptionName(spelling):
                "Unknown option '\(spelling)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
            case .unknownOption:
                "Unknown option; to give text that starts with '-', put it after '--'"
            case .missingValue(let spelling, let valueName):
                "Missing value for '\(spelling) <\(valueName)>'"
            case .flagGivenValue(let spelling):
                "The option '\(spelling)' does not take a value"
            case .unknownCommand(let available, _) where available.isEmpty:
                "Unexpected command name: this command has no subcommands"
            case .unknownCommand(let available, let suggestion?):
                "Unknown command; did you mean '\(suggestion)'? Expected one of: \(available.joined(separator: ", "))"
            case .unknownCommand(let available, nil):
                "Unknown command; expected one of: \(available.joined(separator: ", "))"
            }
        }
    }
}
