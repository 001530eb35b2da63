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
                let finishes = book.readingLog.finishedOn.count
                context.console.note("\(Mention(vault: vault, console: context.console).bookAsSubject(book)) is \(status.rawValue) since \(HumanFormat.localDate(on))"
                                    + (status == .finished && finishes > 1 ? " (finished \(finishes) times)" : "") + ".\n")
            }
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
