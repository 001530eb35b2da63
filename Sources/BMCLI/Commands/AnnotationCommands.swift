import Journal
import VaultKit

/// `note add`, `quote add`, `edit`, `delete`: what the reader writes.
enum AnnotationCommands {
    static func note(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "note", abstract: "Add notes: your own thoughts about a book.", subcommands: [
            add(.note, context: context, abstract: "Add a note to a book and print its id.",
                textHelp: "The note. Omitted: read standard input if piped, else open $EDITOR.").withExamples([
                    ("bmvault note add dune", "Write the note in your editor: it stays out of the shell's history."),
                    ("bmvault note add dune - --locator \"p. 12\"", "Type the note, then Ctrl-D (or pipe it in)."),
                    ("bmvault note add @last-book -", "Another note on the book of the last one."),
                ]),
        ])
    }

    static func quote(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "quote", abstract: "Add quotes: the book's words, with where they are.", subcommands: [
            add(.quote, context: context, abstract: "Add a quote to a book (--locator required) and print its id.",
                textHelp: "The quote. Omitted: read standard input if piped, else open $EDITOR.").withExamples([
                    ("bmvault quote add dune --locator \"p. 8\"", "Copy the quote into your editor."),
                ]),
        ])
    }

    struct AddInput: CommandInput {
        var book = ""
        var text: String?
        var locator: String?
        var tags: [String] = []
        var on: ValueParsing.GivenTime?
        var json = false

        /// `textHelp` says whether TEXT is the note or the quote.
        static func parameters(textHelp: String) -> [Parameter<AddInput>] {
            [.argument(\.book, SharedOptions.book), .argument(\.text, ArgumentSpec(name: "text", help: textHelp, isOptional: true)),
             .option(\.locator, SharedOptions.locator), .options(\.tags, SharedOptions.tags), .time(\.on, SharedOptions.writtenOn),
             .flag(\.json, SharedOptions.json)]
        }
    }

    private static func add(_ kind: AnnotationKind, context: CommandContext, abstract: String, textHelp: String) -> CommandSpec {
        CommandSpec(name: "add", abstract: abstract, parameters: AddInput.parameters(textHelp: textHelp)) { input in
            if kind == .quote && input.locator == nil { throw CLIError.invalidValue("quote add needs --locator L (where the quote is)") }
            // A tag that cannot be one, or a date in the future, fails before the reader types
            // anything, like a locked vault or an unknown book.
            do throws(JournalError) {
                for tag in input.tags { _ = try Tag.checked(tag) }
                if let on = input.on, on.timestamp > context.clock.now() { throw .noteInFuture }
            } catch {
                throw VaultError.invalidInput(error)
            }
            let vault = try context.openVault()
            let book = try vault.book(named: input.book)
            let text = try context.text(argument: input.text,
                                        buffer: EditorBuffer(text: "", kind: kind, bookTitle: book.title, locator: input.locator))
            let annotation = try vault.addAnnotation(to: book, kind: kind, body: text, locator: input.locator, tags: input.tags,
                                                    writtenAt: input.on?.timestamp)
            let mention = Mention(vault: vault, console: context.console)
            context.console.note("Added a \(kind.rawValue) to \(mention.book(book))\(mention.locator(annotation.locator)): \(vault.shortID(annotation.id)).\n")
            BookCommands.printID(annotation.id.rawValue, json: input.json, context: context)
        }
    }

    struct EditInput: CommandInput {
        var id = ""
        var text: String?
        var locator: String?
        var kind: AnnotationKind?
        var comment: String?
        var on: ValueParsing.GivenTime?

        static var parameters: [Parameter<EditInput>] {
            [.argument(\.id, SharedOptions.id), .argument(\.text, ArgumentSpec(name: "text", help: "The new text.", isOptional: true)),
             .option(\.locator, SharedOptions.locator),
             .time(\.on, OptionSpec(name: "on", valueName: "time", help: "When it was written: \(ValueParsing.timeForms); not in the future.")),
             .option(\.comment, OptionSpec(name: "comment", valueName: "text", help: "Your comment on a quote (\"\" removes it).")) { $0 },
             .option(\.kind, OptionSpec(name: "kind", short: "k", valueName: "kind",
                                        help: "Make it a note or a quote (a quote needs a locator)."), ValueParsing.kind)]
        }
    }

    static func edit(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "edit", abstract: "Change a note's or quote's text, locator, kind or date.",
            discussion: "TEXT - reads the new text from standard input. With neither TEXT, --locator, --kind, --comment nor --on, reads the new text from standard input if piped, else opens $EDITOR on the current text. With only --locator, --kind, --comment or --on, the text is kept. --on dates it (as note add --on does). --locator \"\" removes a note's locator (a quote keeps one). --kind quote makes a note a quote (it needs a locator, recorded or given), --kind note a quote a note.",
            parameters: EditInput.parameters
        ) { input in
            let vault = try context.openVault()
            let id = input.id
            var text = input.text == CommandContext.standardInputArgument ? try context.readStandardInput() : input.text
            if text == nil && input.locator == nil && input.comment == nil && input.kind == nil, let on = input.on {
                guard case .annotation(let listing) = try vault.record(id) else {
                    throw VaultError.wrongRecordKind(id: id, expected: "note or quote", found: "book or session")
                }
                guard listing.annotation.createdAt != on.timestamp else {
                    context.console.err("No change; nothing was saved.\n")
                    return
                }
            } else if text == nil && input.locator == nil && input.comment == nil && input.on == nil, let kind = input.kind {
                guard case .annotation(let listing) = try vault.record(id) else {
                    throw VaultError.wrongRecordKind(id: id, expected: "note or quote", found: "book or session")
                }
                guard listing.annotation.kind != kind else {
                    context.console.err("No change; nothing was saved.\n")
                    return
                }
            } else if text == nil && input.locator == nil && input.kind == nil && input.comment == nil && input.on == nil {
                guard case .annotation(let listing) = try vault.record(id) else {
                    throw VaultError.wrongRecordKind(id: id, expected: "note or quote", found: "book or session")
                }
                let annotation = listing.annotation
                let edited = try context.text(argument: nil, buffer: EditorBuffer(text: annotation.body, kind: annotation.kind,
                                                                                 bookTitle: listing.bookTitle, locator: annotation.locator?.text))
                guard (try? TextRules.body(edited)) != listing.annotation.body else {
                    context.console.err("No change; nothing was saved.\n")
                    return
                }
                text = edited
            }
            let annotation = try vault.editAnnotation(id, body: text, locator: input.locator, kind: input.kind, comment: input.comment,
                                                    writtenAt: input.on?.timestamp)
            context.console.note("Saved \(annotation.kind.rawValue) \(vault.shortID(annotation.id)) (version \(annotation.version)).\n")
        }
    }

    struct MoveInput: CommandInput {
        var ids: [String] = []
        var book = ""

        static var parameters: [Parameter<MoveInput>] {
            [.arguments(\.ids, ArgumentSpec(name: "id", help: "A note or quote: its short id, id or a unique prefix, or @last, @last~N; repeat for several.",
                                              isVariadic: true)),
             .option(\.book, OptionSpec(name: "to", valueName: "book", help: "The book they go to: an id, or part of its title or author (see BOOK in Docs/CLI.md)."),
                     missing: "move needs --to BOOK") { $0 }]
        }
    }

    static func move(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "move", abstract: "Move notes or quotes to another book.",
            discussion: "Several ids move together or not at all. A move is a change of the note like an edit: it syncs, and if another device changed the note's text meanwhile, both versions are kept and the reader is told (bmvault conflicts).",
            parameters: MoveInput.parameters
        ) { input in
            let vault = try context.openVault()
            let moved = try vault.move(input.ids, to: input.book)
            for annotation in moved {
                context.console.note("Moved \(annotation.kind.rawValue) \(vault.shortID(annotation.id)) to book \(vault.shortID(annotation.bookID)).\n")
            }
            if moved.isEmpty { context.console.err("Already in that book; nothing was changed.\n") }
        }
    }

    struct DeleteInput: CommandInput {
        var ids: [String] = []
        var withNotes = false
        var yes = false

        static var parameters: [Parameter<DeleteInput>] {
            [.arguments(\.ids, ArgumentSpec(name: "id", help: "A record: its short id, id or a unique prefix, or @last, @last~N, @last-book; repeat for several.",
                                              isVariadic: true)),
             .flag(\.withNotes, OptionSpec(name: "with-notes", help: "A book goes with its notes and quotes (asked at a terminal).")),
             .flag(\.yes, OptionSpec(name: "yes", short: "y", help: "With --with-notes: do not ask (for scripts)."))]
        }
    }

    /// At a terminal, asks before a book goes with its notes.
    private static func confirmDeletion(of books: [(book: Book, counts: JournalCounts)], vault: Vault, context: CommandContext) -> Bool {
        var question = ""
        for (book, counts) in books {
            question += "Book \(vault.shortID(book.id)) (\(HumanFormat.printable(book.title))) has "
                + HumanFormat.counted([(counts.notes, "note"), (counts.quotes, "quote")]) + ".\n"
        }
        return context.confirm(question + "Delete \(books.count == 1 ? "it" : "them") with \(books.count == 1 ? "its" : "their") notes and quotes? [y/N] ")
    }

    static func delete(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "delete", abstract: "Delete notes, quotes, sessions or books.",
            discussion: "Several ids are deleted together or not at all: one that names nothing, or a book that would keep notes, deletes none. A book goes with its last notes when they are named with it. Deletion leaves a tombstone, so the deletion can reach other devices; the record disappears from every listing at once. Its text stays in the vault, encrypted, until it is purged: once every device that syncs has the deletion, or at the latest after the retention period (90 days by default, `bmvault remote retention`), with or without a remote. Then only the tombstone's id, dates and clock are left. `bmvault purge` purges what is past the retention now. `bmvault trash` lists what can still come back with `bmvault undelete`. A book with notes goes only with --with-notes, which asks at a terminal and needs --yes elsewhere.",
            parameters: DeleteInput.parameters
        ) { input in
            guard !input.yes || input.withNotes else { throw CLIError.invalidValue("--yes goes with --with-notes") }
            let canAsk = context.console.stdinIsTerminal && context.console.stderrIsTerminal
            guard !input.withNotes || input.yes || canAsk else {
                throw CLIError.invalidValue("--with-notes asks at a terminal; from a script, add --yes")
            }
            let vault = try context.openVault()
            let deleted = try vault.delete(input.ids, withNotes: input.withNotes) { books in
                if input.yes { return true }
                return confirmDeletion(of: books, vault: vault, context: context)
            }
            for record in deleted { context.console.note("Deleted \(record.kind) \(vault.shortID(record.id)).\n") }
        }
    }
}
