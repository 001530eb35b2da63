import Testing

@testable import BMCLI

@Suite("Usage errors")
struct UsageErrorTests {
    @Test func missingArgumentRendered() throws {
        let error = try #require(Sample.failure(["book", "add"]))
        #expect(
            HelpFormatter.render(error) == """
                Error: Missing expected argument '<title>'
                Usage: bmvault book add <title> [<authors> ...] [--progress <percent>]
                  See 'bmvault book add --help' for more information.

                """)
        #expect(error.commandPath == ["bmvault", "book", "add"])
    }

    @Test func missingArgumentOfTheLeafInTheBrief() throws {
        let error = try #require(Sample.failure(["note", "add", "--json"]))
        #expect(error.message == "Missing expected argument '<book>'")
        #expect(
            error.usage
                == "bmvault note add <book> [<text>] [--locator <locator>] [--tag <tag> ...] [--json] [--created-at <timestamp>]"
        )
    }

    @Test func aRequiredVariadicArgumentNeedsOneValue() throws {
        let root = CommandSpec(
            name: "tool", abstract: "A tool.",
            arguments: [ArgumentSpec(name: "files", help: "Files.", isVariadic: true)], run: { _, _ in })
        let parser = CommandLineParser(root: root)
        do throws(UsageError) {
            _ = try parser.parse([])
            Issue.record("parsed without error")
        } catch {
            #expect(error.message == "Missing expected argument '<files> ...'")
        }
        guard case .run(_, let invocation) = try parser.parse(["a", "b"]) else {
            Issue.record("expected .run")
            return
        }
        #expect(invocation.arguments("files") == ["a", "b"])
    }

    @Test func extraArgumentIsIdentifiedByPositionNotText() throws {
        let error = try #require(Sample.failure(["note", "add", "dune", "my secret thought", "another secret"]))
        let rendered = HelpFormatter.render(error)
        #expect(
            rendered == """
                Error: Unexpected extra argument (argument 3)
                Usage: bmvault note add <book> [<text>] [--locator <locator>] [--tag <tag> ...] [--json] [--created-at <timestamp>]
                  See 'bmvault note add --help' for more information.

                """)
        #expect(!rendered.contains("secret"))
    }

    @Test func extraArgumentToACommandWithoutArguments() {
        #expect(Sample.failure(["book", "list", "x"])?.message == "Unexpected extra argument (argument 1)")
    }

    @Test func unknownOption() {
        #expect(Sample.failure(["note", "add", "dune", "--nope"])?.message == "Unknown option '--nope'")
        #expect(Sample.failure(["note", "add", "dune", "-x"])?.message == "Unknown option '-x'")
        #expect(Sample.failure(["--nope"])?.usage == "bmvault [--vault <dir>] <subcommand>")
    }

    @Test func unknownOptionNeverEchoesItsValue() throws {
        let error = try #require(Sample.failure(["note", "add", "dune", "--nope=secret"]))
        #expect(error.message == "Unknown option '--nope'")
        #expect(!HelpFormatter.render(error).contains("secret"))
    }

    @Test func optionsOfOneCommandAreUnknownToAnother() {
        #expect(Sample.failure(["book", "list", "--locator", "p. 1"])?.message == "Unknown option '--locator'")
        #expect(Sample.failure(["note", "--locator", "p. 1", "add"])?.message == "Unknown option '--locator'")
    }

    @Test func missingValue() throws {
        let error = try #require(Sample.failure(["note", "add", "dune", "--locator"]))
        #expect(
            HelpFormatter.render(error) == """
                Error: Missing value for '--locator <locator>'
                Usage: bmvault note add <book> [<text>] [--locator <locator>] [--tag <tag> ...] [--json] [--created-at <timestamp>]
                  See 'bmvault note add --help' for more information.

                """)
        #expect(
            Sample.failure(["note", "add", "dune", "--locator", "--json"])?.message
                == "Missing value for '--locator <locator>'")
        #expect(Sample.failure(["note", "add", "dune", "-l", "--", "x"])?.message == "Missing value for '-l <locator>'")
        #expect(Sample.failure(["book", "list", "--vault"])?.message == "Missing value for '--vault <dir>'")
    }

    @Test func aFlagGivenAValue() throws {
        let error = try #require(Sample.failure(["book", "list", "--json=yes"]))
        #expect(error.message == "The option '--json' does not take a value")
        #expect(Sample.failure(["--help=x"])?.message == "The option '--help' does not take a value")
    }

    @Test func unknownSubcommandShowsTheGroupsUsage() throws {
        let error = try #require(Sample.failure(["book", "frobnicate"]))
        #expect(
            HelpFormatter.render(error) == """
                Error: Unknown command; expected one of: add, list
                Usage: bmvault book <subcommand>
                  See 'bmvault book --help' for more information.

                """)
    }

    @Test func unknownTopLevelCommand() throws {
        let error = try #require(Sample.failure(["frobnicate", "--vault", "/v"]))
        #expect(
            HelpFormatter.render(error) == """
                Error: Unknown command; expected one of: note, book, help
                Usage: bmvault [--vault <dir>] <subcommand>
                  See 'bmvault --help' for more information.

                """)
    }

    @Test func helpForAnUnknownCommand() throws {
        #expect(Sample.failure(["help", "frobnicate"])?.message == "Unknown command; expected one of: note, book, help")
        let nested = try #require(Sample.failure(["help", "book", "frobnicate"]))
        #expect(nested.message == "Unknown command; expected one of: add, list")
        #expect(nested.usage == "bmvault book <subcommand>")
        #expect(nested.commandPath == ["bmvault", "book"])
        let pastALeaf = try #require(Sample.failure(["help", "book", "list", "more"]))
        #expect(pastALeaf.message == "Unexpected command name: this command has no subcommands")
        #expect(pastALeaf.usage == "bmvault book list [--json] [--sort <order>]")
    }
}

@Suite struct UnknownCommandPrivacyTests {
    @Test func unknownCommandNeverEchoesWhatWasTyped() throws {
        // `bmvault note "my private thought"` (forgetting `add`) must not print the thought.
        let error = try #require(Sample.failure(["note", "my private thought"]))
        #expect(!HelpFormatter.render(error).contains("private"))
        #expect(error.message == "Unknown command; expected one of: add")
    }
}

@Suite struct UnknownOptionPrivacyTests {
    @Test func textThatStartsWithADashIsNotEchoed() throws {
        let error = try #require(Sample.failure(["note", "add", "Dune", "-my private thought"]))
        #expect(error.message == "Unknown option; to give text that starts with '-', put it after '--'")
        #expect(!HelpFormatter.render(error).contains("private"))
        let dashes = try #require(Sample.failure(["note", "add", "Dune", "--- a line of dashes"]))
        #expect(!HelpFormatter.render(dashes).contains("dashes"))
    }

    @Test func plainOptionNamesAreStillNamed() throws {
        #expect(Sample.failure(["note", "add", "Dune", "--colour=secret"])?.message == "Unknown option '--colour'")
        #expect(Sample.failure(["note", "add", "Dune", "-x"])?.message == "Unknown option '-x'")
    }
}

/// `did you mean`: only names from the command table are suggested, never what was typed.
@Suite struct NameSuggestionTests {
    @Test func aMistypedCommandOrOptionGetsTheNameItWasCloseTo() throws {
        #expect(Sample.failure(["boko"])?.message == "Unknown command; did you mean 'book'? Expected one of: note, book, help")
        #expect(Sample.failure(["book", "lsit"])?.message == "Unknown command; did you mean 'list'? Expected one of: add, list")
        #expect(Sample.failure(["help", "nots"])?.message == "Unknown command; did you mean 'note'? Expected one of: note, book, help")
        #expect(Sample.failure(["note", "add", "b", "--lcoator", "p. 1"])?.message == "Unknown option '--lcoator'; did you mean '--locator'?")
        #expect(Sample.failure(["note", "add", "b", "--loc", "p. 1"])?.message == "Unknown option '--loc'; did you mean '--locator'?",
                "the start of one option's name")
        #expect(Sample.failure(["note", "add", "b", "--debug-id"])?.message == "Unknown option '--debug-id'", "hidden options are not offered")
        #expect(Sample.failure(["frobnicate"])?.message == "Unknown command; expected one of: note, book, help")
    }

    @Test func aSuggestionNeverCarriesWhatWasTyped() throws {
        let error = try #require(Sample.failure(["note", "my private thought"]))
        #expect(error.message == "Unknown command; expected one of: add")
        let close = try #require(Sample.failure(["note", "ad"]))
        #expect(close.message == "Unknown command; did you mean 'add'? Expected one of: add")
    }

    @Test func distances() {
        #expect(NameSuggestion.editDistance("serach", "search") == 1, "a swap of neighbours is one edit")
        #expect(NameSuggestion.editDistance("sync", "sink") == 2)
        #expect(NameSuggestion.closest(to: "x", among: ["tag", "tags"]) == nil)
        #expect(NameSuggestion.closest(to: "ta", among: ["tag", "tags"]) == nil, "the start of two names suggests neither")
        #expect(NameSuggestion.closest(to: "lst", among: ["list", "lost"]) == nil, "two names as close: neither")
        #expect(NameSuggestion.closest(to: "STATS", among: ["stats", "status"]) == "stats")
    }
}
