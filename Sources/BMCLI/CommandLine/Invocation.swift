/// What the parser found for the command that runs, by name. A command never reads it:
/// ``CommandInput/decode(_:with:now:)`` turns it into the command's typed input.
///
/// Absence is not failure here: the parser has already rejected missing required
/// arguments, so `argument(_:)` returning nil means an optional argument was not given.
struct Invocation: Equatable, Sendable {
    /// The names from the root to the command, without the root: `["note", "add"]`.
    let commandPath: [String]
    /// Global options by long name, last value wins; a global flag given maps to "".
    let globalOptions: [String: String]
    private let argumentValues: [String: [String]]
    private let optionValues: [String: [String]]
    private let flagNames: Set<String>

    init(
        commandPath: [String], arguments: [String: [String]] = [:],
        options: [String: [String]] = [:], flags: Set<String> = [],
        globalOptions: [String: String] = [:]
    ) {
        self.commandPath = commandPath
        self.argumentValues = arguments
        self.optionValues = options
        self.flagNames = flags
        self.globalOptions = globalOptions
    }

    /// A single positional, or nil if an optional one was not given.
    func argument(_ name: String) -> String? { argumentValues[name]?.first }

    /// All values of a variadic positional, in order; empty if none were given.
    func arguments(_ name: String) -> [String] { argumentValues[name] ?? [] }

    /// The last value given, so a repeated plain option behaves as "last wins".
    func option(_ name: String) -> String? { optionValues[name]?.last }

    /// Every value of a repeatable option, in the order given.
    func options(_ name: String) -> [String] { optionValues[name] ?? [] }

    func flag(_ name: String) -> Bool { flagNames.contains(name) }
}
