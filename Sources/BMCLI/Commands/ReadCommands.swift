import Journal
import VaultKit

/// `list`, `show`, `search`: reading the journal back.
enum ReadCommands {
    struct ListInput: CommandInput {
        var book: String?
        var kind: AnnotationKind?
        var since: ValueParsing.Period?
        var until: ValueParsing.Period?
        var on: ValueParsing.Period?
        var newest: Int?
        var order = ListingOrder.bookAdded
        var tag: String?
        var json = false
        var fresh = false

        static var parameters: [Parameter<ListInput>] {
            [.option(\.book, SharedOptions.bookFilter),
             .option(\.kind, SharedOptions.kindFilter, ValueParsing.kind),
             .period(\.since, OptionSpec(name: "since", valueName: "date", help: "Only those created at or after this day or time: \(ValueParsing.periodForms).")),
             .period(\.until, OptionSpec(name: "until", valueName: "date", help: "Only those created up to the end of this day or week, or up to this time.")),
             .period(\.on, OptionSpec(name: "on", valueName: "date", help: "Only those created on this day or in this week: today, yesterday, this week, last week or YYYY-MM-DD.")),
             .option(\.newest, OptionSpec(name: "newest", short: "n", valueName: "n", help: "Only the N most recently created (changed, with --sort updated)."),
                     ValueParsing.count),
             .option(\.order, OptionSpec(name: "sort", valueName: "order",
                                         help: "created (oldest first), updated (latest change last), book (by title) or locator (by title, then locator); default: books in the order added."),
                     ValueParsing.listingOrder),
             .option(\.tag, SharedOptions.tagFilter),
             .flag(\.json, SharedOptions.json), .flag(\.fresh, SharedOptions.fresh)]
        }

        /// The request, the three date filters taken together.
        func request() throws(CLIError) -> ListingRequest {
            if let on, !on.isSpan {
                throw .invalidValue("--on takes a day or a week: today, yesterday, this week, last week or YYYY-MM-DD")
            }
            let from = [since?.start, on?.start].compactMap { $0 }.max()
            let before = [until?.end, on?.end].compactMap { $0 }.min()
            return ListingRequest(book: book, kind: kind, createdFrom: from, createdBefore: before, newest: newest, order: order, tag: tag)
        }

        var filters: Bool { book != nil || kind != nil || since != nil || until != nil || on != nil || tag != nil }
    }

    static func list(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "list", abstract: "List notes and quotes.", parameters: ListInput.parameters) { input in
            let request = try input.request()
            let vault = try context.openVaultForReading(fresh: input.fresh)
            let printer = ListingPrinter(context: context, names: input.json ? nil : try vault.recordNames())
            try vault.forEachAnnotation(request, printer.print)
            try printer.finish(ifEmpty: input.filters ? "No notes or quotes match." : "No notes or quotes yet.")
        }
    }

    struct SearchInput: CommandInput {
        var query: String?
        var book: String?
        var kind: AnnotationKind?
        var since: ValueParsing.Period?
        var tag: String?
        var json = false
        var fresh = false

        static var parameters: [Parameter<SearchInput>] {
            [.argument(\.query, ArgumentSpec(name: "query", help: "Words that must all appear, in any order; \"a phrase\" in double quotes for words together. Omitted: asked for at a terminal, else read from standard input.",
                                               isOptional: true)),
             .option(\.book, SharedOptions.bookFilter),
             .option(\.kind, SharedOptions.kindFilter, ValueParsing.kind),
             .period(\.since, OptionSpec(name: "since", valueName: "date", help: "Only those created at or after this day or time: \(ValueParsing.periodForms).")),
             .option(\.tag, SharedOptions.tagFilter),
             .flag(\.json, SharedOptions.json), .flag(\.fresh, SharedOptions.fresh)]
        }
    }

    static func search(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "search", abstract: "Find notes and quotes by text, locator, title or author.",
            discussion: """
                Ignores case and accents (miserables finds Misérables). Each word may appear in the note, its locator, \
                or its book's title or authors. Notes holding the words as one phrase come first; on a terminal the \
                matches are shown in bold. The search runs on the decrypted text in memory, so nothing about the \
                query is stored.
                """,
            parameters: SearchInput.parameters
        ) { input in
            // Without QUERY the words stay out of the shell's history: asked, or piped in.
            let query: String
            if let given = input.query {
                query = given
            } else if context.canAsk {
                query = context.ask("Search: ") ?? ""
            } else if !context.console.stdinIsTerminal {
                query = try context.readStandardInput()
            } else {
                throw CLIError.invalidValue("search needs QUERY")
            }
            let request = SearchRequest(query, book: input.book, kind: input.kind, createdFrom: input.since?.start, tag: input.tag)
            let highlighter = context.console.showsColor && !input.json
                ? try? SearchMatcher(SearchQuery(query)) : nil
            let vault = try context.openVaultForReading(fresh: input.fresh)
            let printer = ListingPrinter(context: context, names: input.json ? nil : try vault.recordNames(), highlighter: highlighter)
            try vault.search(request, printer.print)
            try printer.finish(ifEmpty: "No notes or quotes match.")
        }
    }

    struct ShowInput: CommandInput {
        var id = ""
        var json = false
        var fresh = false

        static var parameters: [Parameter<ShowInput>] {
            [.argument(\.id, SharedOptions.id), .flag(\.json, SharedOptions.json), .flag(\.fresh, SharedOptions.fresh)]
        }
    }

    static func show(_ context: CommandContext) -> CommandSpec {
        CommandSpec(name: "show", abstract: "Show one note, quote, book or session in full.", parameters: ShowInput.parameters) { input in
            let vault = try context.openVaultForReading(fresh: input.fresh)
            let record = try vault.record(input.id)
            if !input.json { context.startPaging() }
            show(record, json: input.json, names: try vault.recordNames(), console: context.console)
            // A sync asked for by --fresh that fell short fails the command, once the record is shown.
            try context.finishListing()
        }
    }

    /// The `id:` line of `show`: the short id, then the full one.
    private static func idField(_ id: EntityID, names: RecordNames) -> String {
        let short = names.shortID(id)
        return HumanFormat.field("id", short == id.rawValue ? short : "\(short)  (\(id))")
    }

    private static func show(_ record: JournalRecord, json: Bool, names: RecordNames, console: Console) {
        switch record {
        case .annotation(let listing):
            let annotation = listing.annotation
            if json {
                console.out(JSONDocuments.render(JSONDocuments.AnnotationDocument(listing)))
                return
            }
            console.out(idField(annotation.id, names: names)
                + HumanFormat.field("kind", annotation.kind.rawValue)
                + HumanFormat.field("book", (listing.bookTitle.map { $0 + " " } ?? "") + "(\(names.shortID(annotation.bookID)))")
                + (annotation.locator.map { HumanFormat.field("locator", $0.text) } ?? "")
                + (listing.tags.isEmpty ? "" : HumanFormat.field("tags", listing.tags.joined(separator: ", ")))
                + HumanFormat.field("created", HumanFormat.localTime(annotation.createdAt))
                + HumanFormat.field("updated", HumanFormat.localTime(annotation.updatedAt) + " (version \(annotation.version))")
                + "\n" + HumanFormat.printable(annotation.body) + "\n"
                + (annotation.comment.map { "\nComment:\n" + HumanFormat.printable($0) + "\n" } ?? ""))
        case .book(let details):
            let book = details.book
            let counts = details.counts
            if json {
                console.out(JSONDocuments.render(JSONDocuments.BookDetailsDocument(
                    book: JSONDocuments.BookDocument(book, tags: details.tags), sessions: details.sessions.map(JSONDocuments.SessionDocument.init),
                    counts: counts)))
                return
            }
            var text = idField(book.id, names: names) + HumanFormat.field("title", book.title)
            if !book.authors.isEmpty { text += HumanFormat.field("authors", book.authors.joined(separator: ", ")) }
            if let edition = HumanFormat.edition(book.edition) { text += HumanFormat.field("edition", edition) }
            text += HumanFormat.field("progress", HumanFormat.position(book))
            if let status = book.readingLog.status {
                text += HumanFormat.field("status", status.rawValue + (book.readingLog.statusSince.map { " since " + HumanFormat.localDate($0) } ?? " (day not known)"))
            }
            let finished = book.readingLog.finishedOn.map(HumanFormat.localDate)
                + Array(repeating: "day not known", count: book.readingLog.finishes - book.readingLog.finishedOn.count)
            if !finished.isEmpty { text += HumanFormat.field("finished", finished.joined(separator: ", ")) }
            if let rating = book.rating { text += HumanFormat.field("rating", HumanFormat.stars(rating)) }
            if !details.tags.isEmpty { text += HumanFormat.field("tags", details.tags.joined(separator: ", ")) }
            text += HumanFormat.field("added", HumanFormat.localTime(book.createdAt))
                + HumanFormat.field("journal", HumanFormat.counted([(counts.notes, "note"), (counts.quotes, "quote"), (counts.sessions, "session")]))
            for session in details.sessions {
                text += HumanFormat.field("session", "\(HumanFormat.localTime(session.startedAt)) to \(HumanFormat.localTime(session.endedAt)), \(session.pagesRead) pages" + HumanFormat.sourceSuffix(session))
            }
            console.out(text)
        case .session(let session):
            if json {
                console.out(JSONDocuments.render(JSONDocuments.SessionDocument(session)))
                return
            }
            console.out(idField(session.id, names: names)
                + HumanFormat.field("book", names.shortID(session.bookID))
                + HumanFormat.field("started", HumanFormat.localTime(session.startedAt))
                + HumanFormat.field("ended", HumanFormat.localTime(session.endedAt))
                + HumanFormat.field("pages", String(session.pagesRead))
                + (session.source.map { HumanFormat.field("source", $0) } ?? ""))
        }
    }
}

/// Prints a stream of listings as they arrive: blocks for people, or one JSON array
/// written element by element (one compact object per line, which also suits `grep` and
/// line-by-line tools), so memory does not grow with the journal.
final class ListingPrinter {
    private let context: CommandContext
    /// How blocks name records; nil for JSON, which gives full ids.
    private let names: RecordNames?
    private var count = 0
    /// One encoder for the whole listing: making one per record was most of the cost.
    private let encoder = JSONDocuments.compactEncoder()
    /// Finds what to show in bold (search results on a terminal).
    private let highlighter: SearchMatcher?

    init(context: CommandContext, names: RecordNames?, highlighter: SearchMatcher? = nil) {
        self.context = context
        self.names = names
        if names != nil { context.startPaging() }
        self.highlighter = highlighter
    }

    func print(_ result: Result<AnnotationListing, UnreadableRecord>) {
        switch result {
        case .failure(let unreadable):
            context.reportUnreadable(unreadable)
        case .success(let listing):
            if let names {
                let style = context.console.style
                context.console.out(HumanFormat.annotationBlock(listing, highlights: highlighter?.highlights(in: listing.annotation.body) ?? [],
                                                                name: { style.id(names.shortID($0)) }, style: style))
            } else {
                let document = JSONDocuments.renderCompact(
                    JSONDocuments.AnnotationDocument(listing), encoder: encoder)
                context.console.out((count == 0 ? "[\n  " : ",\n  ") + document)
            }
            count += 1
        }
    }

    /// Ends the listing. An empty one says `ifEmpty` on standard error (standard output
    /// stays empty, or `[]`), unless records were left out as unreadable.
    func finish(ifEmpty: String) throws(CLIError) {
        if names == nil { context.console.out(count == 0 ? "[]\n" : "\n]\n") }
        if count == 0 && names != nil && context.unreadableCount == 0 { context.console.err(ifEmpty + "\n") }
        try context.finishListing()
    }

}
