import Journal
import VaultKit

/// `book want|start|finish|abandon` and `book rate`: where the reader stands with a book,
/// and what they thought of it.
enum ShelfCommands {
    struct StatusInput: CommandInput {
        var book = ""
        var on: ValueParsing.Period?

        static var parameters: [Parameter<StatusInput>] {
            [.argument(\.book, SharedOptions.book),
             .period(\.on, OptionSpec(name: "on", valueName: "date",
                                      help: "The day it happened (default: now): today, yesterday, YYYY-MM-DD or a time; not in the future."))]
        }
    }

    /// The four status commands, each recording one kind of change.
    static func statusCommands(_ context: CommandContext) -> [CommandSpec] {
        [(ReadingStatus.wantToRead, "want", "Put a book on the want-to-read shelf."),
         (.reading, "start", "Record that you started (or started again) reading a book."),
         (.finished, "finish", "Record that you finished a book; a re-read keeps every finish."),
         (.abandoned, "abandon", "Record that you stopped reading a book.")].map { status, name, abstract in
            CommandSpec(name: name, abstract: abstract,
                        discussion: "Every status change is kept, with its day; the book's status is the latest. It syncs, and "
                            + "changes made on two devices are both kept (Docs/SYNC.md).",
                        parameters: StatusInput.parameters) { input in
                let on = input.on?.start ?? context.clock.now()
                let vault = try context.openVault()
                let book = try vault.recordStatus(status, of: input.book, on: on)
                let finishes = book.readingLog.finishes
                context.console.note("\(Mention(vault: vault, console: context.console).bookAsSubject(book)): \(Self.recorded(status, on: on))"
                                    + (status == .finished && finishes > 1 ? " (finished \(finishes) times)" : "") + ".\n")
            }
        }
    }

    /// What a status change says, in words: `finished on 2026-11-02`, `reading since …`.
    static func recorded(_ status: ReadingStatus, on day: Timestamp) -> String {
        let date = HumanFormat.localDate(day)
        return switch status {
        case .wantToRead: "on the want-to-read shelf since \(date)"
        case .reading: "reading since \(date)"
        case .finished: "finished on \(date)"
        case .abandoned: "abandoned on \(date)"
        }
    }

    struct RateInput: CommandInput {
        var book = ""
        var stars: Double?
        var clear = false

        static var parameters: [Parameter<RateInput>] {
            [.argument(\.book, SharedOptions.book),
             .argument(\.stars, ArgumentSpec(name: "stars", help: "1 to 5, in halves: 4, 3.5.", isOptional: true), ValueParsing.stars),
             .flag(\.clear, OptionSpec(name: "clear", help: "Take the rating away."))]
        }
    }

    struct AliasInput: CommandInput {
        var book = ""
        var title = ""

        static var parameters: [Parameter<AliasInput>] {
            [.argument(\.book, SharedOptions.book),
             .argument(\.title, ArgumentSpec(name: "source-title", help: "The title as another program writes it (a Kindle's title line, without the author)."))]
        }
    }

    /// `book alias`: corrects an import's book matching once, for every later import.
    static func alias(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "alias", abstract: "Make a title another program uses name this book in every later import.",
                    discussion: "An import from a Kindle or KOReader finds a book by the identifiers and titles it met before, then by its title and authors. When it matched the wrong book, or made a second one, name the right book here with the title as the other program writes it: every later import puts that title's highlights in this book (case, accents and punctuation aside). What was imported already stays where it is: move it with `bmvault move`. The names are this device's; they do not sync.",
                    parameters: AliasInput.parameters) { input in
            let vault = try context.openVault()
            let (book, added) = try vault.addBookAlias(input.title, to: input.book)
            let named = Mention(vault: vault, console: context.console).bookAsSubject(book)
            context.console.note(added ? "\(named) now takes what other programs import under that title.\n"
                                       : "\(named) had that title already; nothing was changed.\n")
        }
    }

    struct MergeInput: CommandInput {
        var duplicate = ""
        var kept = ""

        static var parameters: [Parameter<MergeInput>] {
            [.argument(\.duplicate, ArgumentSpec(name: "from", help: "The book to merge (it is deleted once empty): an id, or part of its title or author.")),
             .argument(\.kept, ArgumentSpec(name: "into", help: "The book to keep, which receives everything of the first."))]
        }
    }

    /// `book merge`: two records of one book made one.
    static func merge(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "merge", abstract: "Merge one book into another: its notes, quotes, sessions and tags move, then it is deleted.",
                    discussion: "For a book recorded twice (an import that made a second one, a title typed twice). In one transaction: the first book's notes and quotes move to the second (each a change, like `bmvault move`), its sessions are recorded again there, its tags and reading log join the second's, and its rating, edition and position where the second has none or is behind. Every later import on this device of its title or of the names another program gave it goes to the second (those names do not sync; elsewhere an import finds the second book by title). Then the first book is deleted (it stays in `bmvault trash`, empty). It syncs like any change.",
                    parameters: MergeInput.parameters) { input in
            let vault = try context.openVault()
            let (merged, kept, summary) = try vault.mergeBook(input.duplicate, into: input.kept)
            let mention = Mention(vault: vault, console: context.console)
            context.console.note("Merged \(mention.bookAsSubject(merged)) into \(mention.bookAsSubject(kept)): "
                                 + "\(summary.annotations) notes and quotes, \(summary.sessions) sessions, \(summary.tags) tags moved; "
                                 + "the first is deleted.\n")
        }
    }

    static func rate(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "rate", abstract: "Rate a book, 1 to 5 stars in halves.", parameters: RateInput.parameters) { input in
            guard (input.stars != nil) != input.clear else { throw CLIError.invalidValue("book rate needs STARS (1 to 5, in halves) or --clear") }
            let vault = try context.openVault()
            let book = try vault.rateBook(named: input.book, stars: input.stars)
            let named = Mention(vault: vault, console: context.console).bookAsSubject(book)
            context.console.note(book.rating.map { "\(named) rated \(HumanFormat.stars($0)).\n" } ?? "\(named) has no rating.\n")
        }
    }
}
