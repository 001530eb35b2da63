import BookFiles
import Foundation
import Journal
import VaultKit

/// `file add|list|open|export|verify|remove`: the EPUB, MOBI and PDF files a reader reads,
/// kept encrypted beside the journal or linked where they lie (Docs/FILES.md).
enum FileCommands {
    static func file(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "file", abstract: "Keep your EPUB, MOBI and PDF files beside the journal, encrypted.",
            discussion: "`file add` reads a file's metadata (title, authors, identifiers), finds or adds its book and keeps an "
                + "encrypted copy in the vault's file store (files/ beside vault.db), or with --link only a handle to it where "
                + "it lies on this device. The same content twice is kept once. A book file syncs as a record (its book, format, "
                + "checksum, metadata and your place in it); the file itself stays on the device that added it, and other "
                + "devices list it as on another device.",
            subcommands: [add(context), list(context), open(context), export(context), verify(context), remove(context)])
    }

    struct AddInput: CommandInput {
        var path = ""
        var book: String?
        var link = false
        var json = false

        static var parameters: [Parameter<AddInput>] {
            [.argument(\.path, ArgumentSpec(name: "path", help: "An EPUB, MOBI, AZW3 or PDF file (told by its content).")),
             .option(\.book, OptionSpec(name: "book", short: "b", valueName: "book",
                                        help: "The book it is an edition of (default: the book its metadata names, added when missing).")),
             .flag(\.link, OptionSpec(name: "link", help: "Keep only a handle to the file where it is, on this device; no copy.")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    /// Files this large or larger show a progress line on a terminal.
    static let progressThreshold: Int64 = 32 << 20

    static func add(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "add", abstract: "Add a book file: its metadata names the book, a copy is kept encrypted.",
            discussion: "Unknown, damaged or DRM-locked files are refused with exit 65 and nothing is changed. The copy is "
                + "encrypted with its own key (libsodium secretstream) and checked against its SHA-256; the file itself is "
                + "never changed. A different edition of a book is a second file of that book.",
            parameters: AddInput.parameters
        ) { input in
            let vault = try context.openVault()
            var showedProgress = false
            let added = try vault.addFile(at: input.path, book: input.book, link: input.link) { done, total in
                guard total >= progressThreshold else { return }
                context.console.progress("\rAdding: \(done * 100 / max(total, 1))% of \(HumanFormat.fileSize(total))")
                showedProgress = true
            }
            if showedProgress { context.console.progress("\n") }
            let mention = Mention(vault: vault, console: context.console)
            let addition = added.addition
            if input.json {
                context.console.out(JSONDocuments.render(JSONDocuments.FileAddedDocument(added, vault: vault)))
            }
            if addition.bookIsNew {
                // At a terminal the title is named, and the short id beside it; elsewhere the short id alone.
                let id = mention.showsContent ? " (\(vault.shortID(added.book.id)))" : ""
                context.console.note("Added \(mention.book(added.book))\(id) from the file's metadata.\n")
            }
            let what = "\(added.format.rawValue.uppercased()) \(HumanFormat.fileSize(addition.file.content.size)), file \(shortFileID(addition.file.id))"
            if addition.wasAttached && !addition.contentIsNew {
                context.console.err("\(what) is already a file of \(mention.book(added.book)); nothing was changed.\n")
            } else if !addition.contentIsNew {
                context.console.note("\(what) attached to \(mention.book(added.book)): the same content was already kept, so no second copy.\n")
            } else if input.link {
                context.console.note("\(what) linked to \(mention.book(added.book)), on this device only (not copied).\n")
            } else {
                context.console.note("\(what) kept encrypted for \(mention.book(added.book)).\n")
            }
        }
    }

    struct ListInput: CommandInput {
        var book: String?
        var json = false

        static var parameters: [Parameter<ListInput>] {
            [.option(\.book, SharedOptions.bookFilter), .flag(\.json, SharedOptions.json)]
        }
    }

    static func list(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "list", abstract: "List book files: format, size, checksum, stored or linked, present or missing.",
            parameters: ListInput.parameters
        ) { input in
            let vault = try context.openVault()
            let listings = try vault.fileListings(book: input.book)
            if input.json {
                context.console.out(JSONDocuments.render(listings.map { JSONDocuments.FileDocument($0) }))
            } else if listings.isEmpty {
                context.console.err("No book files yet; `bmvault file add PATH` adds one.\n")
            } else {
                context.startPaging()
                for listing in listings {
                    context.console.out(line(listing) + "\n")
                }
            }
            try context.finishListing()
        }
    }

    /// `0190a3b2  EPUB  1.2 MB  sha256:4f2a9c01  stored  present  "Title"  p. 12`
    static func line(_ listing: FileListing) -> String {
        let content = listing.file.content
        let kept = content.isStored ? "stored" : content.link != nil ? "linked" : "elsewhere"
        let place: String = switch listing.presence {
        case .present: content.isStored ? "present" : "present, on this device only"
        case .missing: "MISSING"
        case .unreadable: "UNREADABLE"
        case .elsewhere: "on another device"
        }
        var line = "\(shortFileID(listing.file.id))  \(content.format.uppercased())  \(HumanFormat.fileSize(content.size))  "
            + "sha256:\(content.checksum.prefix(12))  \(kept)  \(place)  \"\(HumanFormat.printable(listing.book.title))\""
        if listing.book.deletedAt != nil { line += " (book in the trash)" }
        if let locator = listing.file.locator { line += "  at \(HumanFormat.printable(locator))" }
        return line
    }

    static func shortFileID(_ id: EntityID) -> String {
        Vault.shortFileID(id)
    }

    struct IDInput: CommandInput {
        var id = ""

        static var parameters: [Parameter<IDInput>] {
            [.argument(\.id, ArgumentSpec(name: "id", help: "A book file: its id or a unique prefix (as `file list` shows it)."))]
        }
    }

    struct OpenInput: CommandInput {
        var id = ""
        var printPath = false

        static var parameters: [Parameter<OpenInput>] {
            [.argument(\.id, ArgumentSpec(name: "id", help: "A book file: its id or a unique prefix (as `file list` shows it).")),
             .flag(\.printPath, OptionSpec(name: "print-path", help: "Print where the decrypted copy is, instead of opening it."))]
        }
    }

    static func open(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "open", abstract: "Open a book file in its viewer (xdg-open), decrypted into $XDG_RUNTIME_DIR.",
            discussion: "The decrypted copy is written to a private folder (0700) under $XDG_RUNTIME_DIR, never /tmp, and is "
                + "removed by the next bmvault command of this vault. Refused when there is no private $XDG_RUNTIME_DIR.",
            parameters: OpenInput.parameters
        ) { input in
            let vault = try context.openVault()
            let path = try vault.openFile(input.id, runtimeDirectory: context.environment["XDG_RUNTIME_DIR"])
            if input.printPath {
                context.console.out(path + "\n")
                return
            }
            guard let child = ChildProcess.spawn(["xdg-open", path]) else { throw CLIError.viewerFailed(status: 127) }
            let status = try ChildProcess.waitForExit(child)
            guard status == 0 else { throw CLIError.viewerFailed(status: status) }
        }
    }

    struct ExportInput: CommandInput {
        var id = ""
        var out = ""

        static var parameters: [Parameter<ExportInput>] {
            [.argument(\.id, ArgumentSpec(name: "id", help: "A book file: its id or a unique prefix (as `file list` shows it).")),
             .nonEmptyOption(\.out, OptionSpec(name: "out", valueName: "path", help: "The file to write (required; must not exist)."),
                             missing: "file export needs --out PATH, a file that does not exist yet")]
        }
    }

    static func export(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "export", abstract: "Write a plain copy of a book file.",
            discussion: "The copy is byte for byte the file that was added, checked against its SHA-256 as it is written; "
                + "it is NOT encrypted.",
            parameters: ExportInput.parameters
        ) { input in
            let vault = try context.openVault()
            var showedProgress = false
            let file = try vault.exportFile(input.id, to: input.out) { done, total in
                guard total >= progressThreshold else { return }
                context.console.progress("\rWriting: \(done * 100 / max(total, 1))% of \(HumanFormat.fileSize(total))")
                showedProgress = true
            }
            if showedProgress { context.console.progress("\n") }
            // The path is not repeated: a book file is often named after its title.
            context.console.note("Wrote a plain copy of \(HumanFormat.fileSize(file.content.size)) to the --out file (not encrypted).\n")
        }
    }

    struct VerifyInput: CommandInput {
        var search: String?
        var repair = false
        var json = false

        static var parameters: [Parameter<VerifyInput>] {
            [.option(\.search, OptionSpec(name: "search", valueName: "dir", help: "Look for linked files that moved under DIR (by size, then checksum).")),
             .flag(\.repair, OptionSpec(name: "repair", help: "Re-link the moved files --search found. Nothing is ever deleted.")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func verify(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "verify", abstract: "Re-hash every stored and linked book file; find moved ones.",
            discussion: "Exit 0 when every file is intact (or kept on another device), 65 when one is missing, unreadable or changed. "
                + "Never deletes anything.",
            parameters: VerifyInput.parameters
        ) { input in
            let vault = try context.openVault()
            let checks = try vault.verifyFiles(search: input.search, repair: input.repair)
            if input.json {
                context.console.out(JSONDocuments.render(checks.map { JSONDocuments.FileCheckDocument($0) }))
            }
            var problems = 0
            for check in checks {
                let id = shortFileID(check.file.id)
                let said: String
                switch check.state {
                case .intact: said = "intact"
                case .elsewhere: said = "on another device (not checked)"
                case .missing(let movedTo?):
                    said = check.repaired ? "moved; re-linked to \(movedTo)" : "moved to \(movedTo) (--repair re-links it)"
                    if !check.repaired { problems += 1 }
                case .missing(nil):
                    said = check.file.content.isStored ? "MISSING: its stored copy is gone" : "MISSING: not where it was linked (--search DIR looks for it)"
                    problems += 1
                case .unreadable(let code):
                    said = "UNREADABLE: \(String(cString: strerror(code)))"
                    problems += 1
                case .changed:
                    said = check.file.content.isStored ? "DAMAGED: its stored copy does not match its checksum" : "CHANGED: it no longer matches its checksum"
                    problems += 1
                }
                if !input.json { context.console.out("\(id)  \(check.file.content.format.uppercased())  \(said)\n") }
            }
            if checks.isEmpty && !input.json { context.console.err("No book files to verify.\n") }
            if problems > 0 { throw CLIError.filesNotIntact(count: problems) }
        }
    }

    static func remove(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "remove", abstract: "Detach a book file from its book; its stored copy goes when no book has it.",
            discussion: "A linked file is never touched where it lies. The book, its notes and quotes stay.",
            parameters: IDInput.parameters
        ) { input in
            let vault = try context.openVault()
            let file = try vault.removeFile(input.id)
            context.console.note("File \(shortFileID(file.id)) detached\(file.content.isStored ? "; its encrypted copy is removed unless another book has it" : "").\n")
        }
    }
}
