import Journal
import VaultKit

/// `tag add|remove|list`: the reader's own words to find books, notes and quotes again.
enum TagCommands {
    static func tag(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "tag", abstract: "Tag books, notes and quotes; list the tags in use.",
            discussion: "A tag is one word (no space or comma), compared without case or accents: Fiction and fiction are one "
                + "tag. Tags are given explicitly; #words in a note's text are text. `list`, `search` and `book list` take "
                + "--tag to show only what has one. Tags are encrypted like titles, and sync.",
            subcommands: [add(context), remove(context), list(context)])
    }

    struct ChangeInput: CommandInput {
        var id = ""
        var tags: [String] = []

        static var parameters: [Parameter<ChangeInput>] {
            [.argument(\.id, ArgumentSpec(name: "id", help: "A note, quote or book: its short id, id or a unique prefix, or @last (for a book, also what BOOK takes).")),
             .arguments(\.tags, ArgumentSpec(name: "tag", help: "One or more tags.", isVariadic: true))]
        }
    }

    static func add(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "add", abstract: "Give tags to a note, quote or book.", parameters: ChangeInput.parameters) { input in
            // Counts, never the tags themselves: standard error is no place for the reader's words.
            let vault = try context.openVault()
            let (record, given) = try vault.addTags(input.tags, to: input.id)
            let has = HumanFormat.counted([(record.tags.count, "tag")])
            if given.isEmpty {
                context.console.err("\(vault.shortID(record.id)) has those tags already (\(has) in all); nothing was changed.\n")
            } else {
                context.console.note("\(vault.shortID(record.id)) tagged: \(HumanFormat.counted([(given.count, "tag")])) given, \(has) in all.\n")
            }
        }
    }

    static func remove(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "remove", abstract: "Take tags away from a note, quote or book.",
            discussion: "All or none: a tag the record does not have is an error, and no tag is taken away.",
            parameters: ChangeInput.parameters
        ) { input in
            let vault = try context.openVault()
            let record = try vault.removeTags(input.tags, from: input.id)
            context.console.note("\(vault.shortID(record.id)): tags taken away, \(HumanFormat.counted([(record.tags.count, "tag")])) left.\n")
        }
    }

    static func list(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "list", abstract: "List the tags in use, with how many books, notes and quotes have each.",
                    parameters: JSONOnlyInput.parameters) { input in
            let uses = try context.openVault().tagUses()
            if input.json {
                context.console.out(JSONDocuments.render(uses.map(JSONDocuments.TagDocument.init)))
            } else if uses.isEmpty {
                context.console.err("No tags yet; `bmvault tag add ID TAG` gives one.\n")
            } else {
                context.startPaging()
                for use in uses {
                    let counts = HumanFormat.counted([(use.books, "book"), (use.notes, "note"), (use.quotes, "quote")].filter { $0.0 > 0 })
                    context.console.out("#\(HumanFormat.printable(use.name))  \(counts)\n")
                }
            }
            try context.finishListing()
        }
    }
}
