import Testing

@testable import BMCLI

@Suite("CommandLineParser")
struct ParserTests {
    @Test func runsTheLeafWithItsPathAndArguments() throws {
        let result = try Sample.parser.parse(["note", "add", "dune", "Fear is the mind-killer."])
        guard case .run(let command, let invocation) = result else {
            Issue.record("expected .run, got \(result)")
            return
        }
        #expect(command.name == "add")
        #expect(invocation.commandPath == ["note", "add"])
        #expect(invocation.argument("book") == "dune")
        #expect(invocation.argument("text") == "Fear is the mind-killer.")
    }

    @Test func anOptionalArgumentNotGivenIsAbsent() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "dune"]))
        #expect(invocation.argument("book") == "dune")
        #expect(invocation.argument("text") == nil)
    }

    @Test func doubleDashEndsOptions() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "dune", "--", "--json is not a flag here"]))
        #expect(invocation.argument("text") == "--json is not a flag here")
        #expect(!invocation.flag("json"))

        let leadingDash = try #require(Sample.invocation(["note", "add", "--", "-dune", "-l"]))
        #expect(leadingDash.argument("book") == "-dune")
        #expect(leadingDash.argument("text") == "-l")
        #expect(leadingDash.option("locator") == nil)
    }

    @Test func optionsAreAfterDoubleDashOnlyWhenBeforeIt() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "--json", "dune", "--", "--json"]))
        #expect(invocation.flag("json"))
        #expect(invocation.argument("text") == "--json")
    }

    @Test(arguments: [
        ["note", "add", "dune", "--locator", "p. 42"],
        ["note", "add", "dune", "--locator=p. 42"],
        ["note", "add", "dune", "-l", "p. 42"],
        ["note", "add", "-l", "p. 42", "dune"],
    ])
    func optionValueSpellings(arguments: [String]) throws {
        let invocation = try #require(Sample.invocation(arguments))
        #expect(invocation.option("locator") == "p. 42")
        #expect(invocation.argument("book") == "dune")
        #expect(invocation.argument("text") == nil)
    }

    @Test func inlineValueKeepsLaterEqualsSigns() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "dune", "--locator=a=b"]))
        #expect(invocation.option("locator") == "a=b")
    }

    @Test func repeatableOptionsKeepOrder() throws {
        let invocation = try #require(
            Sample.invocation(["note", "add", "dune", "--tag", "fear", "--tag=litany", "--tag", "spice"]))
        #expect(invocation.options("tag") == ["fear", "litany", "spice"])
        #expect(invocation.option("tag") == "spice")
    }

    @Test func aRepeatedPlainOptionKeepsTheLastValue() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "dune", "-l", "p. 1", "--locator", "p. 2"]))
        #expect(invocation.option("locator") == "p. 2")
    }

    @Test func flags() throws {
        let on = try #require(Sample.invocation(["book", "list", "--json"]))
        #expect(on.flag("json"))
        #expect(on.option("json") == nil)
        let off = try #require(Sample.invocation(["book", "list"]))
        #expect(!off.flag("json"))
    }

    @Test func hiddenOptionsAreStillParsed() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "dune", "--debug-ids"]))
        #expect(invocation.flag("debug-ids"))
    }

    @Test func variadicArgumentsTakeTheRest() throws {
        let many = try #require(Sample.invocation(["book", "add", "Good Omens", "Terry Pratchett", "Neil Gaiman"]))
        #expect(many.argument("title") == "Good Omens")
        #expect(many.arguments("authors") == ["Terry Pratchett", "Neil Gaiman"])
        let none = try #require(Sample.invocation(["book", "add", "Dune"]))
        #expect(none.arguments("authors") == [])
    }

    @Test func loneDashAndNegativeNumbersArePositionals() throws {
        let stdin = try #require(Sample.invocation(["note", "add", "dune", "-"]))
        #expect(stdin.argument("text") == "-")
        let negative = try #require(Sample.invocation(["note", "add", "dune", "-5"]))
        #expect(negative.argument("text") == "-5")
        let negativeValue = try #require(Sample.invocation(["book", "add", "Dune", "--progress", "-5"]))
        #expect(negativeValue.option("progress") == "-5")
    }

    @Test(arguments: [
        ["--vault", "/v", "note", "add", "dune"],
        ["note", "--vault", "/v", "add", "dune"],
        ["note", "add", "dune", "--vault", "/v"],
        ["note", "add", "--vault=/old", "dune", "--vault=/v"],
    ])
    func globalOptionsAnywhere(arguments: [String]) throws {
        let invocation = try #require(Sample.invocation(arguments))
        #expect(invocation.globalOptions == ["vault": "/v"])
        #expect(invocation.argument("book") == "dune")
        #expect(invocation.commandPath == ["note", "add"])
    }

    @Test func aGlobalFlagMapsToAnEmptyString() throws {
        let invocation = try #require(Sample.invocation(["book", "list", "--no-keyring"]))
        #expect(invocation.globalOptions == ["no-keyring": ""])
        #expect(!invocation.flag("no-keyring"))
    }

    @Test func globalOptionsAreNotAcceptedAfterDoubleDash() {
        #expect(Sample.failure(["book", "list", "--", "--vault", "/v"])?.message == "Unexpected extra argument (argument 1)")
    }

    @Test func versionOnlyAtTheRoot() throws {
        guard case .version = try Sample.parser.parse(["--version"]) else {
            Issue.record("expected .version")
            return
        }
        guard case .version = try Sample.parser.parse(["--vault", "/v", "--version"]) else {
            Issue.record("expected .version after a global option")
            return
        }
        #expect(Sample.failure(["note", "--version"])?.message == "Unknown option '--version'")
    }

    @Test func aGroupWithoutASubcommandShowsItsHelp() {
        #expect(Sample.help(["note"]) == HelpFormatter.help(for: [Sample.parser.root, Sample.note], globalOptions: []))
    }

    /// The root alone is the home screen, which falls back to the root's help; global
    /// options go with it (the vault it shows).
    @Test func theRootAloneIsTheHomeScreen() throws {
        for arguments in [[], ["--vault", "/v"]] {
            guard case .home(let help, let invocation) = try Sample.parser.parse(arguments) else {
                Issue.record("expected the home screen for \(arguments)"); continue
            }
            #expect(help.hasPrefix("OVERVIEW: An encrypted reading journal.\n"))
            #expect(invocation.globalOptions["vault"] == (arguments.isEmpty ? nil : "/v"))
        }
    }

    @Test func helpWinsOverOtherProblems() {
        let leafHelp = Sample.help(["help", "note", "add"])
        #expect(leafHelp != nil)
        #expect(Sample.help(["note", "add", "--nope", "--help"]) == leafHelp)
        #expect(Sample.help(["note", "add", "a", "b", "c", "-h"]) == leafHelp)
        #expect(Sample.help(["note", "add", "-h", "--locator"]) == leafHelp)
    }

    @Test func helpAfterDoubleDashIsAPositional() throws {
        let invocation = try #require(Sample.invocation(["note", "add", "dune", "--", "--help"]))
        #expect(invocation.argument("text") == "--help")
    }
}
