import Journal
import VaultKit

/// `book add|list|edit|progress` and `session add|list|edit|delete`: books and reading sessions.
enum BookCommands {
    /// An input that takes the edition options (``editionParameters(removable:)``).
    protocol EditionInput: CommandInput {
        var edition: EditionEdit { get set }
    }

    static func book(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "book", abstract: "Add, correct and rate books; progress and status.",
                    subcommands: [add(context), list(context), edit(context), progress(context)]
                        + ShelfCommands.statusCommands(context) + [ShelfCommands.rate(context), ShelfCommands.alias(context), ShelfCommands.merge(context)])
    }

    struct AddInput: CommandInput, EditionInput {
        var title: String?
        var titleStdin = false
        var authors: [String] = []
        var edition = EditionEdit()
        var tags: [String] = []
        var json = false

        static var parameters: [Parameter<AddInput>] {
            [.argument(\.title, ArgumentSpec(name: "title", help: "The book's title. Omitted: asked for at a terminal.", isOptional: true)),
             .flag(\.titleStdin, OptionSpec(name: "title-stdin", help: "Read the title from the first line of standard input.")),
             .options(\.authors, OptionSpec(name: "author", short: "a", valueName: "name", help: "An author; repeat for several.",
                                             isRepeatable: true))]
                + editionParameters(removable: false) + [.options(\.tags, SharedOptions.tags), .flag(\.json, SharedOptions.json)]
        }
    }

    static func add(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "add", abstract: "Add a book and print its id.",
            discussion: "Without TITLE, asks for the title (and authors) at a terminal, or reads it from the first line of standard input with --title-stdin: either keeps it out of the shell's history. A title already in the journal (ignoring case and accents) is asked about at a terminal, and warned about elsewhere.",
            parameters: AddInput.parameters
        ) { input in
            var authors = input.authors
            let title: String
            if input.titleStdin {
                guard input.title == nil else { throw CLIError.invalidValue("give TITLE or --title-stdin, not both") }
                guard let line = Swift.readLine(strippingNewline: true) else { throw CLIError.invalidValue("--title-stdin read nothing") }
                title = line
            } else if let given = input.title {
                title = given
            } else if context.canAsk {
                title = context.ask("Title: ") ?? ""
                while input.authors.isEmpty, let author = context.ask("Author (Enter when done): "), !author.isEmpty {
                    authors.append(author)
                }
            } else {
                throw CLIError.invalidValue("book add needs TITLE, or --title-stdin to read it from standard input")
            }
            let vault = try context.openVault()
            let sameTitle = try vault.books(titled: title)
            // Named by count and short id, never by title: off a terminal this is a log line.
            let named = sameTitle.first.map { "\(HumanFormat.counted([(sameTitle.count, "book")])) with this title (\(vault.shortID($0)))" }
            if let named, context.canAsk {
                guard context.confirm("The journal already has \(named). Add another? [y/N] ") else { throw VaultError.declined }
            }
            let book = try vault.addBook(title: title, authors: authors, edition: input.edition, tags: input.tags)
            if let named, !context.canAsk { context.console.err("Warning: the journal already had \(named); added another.\n") }
            printID(book.id.rawValue, json: input.json, context: context)
        }
    }

    struct ListInput: CommandInput {
        var status: ReadingStatus?
        var tag: String?
        var json = false

        static var parameters: [Parameter<ListInput>] {
            [.option(\.status, OptionSpec(name: "status", short: "s", valueName: "status",
                                          help: "Only books with this status: want-to-read, reading, finished or abandoned."),
                     ValueParsing.status),
             .option(\.tag, SharedOptions.tagFilter),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func list(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "list", abstract: "List books with their progress, status and rating.", parameters: ListInput.parameters) { input in
            var documents: [JSONDocuments.ShelfDocument] = []
            var listed = 0
            let vault = try context.openVault()
            let names = try vault.recordNames()
            let shelf = try vault.shelf(tag: input.tag)
            if !input.json {
                names.prepare(shelf.compactMap { try? $0.get().book.id })
                context.startPaging()
            }
            for result in shelf {
                switch result {
                case .success(let entry) where input.status != nil && entry.book.readingLog.status != input.status:
                    continue
                case .success(let entry):
                    listed += 1
                    if input.json {
                        documents.append(JSONDocuments.ShelfDocument(book: entry.book, activity: entry.activity, tags: entry.tags))
                    } else {
                        context.console.out(HumanFormat.bookLine(entry.book, activity: entry.activity, tags: entry.tags,
                                                                 name: { context.console.style.id(names.shortID($0)) }))
                    }
                case .failure(let unreadable):
                    context.reportUnreadable(unreadable)
                }
            }
            if input.json { context.console.out(JSONDocuments.render(documents)) }
            if listed == 0, !input.json, context.unreadableCount == 0 {
                context.console.err(input.status != nil || input.tag != nil ? "No books match.\n" : "No books yet; `bmvault book add TITLE` adds one.\n")
            }
            try context.finishListing()
        }
    }

    struct EditInput: CommandInput, EditionInput {
        var book = ""
        var title: String?
        var authors: [String] = []
        var noAuthor = false
        var edition = EditionEdit()

        static var parameters: [Parameter<EditInput>] {
            [.argument(\.book, SharedOptions.book),
             .option(\.title, OptionSpec(name: "title", short: "t", valueName: "title", help: "The corrected title.")),
             .options(\.authors, OptionSpec(name: "author", short: "a", valueName: "name",
                                             help: "The authors, replacing those recorded; repeat for several.", isRepeatable: true)),
             .flag(\.noAuthor, OptionSpec(name: "no-author", help: "Remove every author."))]
                + editionParameters(removable: true)
        }
    }

    static func edit(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "edit", abstract: "Correct a book's title, authors or edition.",
            discussion: "Give --title, --author (repeat for several; they replace the authors recorded), --no-author, "
                + "--isbn, --year or --pages-total (\"\" removes one of the last three). "
                + "The change syncs like any other; a position recorded on another device meanwhile is kept, not undone.",
            parameters: EditInput.parameters
        ) { input in
            guard input.title != nil || !input.authors.isEmpty || input.noAuthor || !input.edition.isEmpty else {
                throw CLIError.invalidValue("book edit needs --title, --author, --no-author, --isbn, --year or --pages-total")
            }
            guard !(input.noAuthor && !input.authors.isEmpty) else {
                throw CLIError.invalidValue("--no-author and --author cannot be given together")
            }
            let authors = input.noAuthor ? [] : input.authors.isEmpty ? nil : input.authors
            let vault = try context.openVault()
            let edit = try vault.editBook(named: input.book, title: input.title, authors: authors, edition: input.edition)
            let book = Mention(vault: vault, console: context.console).bookAsSubject(edit.book)
            if edit.changedFields.isEmpty {
                context.console.err("\(book) already has what was given; nothing was changed.\n")
            } else {
                context.console.note("\(book) edited (\(edit.changedFields.joined(separator: " and "))).\n")
            }
        }
    }

    struct ProgressInput: CommandInput {
        var book = ""
        var position: [String] = []
        var rewind = false
        var at: String?
        var file: String?

        static var parameters: [Parameter<ProgressInput>] {
            [.argument(\.book, SharedOptions.book),
             .arguments(\.position, ArgumentSpec(name: "position",
                                                 help: "Percent read, 0 to 100 (42 or 42.5%), or a page: p. 120 (the book needs --pages-total).",
                                                 isOptional: true, isVariadic: true)),
             .flag(\.rewind, OptionSpec(name: "rewind", help: "A deliberate move backwards: sync lets it win over positions set before it.")),
             .option(\.at, OptionSpec(name: "at", valueName: "locator",
                                      help: "Your place in the book's file: epubcfi(...), p. 120, loc 1234 or 42% (a percent moves the progress too).")),
             .option(\.file, OptionSpec(name: "file", valueName: "id", help: "Which of the book's files --at is in, when it has several."))]
        }
    }

    static func progress(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "progress", abstract: "Set how far through a book you are.", parameters: ProgressInput.parameters) { input in
            // What was typed is checked before the vault opens: a usage error is a usage error, vault or not.
            guard let at = input.at else {
                guard input.file == nil else { throw CLIError.invalidValue("--file goes with --at LOCATOR") }
                let position = try ValueParsing.position(input.position.joined(separator: " "))
                return try setPosition(position, input: input, vault: context.openVault(), context: context)
            }
            let given = input.position.isEmpty ? nil : try ValueParsing.position(input.position.joined(separator: " "))
            do throws(JournalError) { _ = try Locator(at) } catch { throw VaultError.invalidInput(error) }
            let vault = try context.openVault()
            // The file before any change, so a book with no file or several changes nothing.
            let file = try vault.fileForLocator(of: input.book, file: input.file)
            // A locator in percent is also the book's progress, unless a position was given.
            if let given {
                try setPosition(given, input: input, vault: vault, context: context)
            } else if case .percent(let percent)? = try? ValueParsing.position(at) {
                try setPosition(.percent(percent), input: input, vault: vault, context: context)
            }
            try vault.setFileLocator(file, to: at)
            context.console.note("Your place in file \(FileCommands.shortFileID(file.id)) is recorded.\n")
        }
    }

    /// Moves the book's progress to `position`.
    private static func setPosition(_ position: ValueParsing.Position, input: ProgressInput, vault: Vault, context: CommandContext) throws {
        let book = switch position {
        case .percent(let percent): try vault.setProgress(of: input.book, to: percent, rewind: input.rewind)
        case .page(let page): try vault.setProgress(of: input.book, toPage: page, rewind: input.rewind)
        }
        context.console.note("Progress of \(Mention(vault: vault, console: context.console).book(book)) set to \(HumanFormat.position(book)).\n")
    }

    struct SessionAddInput: CommandInput {
        var book = ""
        var pages: Int?
        var fromPage: Int?
        var toPage: Int?
        var start: ValueParsing.GivenTime?
        var end = ValueParsing.GivenTime(timestamp: Timestamp(millisecondsSince1970: 0), isTimeOfDay: false)  // Decoding always sets it: absent, now.
        var minutes: Int?
        var json = false

        static var parameters: [Parameter<SessionAddInput>] {
            [.argument(\.book, SharedOptions.book),
             .option(\.pages, OptionSpec(name: "pages", short: "p", valueName: "n",
                                          help: "Pages read (required, unless --from-page and --to-page say it)."), ValueParsing.pages),
             .option(\.fromPage, OptionSpec(name: "from-page", valueName: "page", help: "The page the session started at."),
                     ValueParsing.page),
             .option(\.toPage, OptionSpec(name: "to-page", valueName: "page",
                                           help: "The page it ended at: the book's progress moves there (needs its --pages-total)."),
                     ValueParsing.page),
             .option(\.minutes, OptionSpec(name: "minutes", short: "m", valueName: "m",
                                           help: "How long it lasted, ending at --end (0 for a session without a duration)."),
                     ValueParsing.minutes),
             .time(\.start, OptionSpec(name: "start", valueName: "time", help: "When it started: \(ValueParsing.timeForms).")),
             .time(\.end, OptionSpec(name: "end", valueName: "time", help: "When it ended (default: now); not in the future.")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    struct SessionListInput: CommandInput {
        var book: String?
        var since: ValueParsing.GivenTime?
        var json = false

        static var parameters: [Parameter<SessionListInput>] {
            [.option(\.book, SharedOptions.bookFilter),
             .time(\.since, OptionSpec(name: "since", valueName: "time", help: "Only sessions that started at or after this time: \(ValueParsing.timeForms).")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    struct SessionEditInput: CommandInput {
        var id = ""
        var pages: Int?
        var start: ValueParsing.GivenTime?
        var end: ValueParsing.GivenTime?

        static var parameters: [Parameter<SessionEditInput>] {
            [.argument(\.id, SharedOptions.id),
             .option(\.pages, OptionSpec(name: "pages", short: "p", valueName: "n", help: "The pages read."), ValueParsing.pages),
             .time(\.start, OptionSpec(name: "start", valueName: "time", help: "When it started: \(ValueParsing.timeForms).")),
             .time(\.end, OptionSpec(name: "end", valueName: "time", help: "When it ended; not in the future."))]
        }
    }

    struct SessionDeleteInput: CommandInput {
        var ids: [String] = []

        static var parameters: [Parameter<SessionDeleteInput>] {
            [.arguments(\.ids, ArgumentSpec(name: "id", help: "A session: its short id, id or a unique prefix; repeat for several.",
                                              isVariadic: true))]
        }
    }

    static func session(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "session", abstract: "Record, list and correct reading sessions.", subcommands: [
            CommandSpec(
                name: "add", abstract: "Record a reading session and print its id.",
                discussion: "Give how long it lasted with --minutes, or when it started with --start; it ends at --end, "
                    + "or now. --minutes 0 records a session without a duration. A time of day means the latest such moment "
                    + "that is not in the future, and a --start of day after --end is the day before's: --start 23:00 "
                    + "--end 00:30 crosses midnight. A session cannot end in the future. --to-page moves the book's progress "
                    + "to that page, never backwards; with --from-page it also gives the pages read, when --pages does not.",
                parameters: SessionAddInput.parameters
            ) { input in
                guard input.start == nil || input.minutes == nil else {
                    throw CLIError.invalidValue("give --minutes or --start, not both")
                }
                guard input.start != nil || input.minutes != nil else {
                    throw CLIError.invalidValue("session add needs --minutes M or --start TIME (--minutes 0 for a session without a duration)")
                }
                guard input.fromPage == nil || input.toPage != nil else { throw CLIError.invalidValue("--from-page needs --to-page") }
                if let from = input.fromPage, let to = input.toPage, to < from {
                    throw CLIError.invalidValue("--to-page is before --from-page")
                }
                guard let pages = input.pages ?? input.toPage.flatMap({ to in input.fromPage.map { to - $0 } }) else {
                    throw CLIError.invalidValue("session add needs --pages N (or --from-page and --to-page)")
                }
                let span = input.minutes.map { minutes in
                    (start: Timestamp(millisecondsSince1970: input.end.timestamp.millisecondsSince1970 - Int64(minutes) * 60_000),
                     end: input.end.timestamp)
                } ?? ValueParsing.sessionSpan(start: input.start, end: input.end)
                let vault = try context.openVault()
                let added = try vault.addSession(to: input.book, pagesRead: pages, startedAt: span.start,
                                                 endedAt: span.end, toPage: input.toPage)
                printID(added.session.id.rawValue, json: input.json, context: context)
                if let toPage = input.toPage {
                    let position = HumanFormat.position(added.book)
                    let book = Mention(vault: vault, console: context.console).book(added.book)
                    context.console.note(added.book.edition.page(atPercent: added.book.progress) == toPage
                                        ? "Progress of \(book) set to \(position).\n"
                                        : "Progress of \(book) stays at \(position), beyond page \(toPage).\n")
                }
            },
            CommandSpec(
                name: "list", abstract: "List reading sessions, oldest first.",
                discussion: "One line each: id, start and end in local time, duration, pages and the book. Sessions of deleted books are not listed.",
                parameters: SessionListInput.parameters
            ) { input in
                let vault = try context.openVault()
                let listings = try vault.sessions(book: input.book, since: input.since?.timestamp)
                if input.json {
                    context.console.out(JSONDocuments.render(listings.map(JSONDocuments.SessionListingDocument.init)))
                } else if listings.isEmpty {
                    context.console.err(input.book == nil && input.since == nil ? "No sessions yet.\n" : "No sessions match.\n")
                } else {
                    let names = try vault.recordNames()
                    let style = context.console.style
                    context.startPaging()
                    for listing in listings { context.console.out(HumanFormat.sessionLine(listing, name: { style.id(names.shortID($0)) })) }
                }
                try context.finishListing()
            },
            CommandSpec(
                name: "edit", abstract: "Correct a reading session's pages or times.",
                discussion: "Give --pages, --start or --end; the others stay as they are. A time of day (21:30) keeps the session's "
                    + "own day, and a --start of day after the end is the day before's. The corrected session may not end before it "
                    + "starts nor in the future. The change syncs: when a session was changed on two devices, the later change wins.",
                parameters: SessionEditInput.parameters
            ) { input in
                guard input.pages != nil || input.start != nil || input.end != nil else {
                    throw CLIError.invalidValue("session edit needs --pages, --start or --end")
                }
                let vault = try context.openVault()
                let before = try vault.session(input.id)
                // A time of day keeps the session's own day: an end the day it ended; a start the day
                // it started, or, given with an end of day, the end's day; a start then after the end
                // is the day before's.
                let end = input.end.map { ValueParsing.onDayOf(before.endedAt, $0) }
                let endsAt = end ?? before.endedAt
                let startDay = input.end?.isTimeOfDay == true ? endsAt : before.startedAt
                let start = input.start.map { given in
                    ValueParsing.sessionSpan(start: ValueParsing.GivenTime(timestamp: ValueParsing.onDayOf(startDay, given),
                                                                           isTimeOfDay: given.isTimeOfDay),
                                             end: ValueParsing.GivenTime(timestamp: endsAt, isTimeOfDay: false)).start
                }
                let session = try vault.editSession(input.id, startedAt: start, endedAt: end, pagesRead: input.pages)
                if before == session {
                    context.console.err("No change; nothing was saved.\n")
                } else {
                    context.console.note("Saved session \(vault.shortID(session.id)) (version \(session.version)).\n")
                }
            },
            CommandSpec(
                name: "delete", abstract: "Delete reading sessions.",
                discussion: "Several ids are deleted together or not at all. The deletion syncs; a session changed later on another device comes back with that change.",
                parameters: SessionDeleteInput.parameters
            ) { input in
                let vault = try context.openVault()
                for deleted in try vault.delete(input.ids, sessionsOnly: true) {
                    context.console.note("Deleted \(deleted.kind) \(vault.shortID(deleted.id)).\n")
                }
            },
        ])
    }

    /// The options that give a book's edition, for `book add` and (`removable`: "" removes
    /// a part) `book edit`.
    static func editionParameters<Input: EditionInput>(removable: Bool) -> [Parameter<Input>] {
        let remove = removable ? "; \"\" removes it" : ""
        return [.option(\.edition.isbn, OptionSpec(name: "isbn", valueName: "isbn", help: "Its ISBN-10 or ISBN-13\(remove)."),
                        ValueParsing.isbn),
                .option(\.edition.year, OptionSpec(name: "year", valueName: "year", help: "Its year of publication\(remove)."),
                        ValueParsing.year),
                .option(\.edition.pages, OptionSpec(name: "pages-total", valueName: "n",
                                                    help: "Its number of pages, so progress can be a page\(remove)."),
                        ValueParsing.pagesTotal)]
    }

    /// What every `add` prints: the new id alone on its line, or `{"id": ...}`.
    static func printID(_ id: String, json: Bool, context: CommandContext) {
        context.console.out(json ? JSONDocuments.render(JSONDocuments.IDDocument(id: id)) : id + "\n")
    }
}
