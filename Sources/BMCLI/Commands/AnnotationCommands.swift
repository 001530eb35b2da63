import Journal
import VaultKit

/// `note add`, `quote add`, `edit`, `delete`: what the reader writes.
enum AnnotationCommands {
    static func note(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "note", abstract: "Add notes: your own thoughts about a book.", subcommands: [
            add(.note, context: context, abstract: "Add a note to a book and print its id.",
                textHelp: "The note. Omitted: read standard input if piped, else open $EDITOR."),
        ])
    }

    static func quote(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "quote", abstract: "Add quotes: the book's words, with where they are.", subcommands: [
            add(.quote, context: context, abstract: "Add a quote to a book (--locator required) and print its id.",
                textHelp: "The quote. Omitted: read standard input if piped, else open $EDITOR."),
        ])
    }

    private static func add(_ kind: AnnotationKind, context: CommandContext, abstract: String, textHelp: String) -> CommandSpec {
        CommandSpec(
            name: "add", abstract: abstract,
            arguments: [SharedOptions.book, ArgumentSpec(name: "text", help: textHelp, isOptional: true)],
            options: [SharedOptions.locator, SharedOptions.json]
        ) { invocation in
            let locator = invocation.option("locator")
            if kind == .quote && locator == nil { throw CLIError.invalidValue("quote add needs --locator L (where the quote is)") }
            let vault = try context.openVault()
            // Fail on a locked vault or an unknown book before the reader types anything.
            let book = try vault.book(named: invocation.argument("book") ?? "")
            let text = try context.text(argument: invocation.argument("text"))
            let annotation = try vault.addAnnotation(to: book, kind: kind, body: text, locator: locator)
            BookCommands.printID(annotation.id.rawValue, json: invocation.flag("json"), context: context)
        }
    }

    static func edit(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "edit", abstract: "Change a note's or quote's text or locator.",
            discussion: "With neither TEXT nor --locator, reads the new text from standard input if piped, else opens $EDITOR on the current text. With only --locator, the text is kept.",
            arguments: [SharedOptions.id, ArgumentSpec(name: "text", help: "The new text.", isOptional: true)],
            options: [SharedOptions.locator]
        ) { invocation in
            let vault = try context.openVault()
            let id = invocation.argument("id") ?? ""
            let locator = invocation.option("locator")
            var text = invocation.argument("text")
            if text == nil && locator == nil {
                guard case .annotation(let listing) = try vault.record(id) else {
                    throw VaultError.wrongRecordKind(id: id, expected: "note or quote", found: "book or session")
                }
                let edited = try context.text(argument: nil, initial: listing.annotation.body + "\n")
                guard (try? TextRules.body(edited)) != listing.annotation.body else {
                    context.console.err("No change; nothing was saved.\n")
                    return
                }
                text = edited
            }
            let annotation = try vault.editAnnotation(id, body: text, locator: locator)
            context.console.err("Saved \(annotation.kind.rawValue) \(annotation.id) (version \(annotation.version)).\n")
        }
    }

    static func delete(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "delete", abstract: "Delete a note, a quote, or a book with no notes left.",
            discussion: "Deletion leaves a tombstone, so the deletion can reach other devices; the record disappears from every listing.",
            arguments: [SharedOptions.id]
        ) { invocation in
            let deleted = try context.openVault().delete(invocation.argument("id") ?? "")
            context.console.err("Deleted \(deleted.kind) \(deleted.id).\n")
        }
    }
}
