import VaultKit

/// `book add|list|progress` and `session add`: books and reading sessions.
enum BookCommands {
    static func book(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "book", abstract: "Add and list books, and record progress.",
                    subcommands: [add(context), list(context), progress(context)])
    }

    static func add(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "add", abstract: "Add a book and print its id.",
            arguments: [ArgumentSpec(name: "title", help: "The book's title.")],
            options: [OptionSpec(name: "author", short: "a", valueName: "name", help: "An author; repeat for several.", isRepeatable: true),
                      SharedOptions.json]
        ) { invocation in
            let book = try context.openVault().addBook(title: invocation.argument("title") ?? "", authors: invocation.options("author"))
            printID(book.id.rawValue, json: invocation.flag("json"), context: context)
        }
    }

    static func list(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "list", abstract: "List books with their progress.", options: [SharedOptions.json]) { invocation in
            var documents: [JSONDocuments.BookDocument] = []
            for result in try context.openVault().books() {
                switch result {
                case .success(let book):
                    if invocation.flag("json") { documents.append(JSONDocuments.BookDocument(book)) } else { context.console.out(HumanFormat.bookLine(book)) }
                case .failure(let unreadable):
                    context.reportUnreadable(unreadable)
                }
            }
            if invocation.flag("json") { context.console.out(JSONDocuments.render(documents)) }
            try context.finishListing()
        }
    }

    static func progress(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "progress", abstract: "Set how far through a book you are.",
            arguments: [SharedOptions.book, ArgumentSpec(name: "percent", help: "Percent read, 0 to 100, such as 42 or 42.5%.")],
            options: [OptionSpec(name: "rewind", help: "A deliberate move backwards: sync lets it win over positions set before it.")]
        ) { invocation in
            let percent = try ValueParsing.percent(invocation.argument("percent") ?? "")
            let book = try context.openVault().setProgress(of: invocation.argument("book") ?? "", to: percent, rewind: invocation.flag("rewind"))
            context.console.err("Progress of \(book.id) set to \(HumanFormat.percent(book.progress)).\n")
        }
    }

    static func session(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "session", abstract: "Record reading sessions.", subcommands: [
            CommandSpec(
                name: "add", abstract: "Record a reading session and print its id.",
                discussion: "Without times, the session is recorded as ending now; without --start, it starts when it ends.",
                arguments: [SharedOptions.book],
                options: [OptionSpec(name: "pages", short: "p", valueName: "n", help: "Pages read (required)."),
                          OptionSpec(name: "start", valueName: "time", help: "When it started: now, HH:MM, YYYY-MM-DD HH:MM, or ISO 8601."),
                          OptionSpec(name: "end", valueName: "time", help: "When it ended (default: now)."),
                          SharedOptions.json]
            ) { invocation in
                guard let pagesText = invocation.option("pages") else {
                    throw CLIError.invalidValue("session add needs --pages N")
                }
                let pages = try ValueParsing.pages(pagesText)
                let now = context.clock.now()
                let end = try invocation.option("end").map { (text) throws(CLIError) in try ValueParsing.time(text, option: "end", now: now) } ?? now
                let start = try invocation.option("start").map { (text) throws(CLIError) in try ValueParsing.time(text, option: "start", now: now) } ?? end
                let session = try context.openVault().addSession(to: invocation.argument("book") ?? "", pagesRead: pages,
                                                                 startedAt: start, endedAt: end)
                printID(session.id.rawValue, json: invocation.flag("json"), context: context)
            },
        ])
    }

    /// What every `add` prints: the new id alone on its line, or `{"id": ...}`.
    static func printID(_ id: String, json: Bool, context: CommandContext) {
        context.console.out(json ? JSONDocuments.render(JSONDocuments.IDDocument(id: id)) : id + "\n")
    }
}
