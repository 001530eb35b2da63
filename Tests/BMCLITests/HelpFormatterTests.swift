import Testing

@testable import BMCLI

/// The expected pages are written out literally: a change to the layout must fail here.
@Suite("Help text")
struct HelpFormatterTests {
    static let leafHelp = """
        OVERVIEW: Add a note to a book.

        The note is sealed with the vault key before it is written, so neither its text
        nor its locator is ever stored in the clear.

        USAGE: bmvault note add <book> [<text>] [--locator <locator>] [--tag <tag> ...] [--json] [--created-at <timestamp>]

        ARGUMENTS:
          <book>                  The book: an id, a unique id prefix, or a unique
                                  title prefix.
          <text>                  The note. Omitted: read stdin if piped, else open
                                  $EDITOR.

        OPTIONS:
          -l, --locator <locator> Where in the book: a page, chapter or location.
          --tag <tag>             A tag; give several to add several.
          --json                  Print the new note as JSON.
          --created-at <timestamp>
                                  When the note was written, as an ISO 8601 timestamp.
                                  Default: now.
          -h, --help              Show help information.

        """

    static let groupHelp = """
        OVERVIEW: Manage the books on your shelf.

        USAGE: bmvault book <subcommand>

        OPTIONS:
          -h, --help              Show help information.

        SUBCOMMANDS:
          add                     Add a book to the shelf.
          list                    List the books on the shelf.

          See 'bmvault help book <subcommand>' for detailed help.

        """

    static let rootHelp = """
        OVERVIEW: An encrypted reading journal.

        USAGE: bmvault [--vault <dir>] <subcommand>

        OPTIONS:
          --vault <dir>           The vault directory. Default: $XDG_DATA_HOME/bmvault.
          -V, --version           Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          note                    Write and read notes.
          book                    Manage the books on your shelf.
          help                    Show subcommand help information.

          See 'bmvault help <subcommand>' for detailed help.

        """

    @Test(arguments: [
        ["note", "add", "--help"],
        ["note", "add", "-h"],
        ["help", "note", "add"],
        ["--vault", "/v", "help", "note", "add"],
        ["note", "add", "dune", "--help"],
        ["help", "note", "add", "--help"],
    ])
    func leaf(arguments: [String]) {
        #expect(Sample.help(arguments) == Self.leafHelp)
    }

    @Test(arguments: [
        ["book"],
        ["book", "--help"],
        ["book", "-h"],
        ["help", "book"],
    ])
    func group(arguments: [String]) {
        #expect(Sample.help(arguments) == Self.groupHelp)
    }

    @Test(arguments: [
        [],
        ["--help"],
        ["-h"],
        ["help"],
    ])
    func root(arguments: [String]) {
        #expect(Sample.help(arguments) == Self.rootHelp)
    }

    @Test func leafWithoutOptionsOrDiscussion() {
        #expect(
            Sample.help(["help", "book", "list"]) == """
                OVERVIEW: List the books on the shelf.

                USAGE: bmvault book list [--json] [--sort <order>]

                OPTIONS:
                  --json                  Print JSON.
                  --sort <order>          Sort by title, author or date.
                  -h, --help              Show help information.

                """)
    }

    @Test func theBuiltInHelpCommandHasAPage() {
        #expect(
            Sample.help(["help", "help"]) == """
                OVERVIEW: Show subcommand help information.

                USAGE: bmvault help [<subcommands> ...]

                ARGUMENTS:
                  <subcommands>           The command to show help for.

                OPTIONS:
                  -h, --help              Show help information.

                """)
    }

    @Test func aNestedGroupPointsAtItsOwnHelpPath() {
        let inner = CommandSpec(name: "inner", abstract: "Inner.", subcommands: [Sample.bookList])
        let outer = CommandSpec(name: "outer", abstract: "Outer.", subcommands: [inner])
        let root = CommandSpec(name: "bmvault", abstract: "Root.", subcommands: [outer])
        let text = HelpFormatter.help(for: [root, outer, inner], globalOptions: [Sample.vault])
        #expect(text.hasSuffix("\n\n  See 'bmvault help outer inner <subcommand>' for detailed help.\n"))
        #expect(text.contains("USAGE: bmvault outer inner <subcommand>\n"))
        #expect(!text.contains("--vault"))
    }

    @Test func longDescriptionsWrapAtTheDescriptionColumn() {
        let words = Array(repeating: "lorem ipsum dolor", count: 12).joined(separator: " ")
        let command = CommandSpec(
            name: "tool", abstract: "A tool.",
            options: [OptionSpec(name: "x", help: words + " unbreakable-" + String(repeating: "w", count: 60))],
            run: { _, _ in })
        let root = CommandSpec(name: "bmvault", abstract: "Root.", subcommands: [command])
        let text = HelpFormatter.help(for: [root, command], globalOptions: [])
        let optionLines = text.split(separator: "\n").drop { $0 != "OPTIONS:" }.dropFirst().dropLast()
        #expect(optionLines.count == 5)
        #expect(optionLines.first?.hasPrefix("  --x                     lorem ipsum dolor") == true)
        for line in optionLines.dropFirst() {
            #expect(line.hasPrefix(String(repeating: " ", count: 26)))
            #expect(line.dropFirst(26).first != " ")
        }
        // Nine words fill 53 columns exactly, so each line but the last is 79 wide.
        for line in optionLines.dropLast() { #expect(line.count == 79) }
        #expect(optionLines.last == Substring(String(repeating: " ", count: 26) + "unbreakable-" + String(repeating: "w", count: 60)))
    }

    @Test func wrapFillsLinesToTheWidthExactly() {
        #expect(HelpFormatter.wrap("aaa bbb ccc", width: 7) == ["aaa bbb", "ccc"])
        #expect(HelpFormatter.wrap("aaa bbb ccc", width: 6) == ["aaa", "bbb", "ccc"])
        #expect(HelpFormatter.wrap("one\n\ntwo", width: 79) == ["one", "", "two"])
        #expect(HelpFormatter.wrap("", width: 79) == [""])
    }

    @Test func hiddenOptionsAreLeftOutOfHelpAndUsage() {
        #expect(!Self.leafHelp.contains("debug-ids"))
        #expect(Sample.help(["note", "add", "--help"])?.contains("debug-ids") == false)
        #expect(Sample.help(["--help"])?.contains("no-keyring") == false)
    }
}
