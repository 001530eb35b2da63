import Journal
import VaultKit

/// `book add|list|progress` and `session add`: books and reading sessions.
enum BookCommands {
    static func book(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "book", abstract: "Add and list books, and record progress.",
                    subcommands: [add(context), list(context), progress(context)])
    }

    struct AddInput: CommandInput {
        var title = ""
        var authors: [String] = []
        var json = false

        static var parameters: [Parameter<AddInput>] {
            [.argument(\.title, ArgumentSpec(name: "title", help: "The book's title.")),
             .options(\.authors, OptionSpec(name: "author", short: "a", valueName: "name", help: "An author; repeat for several.",
                                             isRepeatable: true)),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func add(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "add", abstract: "Add a book and print its id.", parameters: AddInput.parameters) { input in
            let book = try context.openVault().addBook(title: input.title, authors: input.authors)
            printID(book.id.rawValue, json: input.json, context: context)
        }
    }

    static func list(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "list", abstract: "List books with their progress.", parameters: JSONOnlyInput.parameters) { input in
            var documents: [JSONDocuments.BookDocument] = []
            for result in try context.openVault().books() {
                switch result {
                case .success(let book):
                    if input.json { documents.append(JSONDocuments.BookDocument(book)) } else { context.console.out(HumanFormat.bookLine(book)) }
                case .failure(let unreadable):
                    context.reportUnreadable(unreadable)
                }
            }
            if input.json { context.console.out(JSONDocuments.render(documents)) }
            try context.finishListing()
        }
    }

    struct ProgressInput: CommandInput {
        var book = ""
        var percent = 0.0
        var rewind = false

        static var parameters: [Parameter<ProgressInput>] {
            [.argument(\.book, SharedOptions.book),
             .argument(\.percent, ArgumentSpec(name: "percent", help: "Percent read, 0 to 100, such as 42 or 42.5%."), ValueParsing.percent),
             .flag(\.rewind, OptionSpec(name: "rewind", help: "A deliberate move backwards: sync lets it win over positions set before it."))]
        }
    }

    static func progress(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "progress", abstract: "Set how far through a book you are.", parameters: ProgressInput.parameters) { input in
            let book = try context.openVault().setProgress(of: input.book, to: input.percent, rewind: input.rewind)
            context.console.err("Progress of \(book.id) set to \(HumanFormat.percent(book.progress)).\n")
        }
    }

    struct SessionAddInput: CommandInput {
        var book = ""
        var pages = 0  // Required: decoding always sets it.
        var start: Timestamp?
        var end = Timestamp(millisecondsSince1970: 0)  // Decoding always sets it: absent, now.
        var json = false

        static var parameters: [Parameter<SessionAddInput>] {
            [.argument(\.book, SharedOptions.book),
             .option(\.pages, OptionSpec(name: "pages", short: "p", valueName: "n", help: "Pages read (required)."),
                     missing: "session add needs --pages N", ValueParsing.pages),
             .time(\.start, OptionSpec(name: "start", valueName: "time", help: "When it started: now, HH:MM, YYYY-MM-DD HH:MM, or ISO 8601.")),
             .time(\.end, OptionSpec(name: "end", valueName: "time", help: "When it ended (default: now).")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func session(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "session", abstract: "Record reading sessions.", subcommands: [
            CommandSpec(
                name: "add", abstract: "Record a reading session and print its id.",
                discussion: "Without times, the session is recorded as ending now; without --start, it starts when it ends.",
                parameters: SessionAddInput.parameters
            ) { input in
                let session = try context.openVault().addSession(to: input.book, pagesRead: input.pages,
                                                                 startedAt: input.start ?? input.end, endedAt: input.end)
                printID(session.id.rawValue, json: input.json, context: context)
            },
        ])
    }

    /// What every `add` prints: the new id alone on its line, or `{"id": ...}`.
    static func printID(_ id: String, json: Bool, context: CommandContext) {
        context.console.out(json ? JSONDocuments.render(JSONDocuments.IDDocument(id: id)) : id + "\n")
    }
}
