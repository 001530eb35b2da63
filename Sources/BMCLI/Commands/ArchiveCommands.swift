import Foundation
import Journal
import VaultKit

/// `export` and `import`: the journal as a plain-text archive a person can read without
/// bmvault, and back (Docs/EXPORT-FORMAT.md).
enum ArchiveCommands {
    struct ExportInput: CommandInput {
        var out = ""  // Required: decoding always sets it.
        var includeDeleted = false

        static var parameters: [Parameter<ExportInput>] {
            [.nonEmptyOption(\.out, OptionSpec(name: "out", valueName: "dir", help: "The directory to create (required)."),
                             missing: "export needs --out DIR, a directory that does not exist yet"),
             .flag(\.includeDeleted, OptionSpec(name: "include-deleted", help: "Also write deleted books, notes and quotes (tombstones) to journal.json."))]
        }
    }

    static func export(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "export", abstract: "Write a plain-text archive of the journal.",
            discussion: "DIR must not exist: it is created (0700) with README.md, manifest.json, journal.json, books/<title>-<id>.md and archive.schema.json (files 0600), and appears only once complete. The archive is NOT encrypted. Read it with less or jq; import it with `bmvault import DIR`.",
            parameters: ExportInput.parameters
        ) { input in
            let vault = try context.openVault()
            var showedProgress = false
            let report = try vault.exportArchive(to: input.out, includeDeleted: input.includeDeleted) { written in
                context.console.progress("\rExporting: \(written) notes and quotes")
                showedProgress = true
            }
            if showedProgress { context.console.progress("\n") }
            for record in report.unreadable { context.reportUnreadable(record) }
            let counts = report.archive.counts
            context.console.note("Exported \(plural(counts.books, "book")), \(plural(counts.sessions, "session")), "
                + "\(plural(counts.notes, "note")) and \(plural(counts.quotes, "quote")) to \(report.archive.path).\n")
            if report.leftOut > 0 {
                context.console.err("\(plural(report.leftOut, "note, quote or session", "notes, quotes or sessions")) of deleted books were left out; --include-deleted keeps them.\n")
            }
            if report.archive.removedLeftovers > 0 {
                context.console.err("Removed \(plural(report.archive.removedLeftovers, "unfinished copy", "unfinished copies")) left beside \(report.archive.path) by an interrupted export.\n")
            }
            context.console.err("Warning: the archive is not encrypted; anyone who can read \(report.archive.path) can read your journal.\n")
            try context.finishListing()
        }
    }

    struct ImportInput: CommandInput {
        var path = ""
        var dryRun = false
        var force = false
        var json = false

        static var parameters: [Parameter<ImportInput>] {
            [.argument(\.path, ArgumentSpec(name: "path", help: "The archive directory, or its journal.json (- reads it from standard input); or another program's file.")),
             .flag(\.dryRun, OptionSpec(name: "dry-run", help: "Report what would be added, updated and marked as a conflict; change nothing.")),
             .flag(\.force, OptionSpec(name: "force", help: "Import even if files differ from the manifest (a damaged or altered archive).")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func importCommand(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "import", abstract: "Merge an archive made by `bmvault export`.",
            discussion: "PATH is an archive directory or its journal.json. All or nothing, in one transaction. Records the vault has are left alone, so importing twice changes nothing; a note that differs keeps both texts (see `bmvault conflicts`). Edited Markdown files are read in place of journal.json for their book. A Kindle's My Clippings.txt, a KOReader sidecar (or a folder of them) and a Goodreads library export are told by their content; for those only --dry-run is built yet (Docs/IMPORTING.md).",
            parameters: ImportInput.parameters
        ) { input in
            if input.path != CommandContext.standardInputArgument {
                switch Vault.importFormat(at: input.path) {
                case .bmvault?: break
                case .kindle?:
                    guard input.dryRun else { throw VaultError.importNotBuilt(format: .kindle) }
                    return try showKindlePlan(Vault.kindleImportPlan(at: input.path), json: input.json, context: context)
                case .koreader?:
                    guard input.dryRun else { throw VaultError.importNotBuilt(format: .koreader) }
                    let paths = Vault.koreaderSidecars(under: input.path)
                    if paths.isEmpty { return try showSidecar(Vault.koreaderSidecar(at: input.path), json: input.json, context: context) }
                    return try showSidecars(paths.map { path throws(VaultError) in try Vault.koreaderSidecar(at: path) }, json: input.json, context: context)
                case .goodreads?:
                    guard input.dryRun else { throw VaultError.importNotBuilt(format: .goodreads) }
                    return try showGoodreads(Vault.goodreadsExport(at: input.path), json: input.json, context: context)
                case nil: throw VaultError.notImportable(path: input.path)
                }
            }
            let vault = try context.openVault()
            let piped = input.path == CommandContext.standardInputArgument ? try context.standardInputInMemory() : nil
            defer { piped?.close() }
            let report = try vault.importArchive(from: piped?.path ?? input.path, dryRun: input.dryRun, force: input.force)
            if input.json {
                context.console.out(JSONDocuments.render(ImportDocument(report)))
            } else {
                context.console.out(humanSummary(report))
            }
            if report.fromMarkdown { context.console.err("There was no journal.json: everything was read from the Markdown files.\n") }
            if report.editedMarkdownFiles > 0 {
                context.console.err("Read \(plural(report.editedMarkdownFiles, "edited Markdown file")) in place of journal.json for "
                    + (report.editedMarkdownFiles == 1 ? "its book.\n" : "their books.\n"))
            }
            if report.ignoredFiles > 0 {
                context.console.err("Skipped \(plural(report.ignoredFiles, "file")) in books/ that \(report.ignoredFiles == 1 ? "is" : "are") not a bmvault book.\n")
            }
            if report.summary.conflicts > 0 && !report.dryRun { context.console.err("See the conflicts with `bmvault conflicts`.\n") }
        }
    }

    /// `import --dry-run` of a Kindle's clippings: what each book would receive, and what
    /// would be merged or only counted, so nothing the file holds goes unmentioned.
    private static func showKindlePlan(_ plan: KindleImportPlan, json: Bool, context: CommandContext) throws {
        let totals = plan.totals
        if json {
            context.console.out(JSONDocuments.render(KindlePlanDocument(plan)))
            return
        }
        var text = "Dry run: nothing was changed. Found \(ImportFormat.kindle.name): \(plural(plan.books.count, "book")).\n"
        for book in plan.books {
            let comments = book.quotes.reduce(0) { $0 + $1.comments.count }
            text += "  \(HumanFormat.printable(book.title))\(book.author.map { " — " + HumanFormat.printable($0) } ?? ""): "
                + "\(plural(book.quotes.count, "quote"))\(comments > 0 ? " (\(plural(comments, "note")) on them)" : "")"
                + (book.notes.isEmpty ? "" : ", \(plural(book.notes.count, "note"))") + "\n"
        }
        text += "Would add:  \(plural(totals.quotes, "quote")) with \(plural(totals.comments, "note")) on them, \(plural(totals.notes, "note")) of their own\n"
        text += "Would merge: \(plural(totals.replaced, "re-highlight")) into the quotes they repeat (kept as history), "
            + "\(plural(totals.repeatedNotes, "repeated note"))\n"
        text += "Would count only: \(plural(totals.bookmarks, "bookmark")) (progress hints), "
            + "\(plural(totals.placeholders, "clipping-limit placeholder")), \(plural(totals.empty, "clipping")) without text\n"
        context.console.out(text)
    }

    /// `import --dry-run` of a KOReader sidecar: the book and what it would receive.
    private static func showSidecar(_ sidecar: KOReaderSidecar, json: Bool, context: CommandContext) throws {
        let notes = sidecar.highlights.filter { $0.note != nil }.count
        if json {
            context.console.out(JSONDocuments.render(SidecarDocument(sidecar)))
            return
        }
        var text = "Dry run: nothing was changed. Found \(ImportFormat.koreader.name)"
        text += sidecar.usedAnnotations ? ", in the 2024 layout.\n" : ", in the layout before 2024.\n"
        text += "  \(sidecar.title.map(HumanFormat.printable) ?? "(no title)")"
            + (sidecar.authors.isEmpty ? "" : " — " + sidecar.authors.map(HumanFormat.printable).joined(separator: ", "))
            + (sidecar.percentFinished.map { ", \(Int($0.rounded()))% read" } ?? "") + (sidecar.status.map { ", \($0)" } ?? "") + "\n"
        text += "Would add:  \(plural(sidecar.highlights.count, "quote")) with \(plural(notes, "note")) on them\n"
        text += "Would count only: \(plural(sidecar.bookmarks, "page bookmark")) (progress hints)\n"
        context.console.out(text)
    }

    /// `import --dry-run` of a Goodreads export: the books by shelf.
    private static func showGoodreads(_ export: GoodreadsExport, json: Bool, context: CommandContext) throws {
        let shelves = export.shelves
        let read = export.books.filter { $0.shelf == "read" }
        let withDate = read.filter { $0.dateRead != nil }.count
        if json {
            context.console.out(JSONDocuments.render(GoodreadsDocument(books: export.books.count, shelves: shelves, readWithDate: withDate,
                                                                       rated: export.books.filter { $0.rating != nil }.count)))
            return
        }
        var text = "Dry run: nothing was changed. Found \(ImportFormat.goodreads.name): \(plural(export.books.count, "book")).\n"
        text += "Would add:  \(plural(read.count, "finished book")) (\(withDate) with the day it was finished), "
            + "\(plural(shelves["currently-reading", default: 0], "book")) being read, \(plural(shelves["to-read", default: 0], "book")) to read\n"
        let others = shelves.filter { !["read", "currently-reading", "to-read"].contains($0.key) }.sorted { $0.key < $1.key }
        if !others.isEmpty {
            text += "On shelves of their own: " + others.map { "\(HumanFormat.printable($0.key)) \($0.value)" }.joined(separator: ", ") + "\n"
        }
        text += "Ratings:    \(plural(export.books.filter { $0.rating != nil }.count, "book")) rated\n"
        context.console.out(text)
    }

    /// `import --dry-run --json` of a Goodreads export, documented in Docs/CLI.md.
    struct GoodreadsDocument: Encodable {
        let format = ImportFormat.goodreads.rawValue
        let dryRun = true
        let books: Int, shelves: [String: Int], readWithDate: Int, rated: Int
    }

    /// `import --dry-run` of a folder of KOReader sidecars: a line per book, then the totals.
    private static func showSidecars(_ sidecars: [KOReaderSidecar], json: Bool, context: CommandContext) throws {
        let highlights = sidecars.reduce(0) { $0 + $1.highlights.count }
        let notes = sidecars.reduce(0) { $0 + $1.highlights.filter { $0.note != nil }.count }
        let bookmarks = sidecars.reduce(0) { $0 + $1.bookmarks }
        if json {
            context.console.out(JSONDocuments.render(SidecarFolderDocument(books: sidecars.count, quotes: highlights, comments: notes, bookmarks: bookmarks)))
            return
        }
        var text = "Dry run: nothing was changed. Found \(plural(sidecars.count, "KOReader sidecar")).\n"
        for sidecar in sidecars {
            text += "  \(sidecar.title.map(HumanFormat.printable) ?? "(no title)"): \(plural(sidecar.highlights.count, "quote"))\n"
        }
        text += "Would add:  \(plural(highlights, "quote")) with \(plural(notes, "note")) on them\n"
        text += "Would count only: \(plural(bookmarks, "page bookmark")) (progress hints)\n"
        context.console.out(text)
    }

    /// `import --dry-run --json` of a folder of KOReader sidecars.
    struct SidecarFolderDocument: Encodable {
        let format = ImportFormat.koreader.rawValue
        let dryRun = true
        let books: Int, quotes: Int, comments: Int, bookmarks: Int
    }

    /// `import --dry-run --json` of a KOReader sidecar, documented in Docs/CLI.md.
    struct SidecarDocument: Encodable {
        let format = ImportFormat.koreader.rawValue
        let dryRun = true
        let quotes: Int, comments: Int, bookmarks: Int, percentFinished: Double?, status: String?

        init(_ sidecar: KOReaderSidecar) {
            quotes = sidecar.highlights.count
            comments = sidecar.highlights.filter { $0.note != nil }.count
            bookmarks = sidecar.bookmarks
            percentFinished = sidecar.percentFinished
            status = sidecar.status
        }
    }

    /// `import --dry-run --json` of a Kindle's clippings, documented in Docs/CLI.md.
    struct KindlePlanDocument: Encodable {
        let format = ImportFormat.kindle.rawValue
        let dryRun = true
        let books: Int, quotes: Int, comments: Int, notes: Int, replaced: Int, repeatedNotes: Int, bookmarks: Int, placeholders: Int, empty: Int

        init(_ plan: KindleImportPlan) {
            let totals = plan.totals
            books = plan.books.count
            (quotes, comments, notes, replaced, repeatedNotes) = (totals.quotes, totals.comments, totals.notes, totals.replaced, totals.repeatedNotes)
            (bookmarks, placeholders, empty) = (totals.bookmarks, totals.placeholders, totals.empty)
        }
    }

    private static func humanSummary(_ report: ImportReport) -> String {
        let summary = report.summary
        let rows = [
            (report.dryRun ? "Would add:" : "Added:", "\(plural(summary.added.books, "book")), \(plural(summary.added.sessions, "session")), "
                + "\(plural(summary.added.notes, "note")), \(plural(summary.added.quotes, "quote"))"),
            (report.dryRun ? "Would update:" : "Updated:", "\(plural(summary.updated.books, "book")), "
                + "\(plural(summary.updated.notes, "note")), \(plural(summary.updated.quotes, "quote"))"),
            ("Unchanged:", plural(summary.unchanged, "record")),
            (report.dryRun ? "Would conflict:" : "Conflicts:", "\(summary.conflicts)"),
        ] + (summary.tagsGiven == 0 ? [] : [(report.dryRun ? "Would tag:" : "Tagged:", plural(summary.tagsGiven, "tag"))])
        let width = rows.map(\.0.count).max() ?? 0
        var text = report.dryRun ? "Dry run: nothing was changed.\n" : ""
        for (label, value) in rows { text += label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value + "\n" }
        return text
    }

    private static func plural(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// `import --json`, documented in Docs/CLI.md.
    struct ImportDocument: Encodable {
        let added: JournalCounts, updated: JournalCounts, unchanged: Int, conflicts: Int
        /// bmvault 0.13: tags given to records that did not show them.
        let tagsGiven: Int
        let dryRun: Bool, formatVersion: Int, fromMarkdown: Bool, editedMarkdownFiles: Int, ignoredFiles: Int

        init(_ report: ImportReport) {
            let summary = report.summary
            added = summary.added
            updated = summary.updated
            unchanged = summary.unchanged
            conflicts = summary.conflicts
            tagsGiven = summary.tagsGiven
            dryRun = report.dryRun
            formatVersion = report.formatVersion
            fromMarkdown = report.fromMarkdown
            editedMarkdownFiles = report.editedMarkdownFiles
            ignoredFiles = report.ignoredFiles
        }
    }
}
