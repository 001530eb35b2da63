import Foundation
import Journal
import VaultKit

/// `export` and `import`: the journal as a plain-text archive a person can read without
/// bmvault, and back (Docs/EXPORT-FORMAT.md).
enum ArchiveCommands {
    struct ExportInput: CommandInput {
        var out: String?
        var markdownFolder: String?
        var includeDeleted = false
        var withFiles = false
        var overwriteEdited = false
        var showEdits = false
        var intoExisting = false

        static var parameters: [Parameter<ExportInput>] {
            [.option(\.out, OptionSpec(name: "out", valueName: "dir", help: "The archive directory to create (it must not exist).")),
             .option(\.markdownFolder, OptionSpec(name: "markdown-folder", valueName: "dir",
                                                  help: "Instead of an archive: one note per book in this notes folder (Obsidian's, any Markdown folder), updated in place.")),
             .flag(\.includeDeleted, OptionSpec(name: "include-deleted", help: "Also write deleted books, notes and quotes (tombstones) to journal.json.")),
             .flag(\.withFiles, OptionSpec(name: "with-files", help: "Also write plain copies of your book files under files/ (import re-attaches them).")),
             .flag(\.overwriteEdited, OptionSpec(name: "overwrite-edited", help: "With --markdown-folder: also rewrite bmvault's part of notes you edited (your text outside it stays).")),
             .flag(\.showEdits, OptionSpec(name: "show-edits", help: "With --markdown-folder: print what differs in each note you edited, as a diff.")),
             .flag(\.intoExisting, OptionSpec(name: "into-existing", help: "With --markdown-folder: write into a folder that has files but no earlier export."))]
        }
    }

    static func export(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "export", abstract: "Write a plain-text archive, or update a notes folder.",
            discussion: "With --out, DIR must not exist: it is created (0700) with README.md, manifest.json, journal.json, books/<title>-<id>.md and archive.schema.json (files 0600), and appears only once complete. Each book's files are listed (format, size, SHA-256, metadata); --with-files adds their plain copies under files/. Read it with less or jq; import it with `bmvault import DIR`. With --markdown-folder, DIR gets one note per book (front matter, then its quotes and notes between two marker comments, each with a block id ^bm-...); a later export updates them in place, writes only what changed, keeps whatever you wrote outside the markers, and reports a note you edited between them instead of overwriting it (exit 1). Neither is encrypted.",
            parameters: ExportInput.parameters
        ) { input in
            if let folder = input.markdownFolder {
                try exportNotesFolder(folder, input, context)
                return
            }
            guard let out = input.out, !out.isEmpty else {
                throw CLIError.invalidValue("export needs --out DIR, a directory that does not exist yet (or --markdown-folder DIR, a notes folder)")
            }
            for (given, name) in [(input.overwriteEdited, "--overwrite-edited"), (input.showEdits, "--show-edits"), (input.intoExisting, "--into-existing")] where given {
                throw CLIError.invalidValue("\(name) goes with --markdown-folder, not --out")
            }
            let vault = try context.openVault()
            var showedProgress = false
            let report = try vault.exportArchive(to: out, includeDeleted: input.includeDeleted, withFiles: input.withFiles) { written in
                context.console.progress("\rExporting: \(written) notes and quotes")
                showedProgress = true
            }
            if showedProgress { context.console.progress("\n") }
            for record in report.unreadable { context.reportUnreadable(record) }
            let counts = report.archive.counts
            context.console.note("Exported \(plural(counts.books, "book")), \(plural(counts.sessions, "session")), "
                + "\(plural(counts.notes, "note")) and \(plural(counts.quotes, "quote")) to \(report.archive.path).\n")
            if report.filesListed > 0 {
                context.console.note(input.withFiles
                    ? "Listed \(plural(report.filesListed, "book file")), with \(plural(report.filesCopied, "plain copy", "plain copies")) under files/.\n"
                    : "Listed \(plural(report.filesListed, "book file")) (--with-files also writes \(report.filesListed == 1 ? "its plain copy" : "their plain copies")).\n")
            }
            for id in report.filesNotCopied {
                context.console.err("Book file \(FileCommands.shortFileID(id)): no plain copy (gone, damaged, or kept on another device; `bmvault file verify` says which).\n")
            }
            if report.leftOut > 0 {
                context.console.err("\(plural(report.leftOut, "note, quote or session", "notes, quotes or sessions")) of deleted books were left out; --include-deleted keeps them.\n")
            }
            if report.archive.removedLeftovers > 0 {
                context.console.err("Removed \(plural(report.archive.removedLeftovers, "unfinished copy", "unfinished copies")) left beside \(report.archive.path) by an interrupted export.\n")
            }
            context.console.err("Warning: the archive is not encrypted; anyone who can read \(report.archive.path) can read your journal.\n")
            try context.finishListing()
            if !report.filesNotCopied.isEmpty { throw CLIError.filesNotCopied(count: report.filesNotCopied.count) }
        }
    }

    /// `export --markdown-folder DIR` (Docs/NOTES-FOLDER.md).
    private static func exportNotesFolder(_ folder: String, _ input: ExportInput, _ context: CommandContext) throws {
        guard !folder.isEmpty else { throw CLIError.invalidValue("--markdown-folder needs a folder") }
        if input.out != nil { throw CLIError.invalidValue("export writes an archive (--out) or a notes folder (--markdown-folder), not both at once") }
        for (given, name) in [(input.includeDeleted, "--include-deleted"), (input.withFiles, "--with-files")] where given {
            throw CLIError.invalidValue("\(name) goes with --out (an archive), not --markdown-folder")
        }
        let vault = try context.openVault()
        let report = try vault.exportNotesFolder(to: folder, options: NotesFolderOptions(overwriteEdited: input.overwriteEdited,
                                                                                         showEdits: input.showEdits,
                                                                                         intoExisting: input.intoExisting))
        for record in report.unreadable { context.reportUnreadable(record) }
        let summary = report.summary
        // On standard output, as a listing is: a note's name is its book's title, which
        // standard error never shows.
        for problem in summary.problems {
            switch problem.reason {
            case .edited: context.console.out("Edited in the notes folder: \(problem.file) (left as it is)\n")
            case .notAFile: context.console.out("Not a file bmvault wrote, left alone: \(problem.file)\n")
            case .changedDuringExport: context.console.out("Changed while bmvault exported, left for the next export: \(problem.file)\n")
            }
            if let diff = problem.diff { context.console.out(diff) }
        }
        var parts = ["\(plural(summary.created, "note")) written", "\(summary.updated) updated", "\(summary.unchanged) unchanged"]
        if summary.removed > 0 { parts.append("\(summary.removed) removed (\(summary.removed == 1 ? "its book is" : "their books are") no longer in the journal)") }
        if summary.released > 0 { parts.append("\(summary.released) left to you without bmvault's part (\(summary.released == 1 ? "its book is" : "their books are") no longer in the journal)") }
        context.console.note("Notes folder \(summary.path): " + parts.joined(separator: ", ") + ".\n")
        if summary.followed > 0 {
            context.console.note("Followed \(plural(summary.followed, "note")) you renamed or moved in the folder.\n")
        }
        if summary.removedLeftovers > 0 {
            context.console.err("Removed \(plural(summary.removedLeftovers, "unfinished file")) left in \(summary.path) by an interrupted export.\n")
        }
        context.console.err("Warning: the notes are not encrypted; anyone who can read \(summary.path) can read them.\n")
        try context.finishListing()
        if !summary.problems.isEmpty { throw CLIError.notesLeftAsTheyWere(count: summary.problems.count) }
        if !report.unreadable.isEmpty { throw CLIError.unreadableRecords(count: report.unreadable.count) }
    }

    struct ImportInput: CommandInput {
        var path = ""
        var dryRun = false
        var force = false
        var json = false
        var format: ImportFormat?
        var book: String?
        var gap: Int64?
        var minimumSession: Int64?

        static var parameters: [Parameter<ImportInput>] {
            [.argument(\.path, ArgumentSpec(name: "path", help: "The archive directory, or its journal.json (- reads it from standard input); or another program's file, or a reading device's folder.")),
             .option(\.format, OptionSpec(name: "from", valueName: "format",
                                          help: "Read PATH as this format, not the one its content suggests: kindle, koreader, koreader-stats, kobo, device, calibre, readwise, jrnl, goodreads or bmvault."),
                     ValueParsing.importFormat),
             .option(\.book, OptionSpec(name: "book", valueName: "book",
                                        help: "The book calibre highlights are from, or jrnl entries go to (default: a book called Journal).")) { $0 },
             .option(\.gap, OptionSpec(name: "gap", valueName: "duration",
                                       help: "KOReader statistics (alone or on a device): the longest pause inside one reading session (default 15m).")) { (text) throws(CLIError) in
                         try ValueParsing.sessionRule(text, option: "gap") },
             .option(\.minimumSession, OptionSpec(name: "min-session", valueName: "duration",
                                                  help: "KOReader statistics (alone or on a device): the shortest session recorded; shorter ones are only counted (default 60s).")) { (text) throws(CLIError) in
                         try ValueParsing.sessionRule(text, option: "min-session") },
             .flag(\.dryRun, OptionSpec(name: "dry-run", help: "Report what would be added, updated and marked as a conflict; change nothing.")),
             .flag(\.force, OptionSpec(name: "force", help: "Import even if files differ from the manifest (a damaged or altered archive).")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func importCommand(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "import", abstract: "Merge an archive, or a Kindle's or KOReader's highlights.",
            discussion: "PATH is an archive directory or its journal.json, a Kindle's My Clippings.txt, a KOReader sidecar or a folder holding some (a device's drive), calibre's highlights export (with --book), a Readwise CSV export or a jrnl journal (`jrnl --export json`), told apart by their content (--from names the format instead); KOReader's statistics, a Kobo's database, or a reading device's folder (a Kobo, a Kindle, KOReader on any device), whose files are all imported in one run. All or nothing, in one transaction. Records the vault has are left alone, so importing twice changes nothing; an archive's note that differs keeps both texts (see `bmvault conflicts`), and a highlight imported before is skipped by its key, even one deleted since. Edited Markdown files are read in place of journal.json for their book. A Goodreads library export gives books their shelves as reading statuses (Docs/IMPORTING.md). With --verbose, what was not added is listed by its locator.",
            parameters: ImportInput.parameters
        ) { input in
            if input.path != CommandContext.standardInputArgument {
                switch input.format ?? Vault.importFormat(at: input.path) {
                case .bmvault?:
                    if input.book != nil { throw VaultError.importBookNotAsked(format: .bmvault) }
                    if input.gap != nil || input.minimumSession != nil { throw VaultError.importSessionRulesNotAsked(format: .bmvault) }
                case let format?:
                    if ![.koreaderStatistics, .device].contains(format), input.gap != nil || input.minimumSession != nil {
                        throw VaultError.importSessionRulesNotAsked(format: format)
                    }
                    let standard = KOReaderSessionRules.standard
                    let rules = KOReaderSessionRules(gap: input.gap ?? standard.gap, minimumSeconds: input.minimumSession ?? standard.minimumSeconds)
                    // A progress line for a large file, on a terminal only (``Console/progress(_:)``).
                    var showedProgress = false
                    func progress(_ done: Int, _ total: Int) {
                        guard total >= 1_000 else { return }
                        context.console.progress("\rImporting: \(done) of \(total) highlights and notes")
                        showedProgress = true
                    }
                    if format == .device {
                        if input.book != nil { throw VaultError.importBookNotAsked(format: .device) }
                        let report = try context.openVault().importDevice(at: input.path, dryRun: input.dryRun, sessions: rules, progress: progress)
                        if showedProgress { context.console.progress("\n") }
                        if input.json {
                            context.console.out(JSONDocuments.render(DeviceDocument(report, listingSkipped: context.verbose)))
                        } else {
                            context.console.out(humanSummary(report, at: input.path) + (context.verbose ? skippedListing(report.whole) : ""))
                        }
                        return
                    }
                    let report = try context.openVault().importOtherProgram(at: input.path, format: format, dryRun: input.dryRun,
                                                                            book: input.book, sessions: rules, progress: progress)
                    if showedProgress { context.console.progress("\n") }
                    if input.json {
                        context.console.out(JSONDocuments.render(OtherProgramDocument(report, listingSkipped: context.verbose)))
                    } else {
                        context.console.out(humanSummary(report) + (context.verbose ? skippedListing(report) : ""))
                    }
                    return
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
            + (summary.filesAttached == 0 ? [] : [(report.dryRun ? "Would attach:" : "Attached:",
                                                   "\(plural(summary.filesAttached, "book file")), \(summary.filesStored) stored from the archive's files/")])
            + (summary.filesNotCarried == 0 ? [] : [("Not attached:", "\(plural(summary.filesNotCarried, "book file")) listed without a plain copy (export --with-files carries them)")])
        let width = rows.map(\.0.count).max() ?? 0
        var text = report.dryRun ? "Dry run: nothing was changed.\n" : ""
        for (label, value) in rows { text += label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value + "\n" }
        return text
    }

    static func plural(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// `import --json`, documented in Docs/CLI.md.
    struct ImportDocument: Encodable {
        let added: JournalCounts, updated: JournalCounts, unchanged: Int, conflicts: Int
        /// bmvault 0.13: tags given to records that did not show them.
        let tagsGiven: Int
        /// bmvault 0.17: book files attached, stored from the archive's plain copies, and
        /// listed without one (not attached).
        let filesAttached: Int, filesStored: Int, filesNotCarried: Int
        let dryRun: Bool, formatVersion: Int, fromMarkdown: Bool, editedMarkdownFiles: Int, ignoredFiles: Int

        init(_ report: ImportReport) {
            let summary = report.summary
            added = summary.added
            updated = summary.updated
            unchanged = summary.unchanged
            conflicts = summary.conflicts
            tagsGiven = summary.tagsGiven
            filesAttached = summary.filesAttached
            filesStored = summary.filesStored
            filesNotCarried = summary.filesNotCarried
            dryRun = report.dryRun
            formatVersion = report.formatVersion
            fromMarkdown = report.fromMarkdown
            editedMarkdownFiles = report.editedMarkdownFiles
            ignoredFiles = report.ignoredFiles
        }
    }
}
