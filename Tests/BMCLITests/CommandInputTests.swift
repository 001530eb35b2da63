import Testing

@testable import BMCLI

/// Decoding a command's typed input from what the parser found, with a small input owned
/// by the tests (the real commands' inputs are covered end to end).
@Suite("CommandInput")
struct CommandInputTests {
    struct Sample: CommandInput {
        var book = ""
        var text: String?
        var pages = 0
        var tags: [String] = []
        var json = false

        static let pages = OptionSpec(name: "pages", valueName: "n", help: "Pages.")

        static var parameters: [Parameter<Sample>] {
            [.argument(\.book, ArgumentSpec(name: "book", help: "The book.")),
             .argument(\.text, ArgumentSpec(name: "text", help: "The text.", isOptional: true)),
             .option(\.pages, pages, missing: "needs --pages N", ValueParsing.pages),
             .options(\.tags, OptionSpec(name: "tag", valueName: "tag", help: "A tag.", isRepeatable: true)),
             .flag(\.json, OptionSpec(name: "json", help: "JSON."))]
        }
    }

    static let now = CommandContext(environment: [:]).clock.now()

    static func decode(arguments: [String: [String]] = ["book": ["dune"]], options: [String: [String]] = [:],
                       flags: Set<String> = []) throws(CLIError) -> Sample {
        try Sample.decode(Invocation(commandPath: ["sample"], arguments: arguments, options: options, flags: flags),
                          with: Sample.parameters, now: now)
    }

    @Test func everyFieldIsFilledFromItsParameter() throws {
        let input = try Self.decode(arguments: ["book": ["dune"], "text": ["Fear."]],
                                    options: ["pages": ["12", "30"], "tag": ["a", "b"]], flags: ["json"])
        #expect(input.book == "dune")
        #expect(input.text == "Fear.")
        #expect(input.pages == 30, "a plain option keeps its last value")
        #expect(input.tags == ["a", "b"])
        #expect(input.json)
    }

    @Test func absentParametersKeepTheirInitialValues() throws {
        let input = try Self.decode(options: ["pages": ["1"]])
        #expect(input.text == nil && input.tags.isEmpty && !input.json)
    }

    @Test func aRequiredOptionSaysWhatToGive() {
        #expect(throws: CLIError.invalidValue("needs --pages N")) { try Self.decode() }
    }

    @Test func conversionErrorsAreTheConvertersOwn() {
        #expect(throws: CLIError.invalidValue("--pages takes a whole number from 0 to 100000")) {
            try Self.decode(options: ["pages": ["many"]])
        }
    }

    @Test func theCommandSpecShowsTheParametersInOrder() {
        let command = CommandSpec(name: "sample", abstract: "A sample.", parameters: Sample.parameters) { _ in }
        #expect(command.arguments.map(\.name) == ["book", "text"])
        #expect(command.options.map(\.name) == ["pages", "tag", "json"])
    }

    @Test func timesAreReadAgainstTheOneNowOfTheCommand() throws {
        typealias Input = BookCommands.SessionAddInput
        func decode(_ options: [String: [String]]) throws(CLIError) -> Input {
            try Input.decode(Invocation(commandPath: ["session", "add"], arguments: ["book": ["dune"]], options: options),
                             with: Input.parameters, now: Self.now)
        }
        let absent = try decode(["pages": ["3"]])
        #expect(absent.start == nil && absent.end == ValueParsing.GivenTime(timestamp: Self.now, isTimeOfDay: false))
        let given = try decode(["pages": ["3"], "start": ["now"], "end": ["2026-12-02T10:00:00Z"]])
        #expect(given.start?.timestamp == Self.now)
        #expect(given.end.timestamp.millisecondsSince1970 == 1_796_205_600_000)
        #expect(throws: CLIError.invalidValue("--start takes a time: \(ValueParsing.timeForms)")) {
            try decode(["pages": ["3"], "start": ["soon"]])
        }
    }
}
