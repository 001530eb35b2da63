/// What the command line asks for. Help and version are results, not errors or side
/// effects, so the parser stays pure and the caller decides where output goes.
enum ParseResult {
    /// Run this command (its `run` is non-nil) with what was parsed.
    case run(CommandSpec, Invocation)
    /// Print this text to standard output and exit successfully.
    case help(String)
    /// `bmvault` alone (global options aside): the home screen of an unlocked vault with
    /// books, or else this help.
    case home(help: String, Invocation)
    /// Print the version and exit successfully.
    case version
}
