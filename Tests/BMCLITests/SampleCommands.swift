@testable import BMCLI

/// A small command table shaped like bmvault's, owned by the tests so that a change to
/// the real commands cannot hide a regression in the parser or the help layout.
enum Sample {
    static let vault = OptionSpec(
        name: "vault", valueName: "dir", help: "The vault directory. Default: $XDG_DATA_HOME/bmvault.")
    static let noKeyring = OptionSpec(name: "no-keyring", help: "Never use the keyring.", isHidden: true)

    static var noteAdd: CommandSpec {
        CommandSpec(
            name: "add", abstract: "Add a note to a book.",
            discussion: "The note is sealed with the vault key before it is written, so neither its text nor its locator is ever stored in the clear.",
            arguments: [
                ArgumentSpec(name: "book", help: "The book: an id, a unique id prefix, or a unique title prefix."),
                ArgumentSpec(
                    name: "text", help: "The note. Omitted: read stdin if piped, else open $EDITOR.", isOptional: true),
            ],
            options: [
                OptionSpec(
                    name: "locator", short: "l", valueName: "locator",
                    help: "Where in the book: a page, chapter or location."),
                OptionSpec(name: "tag", valueName: "tag", help: "A tag; give several to add several.", isRepeatable: true),
                OptionSpec(name: "json", help: "Print the new note as JSON."),
                OptionSpec(
                    name: "created-at", valueName: "timestamp",
                    help: "When the note was written, as an ISO 8601 timestamp. Default: now."),
                OptionSpec(name: "debug-ids", help: "Print internal ids.", isHidden: true),
            ],
            run: { _, _ in })
    }

    static var note: CommandSpec {
        CommandSpec(name: "note", abstract: "Write and read notes.", subcommands: [noteAdd])
    }

    static var bookAdd: CommandSpec {
        CommandSpec(
            name: "add", abstract: "Add a book to the shelf.",
            arguments: [
                ArgumentSpec(name: "title", help: "The title, as printed on the cover."),
                ArgumentSpec(
                    name: "authors", help: "The authors, in the order credited.", isOptional: true, isVariadic: true),
            ],
            options: [OptionSpec(name: "progress", valueName: "percent", help: "How far you have read, 0 to 100.")],
            run: { _, _ in })
    }

    static var bookList: CommandSpec {
        CommandSpec(
            name: "list", abstract: "List the books on the shelf.",
            options: [
                OptionSpec(name: "json", help: "Print JSON."),
                OptionSpec(name: "sort", valueName: "order", help: "Sort by title, author or date."),
            ],
            run: { _, _ in })
    }

    static var book: CommandSpec {
        CommandSpec(name: "book", abstract: "Manage the books on your shelf.", subcommands: [bookAdd, bookList])
    }

    static var parser: CommandLineParser {
        CommandLineParser(
            root: CommandSpec(name: "bmvault", abstract: "An encrypted reading journal.", subcommands: [note, book]),
            globalOptions: [vault, noKeyring])
    }

    /// The invocation if `arguments` parse to a command to run, else nil.
    static func invocation(_ arguments: [String]) -> Invocation? {
        guard case .run(_, let invocation)? = try? parser.parse(arguments) else { return nil }
        return invocation
    }

    /// The help text if `arguments` parse to a help request, else nil.
    static func help(_ arguments: [String]) -> String? {
        switch try? parser.parse(arguments) {
        case .help(let text)?: text
        case .home(let fallback, _)?: fallback   // the help a home screen falls back to
        default: nil
        }
    }

    /// The error if `arguments` fail to parse, else nil.
    static func failure(_ arguments: [String]) -> UsageError? {
        do throws(UsageError) {
            _ = try parser.parse(arguments)
            return nil
        } catch {
            return error
        }
    }
}
